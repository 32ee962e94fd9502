// GET /v1/usage/current and /v1/usage/history, free of metered units.
import { ApiError } from '../domain/errors.js';
import type { ApiPolicy } from '../domain/plans.js';
import { addMonths, nextPeriodStart, parseDate, periodOf, periodsBetween } from '../domain/periods.js';
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
 * One item per month of [from, to] clipped to the last usage_history_months months (the current
 * month included), oldest first. A month without a ledger row shows zero use under today's terms.
 * Defaults: to = today, from = the first day of the oldest month in the window.
 */
export async function usageHistory(
  ledger: UsageLedger,
  workspaceId: string,
  policy: ApiPolicy,
  now: Date,
  query: { from?: string; to?: string },
): Promise<UsageRecordOut[]> {
  const current = periodOf(now);
  const months = Math.max(1, policy.usage_history_months);
  const oldest = addMonths(current, -(months - 1));
  const from = query.from === undefined ? null : parseDate(query.from);
  const to = query.to === undefined ? null : parseDate(query.to);
  if (query.from !== undefined && !from)
    throw new ApiError('INVALID_PARAMS', `Invalid query parameter from: "${query.from}" is not a date (YYYY-MM-DD).`, { parameter: 'from' });
  if (query.to !== undefined && !to)
    throw new ApiError('INVALID_PARAMS', `Invalid query parameter to: "${query.to}" is not a date (YYYY-MM-DD).`, { parameter: 'to' });
  if (from && to && from > to)
    throw new ApiError('INVALID_PARAMS', 'Invalid query parameters: from is after to.', { parameter: 'from' });

  const first = from && periodOf(from) > oldest ? periodOf(from) : oldest;
  const last = to && periodOf(to) < current ? periodOf(to) : current;
  const periods = periodsBetween(first, last);
  if (periods.length === 0) return [];
  const rows = new Map((await ledger.history(workspaceId, first, last)).map((r) => [r.period, r]));
  const terms = termsOf(policy);
  return periods.map((p) => {
    const r = rows.get(p);
    return r ? record(p, r.units_used, r.units_included, r.hard_cap_units) : record(p, 0, terms.included, terms.hardCap);
  });
}
