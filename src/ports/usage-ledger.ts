// The usage ledger: metered units per workspace and UTC month, with a hard cap
// that is never exceeded however many requests race.

export interface UsageRecord {
  /** YYYY-MM */
  period: string;
  units_used: number;
  units_included: number;
  hard_cap_units: number;
}

export interface Reservation {
  workspaceId: string;
  period: string;
  units: number;
}

export interface UsageLedger {
  /**
   * Atomically reserves `units` in the period when used + reserved + units <= hardCap.
   * Records `included` and `hardCap` on the period row (so history shows the terms of each month).
   * Returns null when the cap would be passed (nothing is recorded then).
   */
  reserve(input: {
    workspaceId: string;
    period: string;
    units: number;
    included: number;
    hardCap: number;
  }): Promise<Reservation | null>;
  /**
   * Reserve and commit in one atomic step, for work that is already done and cannot fail (a
   * response-cache hit): adds `units` to used when used + reserved + units <= hardCap, records the
   * terms like reserve, and returns the period's used units after it; null when the cap would be
   * passed (nothing recorded).
   */
  charge(input: { workspaceId: string; period: string; units: number; included: number; hardCap: number }): Promise<number | null>;
  /** Turns a reservation into used units; returns the period's used units after it. */
  commit(r: Reservation): Promise<number>;
  /** Gives a reservation back. */
  release(r: Reservation): Promise<void>;
  /** Periods in [fromPeriod, toPeriod] that have a row, oldest first. */
  history(workspaceId: string, fromPeriod: string, toPeriod: string): Promise<UsageRecord[]>;
  /** Used units of one period (0 when no row). */
  used(workspaceId: string, period: string): Promise<number>;
}
