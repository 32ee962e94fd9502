// Several rollup reads of one slice in one statement. A report asks the daily rollups for many
// lists over the same site, days, traffic and tenant scope that differ only in the stored grouping
// (countries, devices, channels, ...): one statement reads each grouping's rows with that grouping's
// own key conditions (an OR of branches, the rest of the WHERE shared), grouped by grouping, both
// stored keys (and the day: byDayOf), and each read gets its grouping's rows. Exact: a read's rows
// are those its own statement reads, its groups are sums of the same rows (every atom is a sum,
// rollup-plan.ts), and the caller adds up rows of one (bucket, key, split) and assembles them
// (HAVING, order and limit in JS, as for partial results: compile-query.ts CompileOptions.partial).
import { atomsFor } from '../../../domain/query/metrics.js';
import type { NormalizedSpec } from '../../../domain/query/query-spec.js';
import { BUCKET_COL, KEY_COL, SPLIT_COL } from './compile-query.js';
import { rollupGrouping, rollupKeys, rollupScope, rollupTenants } from './compile-rollup.js';
import { ROLLUP_TABLE } from '../rollup-tables.js';
import type { Dialect } from '../dialect.js';
import type { RollupPlan } from './rollup-plan.js';
import type { CompiledShared, SharedOptions } from './read-rows.js';
import { SqlWriter } from './sql-writer.js';

type Row = Record<string, unknown>;

/** A rollup read: its spec and the plan the planner made for it. */
export interface SliceMember {
  spec: NormalizedSpec;
  plan: RollupPlan;
}

// result columns: never names of the table's columns (a SELECT alias would shadow them in the WHERE)
const DIM_COL = 'm_dim';
const FILTER_DIM_COL = 'm_filter_dim';
const STORED_KEY_COL = { dim_key: 'm_dim_key', filter_key: 'm_filter_key' } as const;

/**
 * Whether a statement of the plan's slice groups by day: for series, and for totals (a total is the
 * sum of its days, and a report's total goes with its daily series: a few rows more, one statement
 * less). Breakdowns are read without days (their keys times the days would be many rows).
 */
const byDayOf = (plan: RollupPlan) => plan.byDay || plan.keyFrom === null;

/**
 * Reads that may share a statement have equal keys: the same rows apart from grouping and key
 * conditions, and the same day grouping. A tenant breakdown (groups by tenant, not by the stored
 * keys) reads alone: undefined.
 */
export function sliceKey(plan: RollupPlan): string | undefined {
  if (plan.keyFrom === 'tenant_id') return undefined;
  return JSON.stringify([plan.siteId, plan.firstDayMs, plan.lastDayMs, plan.traffic, plan.tenants, byDayOf(plan)]);
}

/** A member's branch: its grouping and key conditions (members with equal branches read the same rows). */
function branchOf(plan: RollupPlan): string {
  return JSON.stringify([plan.grouping.dim, plan.grouping.filterDim, plan.dimKeyEq, plan.filterKeyEq, plan.keyFrom, plan.keyIn]);
}
const groupingOf = (plan: RollupPlan) => JSON.stringify([plan.grouping.dim, plan.grouping.filterDim]);

/**
 * Members of one slice (equal sliceKey) in statements: each statement reads a grouping through one
 * branch only, so its rows of a grouping are one branch's; a member whose grouping is taken by
 * another branch goes to the next statement. Lists of member indexes, in order.
 */
export function groupSlice(members: readonly SliceMember[]): number[][] {
  const statements: { branches: Map<string, string>; members: number[] }[] = [];
  members.forEach((m, i) => {
    const g = groupingOf(m.plan);
    const b = branchOf(m.plan);
    let st = statements.find((s) => (s.branches.get(g) ?? b) === b);
    if (!st) statements.push((st = { branches: new Map(), members: [] }));
    st.branches.set(g, b);
    st.members.push(i);
  });
  return statements.map((s) => s.members);
}

/**
 * One statement for members of one slice and pairwise compatible branches (groupSlice). Each
 * member's rows are in the columns of its own partial statement (BUCKET_COL, KEY_COL, SPLIT_COL as
 * its shape has them, then its atoms); rows of one (bucket, key, split) may repeat (the other stored
 * key, or the day of a total, differs): the caller adds them up.
 */
export function compileRollupSlice(members: readonly SliceMember[], d: Dialect, options: SharedOptions = {}): CompiledShared {
  const w = new SqlWriter(d, options.rowFilter);
  const col = (name: string) => w.col('r', name);
  const first = members[0].plan;
  const byDay = byDayOf(first);
  const where = [...rollupScope(w, first), ...rollupTenants(w, first)];
  const branches = new Map<string, string>();
  for (const { plan } of members) {
    const g = groupingOf(plan);
    if (branches.has(g)) continue;
    branches.set(g, `(${[...rollupGrouping(w, plan), ...rollupKeys(w, plan)].join(' AND ')})`);
  }
  where.push(`(${[...branches.values()].join(' OR ')})`, ...w.visible(['rollups', 'r']));

  const atoms = [...new Set(members.flatMap((m) => atomsFor(m.spec.metrics)))];
  const cols: string[] = [];
  const group: string[] = [];
  if (byDay) {
    cols.push(`${d.toInt64(col('day_ms'))} AS ${BUCKET_COL}`);
    group.push(col('day_ms'));
  }
  const stored: [string, string][] = [
    ['dim', DIM_COL],
    ['filter_dim', FILTER_DIM_COL],
    ['dim_key', STORED_KEY_COL.dim_key],
    ['filter_key', STORED_KEY_COL.filter_key],
  ];
  for (const [name, alias] of stored) {
    cols.push(`${col(name)} AS ${alias}`);
    group.push(col(name));
  }
  for (const a of atoms) cols.push(`${d.toInt64(`sum(${col(a)})`)} AS ${a}`);
  const sql = `SELECT ${cols.join(', ')} FROM ${d.quoteIdent(options.table ?? ROLLUP_TABLE)} AS r WHERE ${where.join(' AND ')} GROUP BY ${group.join(', ')}`;

  const split = (rows: readonly Row[]): Row[][] => {
    const byGrouping = new Map<string, Row[]>();
    for (const r of rows) {
      const g = JSON.stringify([r[DIM_COL], r[FILTER_DIM_COL]]);
      const list = byGrouping.get(g);
      if (list) list.push(r);
      else byGrouping.set(g, [r]);
    }
    return members.map(({ spec, plan }) => {
      const own = atomsFor(spec.metrics);
      return (byGrouping.get(groupingOf(plan)) ?? []).map((r) => {
        const out: Row = {};
        if (plan.byDay) out[BUCKET_COL] = r[BUCKET_COL];
        if (plan.keyFrom) out[KEY_COL] = r[STORED_KEY_COL[plan.keyFrom as 'dim_key' | 'filter_key']];
        if (plan.splitFrom) out[SPLIT_COL] = r[STORED_KEY_COL[plan.splitFrom]];
        for (const a of own) out[a] = r[a];
        return out;
      });
    });
  };
  return {
    sql,
    columns: [...(byDay ? [BUCKET_COL] : []), ...stored.map(([, alias]) => alias), ...atoms],
    text: stored.map(([, alias]) => alias),
    split,
  };
}
