// Reads a RollupPlan's rows: the same result columns, HAVING, ORDER BY and LIMIT as the raw
// compiler (compile-query.ts), so the assemble stage cannot tell the two apart. Values go through
// the Dialect's value hook like every other query.
import { atomsFor, METRIC_DEFS, presenceAtom, type Atom } from '../../../domain/query/metrics.js';
import type { NormalizedSpec } from '../../../domain/query/query-spec.js';
import { BUCKET_COL, KEY_COL, SPLIT_COL, compileQuery, type CompiledQuery, type CompileOptions, type TableNames } from './compile-query.js';
import type { Dialect } from '../dialect.js';
import { planRollup, type RollupPlan } from './rollup-plan.js';
import { ROLLUP_TABLE } from '../rollup-tables.js';
import { SqlWriter, type RowFilter } from './sql-writer.js';

export interface RollupReadOptions {
  /** the rollup table (default ROLLUP_TABLE) */
  table?: string;
  /** rows a store may read (logical table 'rollups') */
  rowFilter?: RowFilter;
  /** grouped atom sums only, without HAVING, ORDER BY or LIMIT (CompileOptions.partial) */
  partial?: boolean;
}

/** A plan's slice on the rollup rows `r`: site, days, traffic and tenant scope (the tenants' list apart). */
export function rollupScope(w: SqlWriter, plan: RollupPlan): string[] {
  const col = (name: string) => w.col('r', name);
  return [
    `${col('site_id')} = ${w.v(plan.siteId)}`,
    `${col('day_ms')} >= ${w.v(plan.firstDayMs)}`,
    `${col('day_ms')} <= ${w.v(plan.lastDayMs)}`,
    `${col('traffic')} = ${w.v(plan.traffic)}`,
    plan.tenants.kind === 'all' ? w.d.isTrue(col('all_tenants')) : `NOT ${w.d.isTrue(col('all_tenants'))}`,
  ];
}

export function rollupTenants(w: SqlWriter, plan: RollupPlan): string[] {
  return plan.tenants.kind === 'tenants' ? [w.inList(w.col('r', 'tenant_id'), plan.tenants.ids)] : [];
}

/**
 * The stored grouping a plan reads, then its key conditions. Plans of one slice differ only in these
 * (compile-rollup-slice.ts reads several in one statement).
 */
export function rollupGrouping(w: SqlWriter, plan: RollupPlan): string[] {
  return [`${w.col('r', 'dim')} = ${w.v(plan.grouping.dim)}`, `${w.col('r', 'filter_dim')} = ${w.v(plan.grouping.filterDim)}`];
}

export function rollupKeys(w: SqlWriter, plan: RollupPlan): string[] {
  const col = (name: string) => w.col('r', name);
  const keys: string[] = [];
  if (plan.dimKeyEq !== undefined) keys.push(w.eq(col('dim_key'), plan.dimKeyEq));
  if (plan.filterKeyEq !== undefined) keys.push(w.eq(col('filter_key'), plan.filterKeyEq));
  if (plan.keyFrom && plan.keyIn) keys.push(w.inList(col(plan.keyFrom), plan.keyIn));
  return keys;
}

/** Compiles a plan the planner made for `spec`. */
export function compileRollupQuery(spec: NormalizedSpec, plan: RollupPlan, d: Dialect, options: RollupReadOptions = {}): CompiledQuery {
  const w = new SqlWriter(d, options.rowFilter);
  const col = (name: string) => w.col('r', name);
  // in this order: binding dialects number the values as they are written
  const scope = rollupScope(w, plan);
  const grouping = rollupGrouping(w, plan);
  const tenants = rollupTenants(w, plan);
  const where = [...scope, ...grouping, ...tenants, ...rollupKeys(w, plan), ...w.visible(['rollups', 'r'])];

  const atoms = atomsFor(spec.metrics);
  const total = (a: Atom) => (d.atomTotal ? d.atomTotal(a) : `sum(${col(a)})`);
  const cols: string[] = [];
  const group: string[] = [];
  if (plan.byDay) {
    cols.push(`${d.toInt64(col('day_ms'))} AS ${BUCKET_COL}`);
    group.push(col('day_ms'));
  }
  if (plan.keyFrom) {
    cols.push(`${col(plan.keyFrom)} AS ${KEY_COL}`);
    group.push(col(plan.keyFrom));
  }
  if (plan.splitFrom) {
    cols.push(`${col(plan.splitFrom)} AS ${SPLIT_COL}`);
    group.push(col(plan.splitFrom));
  }
  for (const a of atoms) cols.push(`${d.toInt64(`sum(${col(a)})`)} AS ${a}`);
  let sql = `SELECT ${cols.join(', ')} FROM ${d.quoteIdent(options.table ?? ROLLUP_TABLE)} AS r WHERE ${where.join(' AND ')}`;
  if (group.length) sql += ` GROUP BY ${group.join(', ')}`;
  const out = { params: w.params, hasBucket: plan.byDay, hasKey: plan.keyFrom !== null, hasSplit: plan.splitFrom !== undefined, atoms };
  if (options.partial) return { sql, ...out };
  if (plan.keyFrom) sql += ` HAVING ${total(presenceAtom(spec.orderBy))} <> 0`;
  const order: string[] = [];
  if (plan.byDay) order.push(`${BUCKET_COL} ASC`);
  if (plan.keyFrom) {
    const def = METRIC_DEFS[spec.orderBy];
    const value =
      def.kind === 'count'
        ? total(def.atom)
        : `(CASE WHEN ${total(def.denominator)} = 0 THEN 0 ELSE ${d.toFloat64(total(def.numerator))} / ${d.toFloat64(total(def.denominator))} END)`;
    order.push(`${value} DESC`, `${KEY_COL} ASC NULLS LAST`);
  }
  if (plan.splitFrom) order.push(`${SPLIT_COL} ASC NULLS LAST`);
  if (order.length) sql += ` ORDER BY ${order.join(', ')}`;
  if (spec.limit !== undefined) sql += ` LIMIT ${w.v(spec.limit)}`;
  return { sql, ...out };
}

/**
 * The engines' compile step: the rollups when `rollups` is on and the planner finds an exact plan,
 * the raw tables otherwise. `rollupTable` names the rollup table (default ROLLUP_TABLE).
 */
export function compileSpec(
  spec: NormalizedSpec,
  dialect: Dialect,
  tables: TableNames,
  options: CompileOptions & { rollups?: boolean; rollupTable?: string } = {},
): CompiledQuery {
  const { rollups, rollupTable, ...rawOptions } = options;
  if (rollups) {
    const decision = planRollup(spec);
    if (decision.use === 'rollup')
      return compileRollupQuery(spec, decision.plan, dialect, {
        table: rollupTable,
        rowFilter: rawOptions.rowFilter,
        partial: rawOptions.partial,
      });
  }
  return compileQuery(spec, dialect, tables, rawOptions);
}
