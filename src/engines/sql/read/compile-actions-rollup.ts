// Action rows and totals from the actions rollup (build/actions-build.ts), for reads actions-plan.ts
// found exact: the same result columns (and partial-result merge) as the event scan of
// compile-actions.ts, so decodeActionRows / decodeActionTotals read both.
import { SIMPLE_ACTIONS } from '../../../domain/events.js';
import type { ActionRowsRequest, ActionSelection, ActionTotalsRequest } from '../../../ports/analytics-engine.js';
import { ACTION_IDENTITY, ACTIONS_TABLE } from '../rollup-tables.js';
import type { ActionsPlan } from './actions-plan.js';
import type { Dialect } from '../dialect.js';
import type { CompiledRead } from './read-rows.js';
import { SqlWriter, type RowFilter } from './sql-writer.js';

export interface RollupReadOptions {
  table?: string;
  rowFilter?: RowFilter;
}

const col = (q: SqlWriter, n: string) => q.col('r', n);

/** A plan's scope: site, days, traffic, visibility, tenants (compile-actions-slice.ts shares it among reads). */
export function actionsScope(q: SqlWriter, plan: ActionsPlan): string[] {
  const scope = [
    `${col(q, 'site_id')} = ${q.v(plan.siteId)}`,
    `${col(q, 'day_ms')} >= ${q.v(plan.firstDayMs)}`,
    `${col(q, 'day_ms')} <= ${q.v(plan.lastDayMs)}`,
    `${col(q, 'traffic')} = ${q.v(plan.traffic)}`,
    ...q.visible(['actions', 'r']),
  ];
  if (plan.tenantIds !== null) scope.push(q.inList(col(q, 'tenant_id'), plan.tenantIds));
  return scope;
}

/** Eligibility, per day: 'all' rows on the advanced days, 'simple' elsewhere (depends on the grouping read). */
export function actionsEligibility(q: SqlWriter, plan: ActionsPlan): string[] {
  const day = col(q, 'day_ms');
  const inAll = plan.allDays ? `(${day} >= ${q.v(plan.allDays.firstDayMs)} AND ${day} <= ${q.v(plan.allDays.lastDayMs)})` : null;
  if (plan.grp === 'action') {
    // one variant: the identity says whether the action is simple
    const all = `${col(q, 'eligible')} = ${q.v('all')}`;
    const simple = q.inList(col(q, 'action_name'), SIMPLE_ACTIONS);
    return [all, inAll ? `(${simple} OR ${inAll})` : simple];
  }
  const variant = (v: 'simple' | 'all') => `${col(q, 'eligible')} = ${q.v(v)}`;
  return [inAll ? `((${inAll} AND ${variant('all')}) OR (NOT ${inAll} AND ${variant('simple')}))` : variant('simple')];
}

/** The selection's family and action filters. */
export function actionsFilters(q: SqlWriter, sel: ActionSelection): string[] {
  const filters: string[] = [];
  if (sel.family) filters.push(q.eq(col(q, 'family'), sel.family));
  if (sel.action) for (const c of ACTION_IDENTITY) filters.push(q.eq(col(q, c), sel.action[c]));
  return filters;
}

/** Scope, days, traffic filter, eligibility and the selection's filters. */
function where(q: SqlWriter, plan: ActionsPlan, sel: ActionSelection): string[] {
  return [...actionsScope(q, plan), ...actionsEligibility(q, plan), ...actionsFilters(q, sel)];
}

/** compileActionRows' columns and merge, from the stored grouping the plan names. */
export function compileActionRowsFromRollup(
  d: Dialect,
  req: ActionRowsRequest,
  plan: ActionsPlan,
  options: RollupReadOptions = {},
): CompiledRead {
  const q = new SqlWriter(d, options.rowFilter);
  const cols: string[] = [];
  const keys: string[] = [];
  const text: string[] = [];
  for (const g of req.groupBy) {
    if (g === 'day') {
      cols.push(`${col(q, 'day_ms')} AS o_day`);
      keys.push('o_day');
    } else if (g === 'action') {
      for (const c of ACTION_IDENTITY) {
        cols.push(`${col(q, c)} AS a_${c}`);
        keys.push(`a_${c}`);
        text.push(`a_${c}`);
      }
    } else {
      cols.push(`${col(q, g === 'family' ? 'family' : 'dim_key')} AS o_${g}`);
      keys.push(`o_${g}`);
      text.push(`o_${g}`);
    }
  }
  cols.push(`${q.int64(`sum(${col(q, 'sessions')})`)} AS o_sessions`, `${q.int64(`sum(${col(q, 'occurrences')})`)} AS o_occurrences`);
  const w = [...where(q, plan, req.selection), `${col(q, 'grp')} = ${q.v(plan.grp)}`, `${col(q, 'dim')} = ${q.v(plan.dim)}`];
  let sql = `SELECT ${cols.join(', ')} FROM ${q.table(options.table ?? ACTIONS_TABLE, 'r')} WHERE ${w.join(' AND ')}`;
  if (keys.length) sql += ` GROUP BY ${keys.join(', ')}`;
  return {
    ...q.done(sql),
    columns: [...keys, 'o_sessions', 'o_occurrences'],
    text,
    keys,
    merge: { o_sessions: 'sum', o_occurrences: 'sum' },
  };
}

/**
 * compileActionTotals' columns and merge: meaningful sessions and occurrences from the 'meaningful'
 * rows, error and instrumentation sessions from those families' rows; the 'any' rows add nothing but
 * give a day its row exactly when the scan has one (a day with only other actions: zeros).
 */
export function compileActionTotalsFromRollup(
  d: Dialect,
  req: ActionTotalsRequest,
  plan: ActionsPlan,
  options: RollupReadOptions = {},
): CompiledRead {
  const q = new SqlWriter(d, options.rowFilter);
  const grp = col(q, 'grp');
  const fam = col(q, 'family');
  const sumWhen = (cond: string, value: string) => `${q.int64(q.sumIf(cond, col(q, value)))}`;
  const isFamily = (f: string) => `${grp} = ${q.v('family')} AND ${fam} = ${q.v(f)}`;
  const meaningful = `${grp} = ${q.v('meaningful')}`;
  const cols = [
    `${sumWhen(meaningful, 'sessions')} AS o_meaningful_sessions`,
    `${sumWhen(meaningful, 'occurrences')} AS o_meaningful_occurrences`,
    `${sumWhen(isFamily('errors'), 'sessions')} AS o_error_sessions`,
    `${sumWhen(isFamily('instrumentation'), 'sessions')} AS o_instrumentation_sessions`,
  ];
  if (req.byDay) cols.unshift(`${col(q, 'day_ms')} AS o_day`);
  const w = [
    ...where(q, plan, req.selection),
    `${col(q, 'dim')} = ${q.v('')}`,
    `(${q.inList(grp, ['any', 'meaningful'])} OR (${grp} = ${q.v('family')} AND ${q.inList(fam, ['errors', 'instrumentation'])}))`,
  ];
  let sql = `SELECT ${cols.join(', ')} FROM ${q.table(options.table ?? ACTIONS_TABLE, 'r')} WHERE ${w.join(' AND ')}`;
  if (req.byDay) sql += ' GROUP BY o_day';
  const sums = ['o_meaningful_sessions', 'o_meaningful_occurrences', 'o_error_sessions', 'o_instrumentation_sessions'];
  const keys = req.byDay ? ['o_day'] : [];
  return { ...q.done(sql), columns: [...keys, ...sums], text: [], keys, merge: Object.fromEntries(sums.map((c) => [c, 'sum'])) };
}
