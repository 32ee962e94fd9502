// Several action-rollup reads of one selection in one statement (as compile-rollup-slice.ts does for
// the daily rollups). The actions report reads one selection grouped nine ways (families, actions,
// actions by page and by channel, pages, channels, devices, countries, browsers): one statement reads
// each stored grouping's rows (grp, dim) with that grouping's own eligibility (an OR of branches;
// scope and selection filters shared), grouped by grouping, every identity column and the dimension
// key, and each read gets its grouping's rows added up by its own keys. Exact: a read's rows are
// those its own statement reads (its grouping, eligibility, scope and filters), and sessions and
// occurrences of a group are sums over them (actions-rollup.ts: distinct sessions per day, tenant
// and key sum), whatever finer groups the shared statement cut them into.
import type { ActionRowsRequest } from '../../ports/analytics-engine.js';
import type { ActionsPlan } from './actions-plan.js';
import { ACTION_IDENTITY, ACTIONS_TABLE } from './actions-rollup.js';
import { actionsEligibility, actionsFilters, actionsScope } from './compile-actions-rollup.js';
import type { Dialect } from './dialect.js';
import { toInt, type CompiledShared, type SharedOptions } from './read-rows.js';
import { SqlWriter } from './sql-writer.js';

type Row = Record<string, unknown>;

// result columns: never names of the table's columns (a SELECT alias would shadow them in the WHERE)
const DAY_COL = 'm_day';
const GRP_COL = 'm_grp';
const DIM_COL = 'm_dim';
const KEY_COL = 'm_dim_key';
const idCol = (c: string) => `m_a_${c}`;

/** An action-rows read the planner found exact from the rollup. */
export interface ActionsSliceMember {
  req: ActionRowsRequest;
  plan: ActionsPlan;
}

const byDayOf = (m: ActionsSliceMember) => m.req.groupBy.includes('day');

/** Reads with equal keys may share a statement: the same scope, eligible days, selection and day grouping. */
export function actionsSliceKey(m: ActionsSliceMember): string {
  const { plan, req } = m;
  return JSON.stringify([plan.siteId, plan.firstDayMs, plan.lastDayMs, plan.traffic, plan.tenantIds, plan.allDays, req.selection.family ?? null, req.selection.action ?? null, byDayOf(m)]);
}

const branchOf = (plan: ActionsPlan) => JSON.stringify([plan.grp, plan.dim]);

/**
 * One statement for members of one slice (equal actionsSliceKey); each member's rows in its own
 * statement's columns (compileActionRowsFromRollup), one per group.
 */
export function compileActionsSlice(members: readonly ActionsSliceMember[], d: Dialect, options: SharedOptions = {}): CompiledShared {
  const q = new SqlWriter(d, options.rowFilter);
  const col = (n: string) => q.col('r', n);
  const first = members[0];
  const branches = new Map<string, string>();
  const where = [...actionsScope(q, first.plan), ...actionsFilters(q, first.req.selection)];
  for (const { plan } of members) {
    const b = branchOf(plan);
    if (branches.has(b)) continue;
    // the same (grp, dim) in one slice: the same eligibility, so the same rows
    branches.set(b, `(${[`${col('grp')} = ${q.v(plan.grp)}`, `${col('dim')} = ${q.v(plan.dim)}`, ...actionsEligibility(q, plan)].join(' AND ')})`);
  }
  where.push(`(${[...branches.values()].join(' OR ')})`);

  const byDay = byDayOf(first);
  const stored: [string, string][] = [
    ...(byDay ? [['day_ms', DAY_COL] as [string, string]] : []),
    ['grp', GRP_COL],
    ['dim', DIM_COL],
    ...ACTION_IDENTITY.map((c): [string, string] => [c, idCol(c)]),
    ['dim_key', KEY_COL],
  ];
  const cols = stored.map(([n, alias]) => `${col(n)} AS ${alias}`);
  cols.push(`${q.int64(`sum(${col('sessions')})`)} AS o_sessions`, `${q.int64(`sum(${col('occurrences')})`)} AS o_occurrences`);
  const sql = `SELECT ${cols.join(', ')} FROM ${q.table(options.table ?? ACTIONS_TABLE, 'r')} WHERE ${where.join(' AND ')} GROUP BY ${stored.map(([n]) => col(n)).join(', ')}`;

  const split = (rows: readonly Row[]): Row[][] =>
    members.map(({ req, plan }) => {
      const b = branchOf(plan);
      // the member's key columns and where each comes from (compileActionRowsFromRollup's names)
      const keys: [string, string][] = req.groupBy.flatMap((g): [string, string][] =>
        g === 'day' ? [['o_day', DAY_COL]] : g === 'action' ? ACTION_IDENTITY.map((c): [string, string] => [`a_${c}`, idCol(c)]) : [[`o_${g}`, g === 'family' ? idCol('family') : KEY_COL]],
      );
      const groups = new Map<string, Row>();
      for (const r of rows) {
        if (JSON.stringify([r[GRP_COL], r[DIM_COL]]) !== b) continue;
        const id = JSON.stringify(keys.map(([, from]) => r[from] ?? null));
        let out = groups.get(id);
        if (!out) {
          out = Object.fromEntries(keys.map(([name, from]) => [name, r[from] ?? null]));
          out.o_sessions = 0;
          out.o_occurrences = 0;
          groups.set(id, out);
        }
        out.o_sessions = (out.o_sessions as number) + toInt(r.o_sessions);
        out.o_occurrences = (out.o_occurrences as number) + toInt(r.o_occurrences);
      }
      // without keys its own statement (no GROUP BY) has one row even when nothing matches
      if (keys.length === 0 && groups.size === 0) return [{ o_sessions: 0, o_occurrences: 0 }];
      return [...groups.values()];
    });
  const names = stored.map(([, alias]) => alias);
  return { sql, columns: [...names, 'o_sessions', 'o_occurrences'], text: names.filter((n) => n !== DAY_COL), split };
}
