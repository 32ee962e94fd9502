// GET /v1/usage/current and /v1/usage/history, free of metered units.
import { ApiError } from '../domain/errors.js';
import { apiPolicyFor, type ApiPolicy } from '../domain/plans.js';
import { addMonths, nextPeriodStart, parseDate, periodOf, periodsBetween } from '../domain/periods.js';
import { DATE_FORMAT_HINT } from '../domain/report-range.js';
import type { CatalogStore, PlanChange, Workspace } from '../ports/catalog-store.js';
import type { UsageLedger } from '../ports/usage-ledger.js';
import { termsOf } from './metering.js';

export interface UsageRecordOut {
  period: string;
  units_used: number;
  units_included: number;
  units_overage: number;
  hard_cap_units: number;
}

function record(period: string, used: number, included: number, hardCap: number): UsageRecordOut {
  return { period, units_used: used, units_included: included, units_overage: Math.max(0, used - included), hard_cap_units: hardCap };
}

export async function currentUsage(ledger: UsageLedger, workspaceId: string, policy: ApiPolicy, now: Date) {
  const period = periodOf(now);
  const terms = termsOf(policy);
  const used = await ledger.used(workspaceId, period);
  return { ...record(period, used, terms.included, terms.hardCap), reset_at: nextPeriodStart(now).toISOString() };
}

/**
 * One item per month of [from, to] clipped to the last usage_history_months months (the current month
 * included) and to the months since the workspace was created, oldest first. A month without a ledger
 * row shows zero use under the allowance of the plan in force at its end (now, for the current month),
 * from the workspace's plan history; before the history's first entry, the plan it starts with.
 * Defaults: to = today, from = the first day of the oldest month in the window.
 */
export async function usageHistory(
  deps: { ledger: UsageLedger; catalog: Pick<CatalogStore, 'planHistory'> },
  workspace: Pick<Workspace, 'id' | 'createdAt' | 'plan' | 'apiPolicy'>,
  policy: ApiPolicy,
  now: Date,
  query: { from?: string; to?: string },
): Promise<UsageRecordOut[]> {
  const current = periodOf(now);
  const months = Math.max(1, policy.usage_history_months);
  const window = addMonths(current, -(months - 1));
  const created = periodOf(new Date(workspace.createdAt));
  const oldest = created > window ? created : window;
  const from = query.from === undefined ? null : parseDate(query.from);
  const to = query.to === undefined ? null : parseDate(query.to);
  if (query.from !== undefined && !from)
    throw new ApiError('INVALID_PARAMS', `from must be ${DATE_FORMAT_HINT}; "${query.from}" is not a day of the calendar.`, {
      parameter: 'from',
    });
  if (query.to !== undefined && !to)
    throw new ApiError('INVALID_PARAMS', `to must be ${DATE_FORMAT_HINT}; "${query.to}" is not a day of the calendar.`, {
      parameter: 'to',
    });
  if (from && to && from > to) throw new ApiError('INVALID_PARAMS', 'Invalid query parameters: from is after to.', { parameter: 'from' });

  const first = from && periodOf(from) > oldest ? periodOf(from) : oldest;
  const last = to && periodOf(to) < current ? periodOf(to) : current;
  const periods = periodsBetween(first, last);
  if (periods.length === 0) return [];
  const [ledgerRows, plans] = await Promise.all([deps.ledger.history(workspace.id, first, last), deps.catalog.planHistory(workspace.id)]);
  const rows = new Map(ledgerRows.map((r) => [r.period, r]));
  return periods.map((p) => {
    const r = rows.get(p);
    if (r) return record(p, r.units_used, r.units_included, r.hard_cap_units);
    const terms = p === current ? termsOf(policy) : termsOf(planAt(plans, workspace, nextPeriodStart(parsePeriodStart(p)).getTime() - 1));
    return record(p, 0, terms.included, terms.hardCap);
  });
}

/** The api policy in force at an instant: the last change at or before it, else the first one known, else the workspace's own. */
function planAt(plans: PlanChange[], workspace: Pick<Workspace, 'plan' | 'apiPolicy'>, atMs: number): ApiPolicy {
  let found: PlanChange | undefined = plans[0];
  for (const change of plans) if (Date.parse(change.effectiveAt) <= atMs) found = change;
  return found ? apiPolicyFor(found.plan, found.apiPolicy) : apiPolicyFor(workspace.plan, workspace.apiPolicy);
}

/** The first instant of a YYYY-MM month. */
function parsePeriodStart(period: string): Date {
  return parseDate(`${period}-01`)!;
}
