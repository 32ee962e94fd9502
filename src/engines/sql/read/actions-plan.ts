// The actions-rollup planner: decides, per action read, whether the actions rollup
// (build/actions-build.ts) answers it EXACTLY and which stored rows it reads; otherwise the read scans the
// events (compile-actions.ts). Pure (no SQL, no I/O), tested alone like rollup-plan.ts.
//
// Eligibility (docs/product.md §4.9): simple actions count over the whole window, the others only
// inside `advanced`. Per day that is one of the two stored variants ('simple' outside the advanced
// days, 'all' inside), so `advanced` must cover whole UTC days of the window; else the scan answers.
import { trafficFilterOf, type TrafficFilter } from '../../../domain/events.js';
import type { ActionGroupKey, ActionSelection } from '../../../ports/analytics-engine.js';
import { DAY_MS } from '../../../domain/report-range.js';
import { ACTION_DIMS, type ActionDim, type ActionLevel } from '../rollup-tables.js';

export interface ActionsPlan {
  siteId: string;
  /** first and last day start (ms) of the window, inclusive */
  firstDayMs: number;
  lastDayMs: number;
  traffic: TrafficFilter;
  /** null: every tenant's rows; a list: those tenants' rows (summed: sessions belong to one tenant) */
  tenantIds: readonly string[] | null;
  /** the days (inclusive day starts) where every action counts, or null: simple actions only, every day */
  allDays: { firstDayMs: number; lastDayMs: number } | null;
  /** the stored grouping read (totals: see compileActionTotalsFromRollup) */
  grp: ActionLevel;
  dim: ActionDim | '';
}

export type ActionsDecision = { use: 'rollup'; plan: ActionsPlan } | { use: 'scan'; reason: string };

const scan = (reason: string): ActionsDecision => ({ use: 'scan', reason });

/**
 * `groupBy` of an actionRows read, or 'totals' for actionTotals (read from the 'meaningful', 'family'
 * and 'any' rows without a dimension). Scans for: a window that is not whole UTC days, an advanced
 * window whose part inside the window is not whole days, a traffic set that is not one of the five
 * filters, two dimensions at once (not stored together), and totals narrowed to a family or action.
 */
export function planActions(sel: ActionSelection, groupBy: readonly ActionGroupKey[] | 'totals'): ActionsDecision {
  const { startMs, endMs } = sel.window;
  if (startMs % DAY_MS !== 0 || (endMs + 1) % DAY_MS !== 0 || endMs < startMs) return scan('window is not whole UTC days');
  const traffic = trafficFilterOf(sel.scope.trafficClasses);
  if (traffic === null) return scan('traffic classes are not one of the traffic filters');

  let allDays: ActionsPlan['allDays'] = null;
  if (sel.advanced) {
    const from = Math.max(sel.advanced.startMs, startMs);
    const to = Math.min(sel.advanced.endMs, endMs);
    if (from <= to) {
      if (from % DAY_MS !== 0 || (to + 1) % DAY_MS !== 0) return scan('advanced window is not whole UTC days');
      allDays = { firstDayMs: from, lastDayMs: to + 1 - DAY_MS };
    }
  }

  let grp: ActionLevel;
  let dim: ActionDim | '' = '';
  if (groupBy === 'totals') {
    if (sel.family || sel.action) return scan('totals of one family or action are not stored');
    grp = 'any';
  } else {
    const dims = ACTION_DIMS.filter((k) => groupBy.includes(k));
    if (dims.length > 1) return scan(`${dims.join('+')} are not stored together`);
    dim = dims[0] ?? '';
    // the action key (grouped or filtered) needs the identity rows; the family (grouped or
    // filtered) the family rows, or the identity rows (their family is a column of them)
    grp = groupBy.includes('action') || sel.action ? 'action' : groupBy.includes('family') || sel.family ? 'family' : 'any';
  }
  return {
    use: 'rollup',
    plan: {
      siteId: sel.scope.siteId,
      firstDayMs: startMs,
      lastDayMs: endMs + 1 - DAY_MS,
      traffic,
      tenantIds: sel.scope.tenantIds,
      allDays,
      grp,
      dim,
    },
  };
}
