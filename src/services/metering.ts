// Metered requests: reserve units before the work, commit on success, release on any failure,
// so used_units never passes the hard cap however many requests race (docs/product.md §7.5).
// Unmetered ones (the dashboard) record nothing and report the month's usage as it stands.
import { ApiError } from '../domain/errors.js';
import type { ApiPolicy } from '../domain/plans.js';
import { nextPeriodStart, periodOf } from '../domain/periods.js';
import { ReservationLostError, type UsageLedger } from '../ports/usage-ledger.js';
import type { Metering } from './caller.js';

export interface MeteringContext {
  ledger: UsageLedger;
  workspaceId: string;
  policy: ApiPolicy;
  /** a request counts in the month it arrived, even when it finishes in the next */
  arrivedAt: Date;
}

/** meta.units_charged, meta.billable_overage and meta.usage of the report envelope. */
export interface MeteredMeta {
  units_charged: number;
  billable_overage: boolean;
  usage: { used_units: number; overage_units: number; included_units: number; hard_cap_units: number };
}

/** A policy without a cap (enterprise override to null) is unbounded; reported as the largest safe integer. */
export const UNCAPPED = Number.MAX_SAFE_INTEGER;

export function termsOf(policy: ApiPolicy): { included: number; hardCap: number } {
  return { included: policy.monthly_included_units ?? 0, hardCap: policy.hard_cap_units ?? UNCAPPED };
}

export function usageMeta(units: number, used: number, terms: { included: number; hardCap: number }): MeteredMeta {
  const overage = Math.max(0, used - terms.included);
  return {
    units_charged: units,
    billable_overage: used > terms.included,
    usage: { used_units: used, overage_units: overage, included_units: terms.included, hard_cap_units: terms.hardCap },
  };
}

/** What the ledger is asked for `units` under the caller's terms, in the month the request arrived. */
function ledgerRequest(ctx: MeteringContext, units: number) {
  if (!Number.isSafeInteger(units) || units < 0) throw new Error(`metered units must be a non-negative integer, got ${units}`);
  const terms = termsOf(ctx.policy);
  return {
    terms,
    request: { workspaceId: ctx.workspaceId, period: periodOf(ctx.arrivedAt), units, included: terms.included, hardCap: terms.hardCap },
  };
}

/**
 * The 402 of a request whose units would pass the cap, with the month's usage as it stands, the cap and
 * when the count starts again (details.used_units, hard_cap_units, requested_units, reset_at).
 */
async function hardCapReached(ctx: MeteringContext, units: number, terms: { hardCap: number }): Promise<ApiError> {
  const used = await ctx.ledger.used(ctx.workspaceId, periodOf(ctx.arrivedAt));
  const resetAt = nextPeriodStart(ctx.arrivedAt).toISOString();
  return new ApiError(
    'HARD_CAP_REACHED',
    `The workspace has used ${used} of its hard cap of ${terms.hardCap} units this month (UTC) and this request needs ${units}; ` +
      `the count starts again at ${resetAt}. GET /v1/usage/current shows the month's usage.`,
    { used_units: used, hard_cap_units: terms.hardCap, requested_units: units, reset_at: resetAt },
  );
}

/**
 * Runs `run` under a reservation of `units`. 402 HARD_CAP_REACHED when the reservation would pass
 * the cap (run is not called). Work that must cost nothing when it fails (the 5 MiB budget check)
 * belongs inside `run`.
 */
export async function withMeteredUnits<T>(
  ctx: MeteringContext,
  units: number,
  run: () => Promise<T>,
): Promise<{ value: T; meta: MeteredMeta }> {
  const { terms, request } = ledgerRequest(ctx, units);
  const reservation = await ctx.ledger.reserve(request);
  if (!reservation) throw await hardCapReached(ctx, units, terms);
  let value: T;
  try {
    value = await run();
  } catch (err) {
    await ctx.ledger.release(reservation);
    throw err;
  }
  let used: number;
  try {
    used = await ctx.ledger.commit(reservation);
  } catch (err) {
    if (!(err instanceof ReservationLostError)) throw err;
    // The run outlived its lease and the units were given back: charge them now, under the cap
    // like any other charge (402 when they no longer fit; the cap holds either way).
    const charged = await ctx.ledger.charge(request);
    if (charged === null) throw await hardCapReached(ctx, units, terms);
    used = charged;
  }
  return { value, meta: usageMeta(units, used, terms) };
}

/**
 * Charges `units` for work that is already done and cannot fail any more (a response-cache hit
 * whose body is known to fit the budget): reserve and commit in one ledger statement. 402
 * HARD_CAP_REACHED when the units would pass the cap (nothing is charged then).
 */
export async function chargeUnits(ctx: MeteringContext, units: number): Promise<MeteredMeta> {
  const { terms, request } = ledgerRequest(ctx, units);
  const used = await ctx.ledger.charge(request);
  if (used === null) throw await hardCapReached(ctx, units, terms);
  return usageMeta(units, used, terms);
}

/** meta of a request that is not metered: 0 units, the month's usage as it stands (one ledger read), nothing recorded. */
export async function unmeteredMeta(ctx: MeteringContext): Promise<MeteredMeta> {
  return usageMeta(0, await ctx.ledger.used(ctx.workspaceId, periodOf(ctx.arrivedAt)), termsOf(ctx.policy));
}

/** How one request pays for its work: what a route's context offers as `meter` and `charge`. */
export interface RequestMeter {
  /** reserve -> run -> commit, or release on any failure (402 when the cap would be passed) */
  meter<T>(units: number, run: () => Promise<T>): Promise<{ value: T; meta: MeteredMeta }>;
  /** reserve and commit at once, for work already done that cannot fail (402 when over the cap) */
  charge(units: number): Promise<MeteredMeta>;
}

/**
 * The ledger's reservations for a metered caller (`charged` hears of each charge that went through);
 * for an unmetered one, the work alone: no reservation, no cap, units_charged 0.
 */
export function requestMeter(ctx: MeteringContext, metering: Metering, charged?: (units: number) => void): RequestMeter {
  if (metering === 'unmetered') {
    return {
      meter: async (_units, run) => {
        const value = await run();
        return { value, meta: await unmeteredMeta(ctx) };
      },
      charge: () => unmeteredMeta(ctx),
    };
  }
  return {
    meter: async (units, run) => {
      const out = await withMeteredUnits(ctx, units, run);
      charged?.(units);
      return out;
    },
    charge: async (units) => {
      const meta = await chargeUnits(ctx, units);
      charged?.(units);
      return meta;
    },
  };
}
