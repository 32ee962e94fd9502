// Several action-rollup reads of one selection in one statement (as compile-rollup-slice.ts does for
// the daily rollups). The actions report reads one selection grouped nine ways (families, actions,
// actions by page and by channel, pages, channels, devices, countries, browsers): one statement reads
// each stored grouping's rows (grp, dim) with that grouping's own eligibility (an OR of branches;
// scope and selection filters shared), grouped by grouping, every identity column and the dimension
// key, and each read gets its grouping's rows added up by its own keys. Exact: a read's rows are
// those its own statement reads (its grouping, eligibility, scope and filters), and sessions and
// occurrences of a group are sums over them (build/actions-build.ts: distinct sessions per day, tenant
// and key sum), whatever finer groups the shared statement cut them into. Totals (by day or not)
// read the 'any', 'meaningful' and 'family' groupings by day and are computed from them (totalsOf),
// with the day series of families: one statement more for the report, not three.
import type { ActionRowsRequest, ActionTotalsRequest } from '../../../ports/analytics-engine.js';
import type { ActionsPlan } from './actions-plan.js';
import { ACTION_IDENTITY, ACTIONS_TABLE, type ActionDim, type ActionLevel } from '../rollup-tables.js';
import { actionsEligibility, actionsFilters, actionsScope } from './compile-actions-rollup.js';
import type { Dialect } from '../dialect.js';
import { toInt, type CompiledShared, type SharedOptions } from './read-rows.js';
import { SqlWriter } from './sql-writer.js';

type Row = Record<string, unknown>;

// result columns: never names of the table's columns (a SELECT alias would shadow them in the WHERE)
const DAY_COL = 'm_day';
const GRP_COL = 'm_grp';
const DIM_COL = 'm_dim';
const KEY_COL = 'm_dim_key';
const idCol = (c: string) => `m_a_${c}`;

/** An action-rows or action-totals read the planner found exact from the rollup. */
export type ActionsSliceMember = { plan: ActionsPlan; req: ActionRowsRequest } | { plan: ActionsPlan; totals: ActionTotalsRequest };

const selectionOf = (m: ActionsSliceMember) => ('req' in m ? m.req : m.totals).selection;

/** Totals are read by day (a total is the sum of its days: it goes with its series and the family series). */
const byDayOf = (m: ActionsSliceMember) => ('req' in m ? m.req.groupBy.includes('day') : true);

/** Reads with equal keys may share a statement: the same scope, eligible days, selection and day grouping. */
export function actionsSliceKey(m: ActionsSliceMember): string {
  const { plan } = m;
  const sel = selectionOf(m);
  return JSON.stringify([
    plan.siteId,
    plan.firstDayMs,
    plan.lastDayMs,
    plan.traffic,
    plan.tenantIds,
    plan.allDays,
    sel.family ?? null,
    sel.action ?? null,
    byDayOf(m),
  ]);
}

type Branch = { grp: ActionLevel; dim: ActionDim | '' };
const branchKey = (b: Branch) => JSON.stringify([b.grp, b.dim]);

/** The stored groupings a read takes rows of: its own, or the three totals read (compileActionTotalsFromRollup). */
function branchesOf(m: ActionsSliceMember): Branch[] {
  if ('req' in m) return [{ grp: m.plan.grp, dim: m.plan.dim }];
  return (['any', 'meaningful', 'family'] as const).map((grp) => ({ grp, dim: '' as const }));
}

/**
 * One statement for members of one slice (equal actionsSliceKey); each member's rows in its own
 * statement's columns (compileActionRowsFromRollup), one per group.
 */
export function compileActionsSlice(members: readonly ActionsSliceMember[], d: Dialect, options: SharedOptions = {}): CompiledShared {
  const q = new SqlWriter(d, options.rowFilter);
  const col = (n: string) => q.col('r', n);
  const first = members[0];
  const branches = new Map<string, string>();
  const where = [...actionsScope(q, first.plan), ...actionsFilters(q, selectionOf(first))];
  for (const m of members) {
    for (const b of branchesOf(m)) {
      if (branches.has(branchKey(b))) continue;
      // the same (grp, dim) in one slice: the same eligibility (it depends on grp and the slice's days), so the same rows
      const cond = [`${col('grp')} = ${q.v(b.grp)}`, `${col('dim')} = ${q.v(b.dim)}`, ...actionsEligibility(q, { ...m.plan, ...b })];
      branches.set(branchKey(b), `(${cond.join(' AND ')})`);
    }
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
    members.map((m) => {
      if (!('req' in m)) return totalsOf(m.totals, rows);
      const { req, plan } = m;
      const b = branchKey(plan);
      // the member's key columns and where each comes from (compileActionRowsFromRollup's names)
      const keys: [string, string][] = req.groupBy.flatMap((g): [string, string][] =>
        g === 'day'
          ? [['o_day', DAY_COL]]
          : g === 'action'
            ? ACTION_IDENTITY.map((c): [string, string] => [`a_${c}`, idCol(c)])
            : [[`o_${g}`, g === 'family' ? idCol('family') : KEY_COL]],
      );
      const groups = new Map<string, Row>();
      for (const r of rows) {
        if (branchKey({ grp: r[GRP_COL] as ActionLevel, dim: r[DIM_COL] as ActionDim }) !== b) continue;
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

/**
 * compileActionTotalsFromRollup's rows from the shared statement's: per day (one row per day with an
 * 'any', 'meaningful', 'errors' or 'instrumentation' row, as its WHERE keeps), or their sum in one row.
 */
function totalsOf(req: ActionTotalsRequest, rows: readonly Row[]): Row[] {
  const byDay = new Map<string, Row>();
  for (const r of rows) {
    const grp = r[GRP_COL];
    const family = r[idCol('family')];
    if (r[DIM_COL] !== '') continue;
    const errors = grp === 'family' && family === 'errors';
    const instrumentation = grp === 'family' && family === 'instrumentation';
    if (grp !== 'any' && grp !== 'meaningful' && !errors && !instrumentation) continue;
    const day = req.byDay ? String(r[DAY_COL]) : '';
    let out = byDay.get(day);
    if (!out) {
      out = {
        ...(req.byDay ? { o_day: r[DAY_COL] } : {}),
        o_meaningful_sessions: 0,
        o_meaningful_occurrences: 0,
        o_error_sessions: 0,
        o_instrumentation_sessions: 0,
      };
      byDay.set(day, out);
    }
    const add = (c: string, v: unknown) => (out![c] = (out![c] as number) + toInt(v));
    if (grp === 'meaningful') {
      add('o_meaningful_sessions', r.o_sessions);
      add('o_meaningful_occurrences', r.o_occurrences);
    }
    if (errors) add('o_error_sessions', r.o_sessions);
    if (instrumentation) add('o_instrumentation_sessions', r.o_sessions);
  }
  // without a day its own statement (no GROUP BY) has one row, of zeros when nothing matches
  if (!req.byDay && byDay.size === 0)
    return [{ o_meaningful_sessions: 0, o_meaningful_occurrences: 0, o_error_sessions: 0, o_instrumentation_sessions: 0 }];
  return [...byDay.values()];
}
