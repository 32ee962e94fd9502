// The usage ledger: metered units per workspace and UTC month, with a hard cap
// that is never exceeded however many requests race, and reservations that cannot outlive their
// request (leases).

export interface UsageRecord {
  /** YYYY-MM */
  period: string;
  units_used: number;
  units_included: number;
  hard_cap_units: number;
}

/**
 * Reserved units, held under a lease: the reservation belongs to the live request that took it. A
 * lease its owner did not settle (the process died) is reclaimed once it expires, or at once when
 * the store can tell its owner is dead (same host, process gone).
 */
export interface Reservation {
  /** the lease's id */
  id: string;
  workspaceId: string;
  period: string;
  units: number;
}

/** commit() of a reservation the ledger no longer holds: already settled, reclaimed after its lease expired, or never taken. */
export class ReservationLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReservationLostError';
  }
}

export interface UsageLedger {
  /**
   * Atomically reserves `units` in the period when used + reserved + units <= hardCap.
   * Records `included` and `hardCap` on the period row (so history shows the terms of each month).
   * Returns null when the cap would be passed (nothing is recorded then).
   */
  reserve(input: { workspaceId: string; period: string; units: number; included: number; hardCap: number }): Promise<Reservation | null>;
  /**
   * Reserve and commit in one atomic step, for work that is already done and cannot fail (a
   * response-cache hit): adds `units` to used when used + reserved + units <= hardCap, records the
   * terms like reserve, and returns the period's used units after it; null when the cap would be
   * passed (nothing recorded).
   */
  charge(input: { workspaceId: string; period: string; units: number; included: number; hardCap: number }): Promise<number | null>;
  /**
   * Turns a reservation into used units; returns the period's used units after it. Throws
   * ReservationLostError when the lease is no longer held.
   */
  commit(r: Reservation): Promise<number>;
  /** Gives a reservation back (nothing happens when its lease is no longer held). */
  release(r: Reservation): Promise<void>;
  /** Periods in [fromPeriod, toPeriod] that have a row, oldest first. */
  history(workspaceId: string, fromPeriod: string, toPeriod: string): Promise<UsageRecord[]>;
  /** Used units of one period (0 when no row). */
  used(workspaceId: string, period: string): Promise<number>;
}
