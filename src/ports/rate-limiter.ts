// Exact sliding-log rate limiting: at most `limit` recorded hits in any trailing window.

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** slots left after this hit (0 when refused) */
  remaining: number;
  /** Unix second (rounded up) at which the oldest recorded hit leaves the window */
  resetUnix: number;
}

export interface RateLimiter {
  /** Records the hit at nowMs when allowed; a refused hit is not recorded. */
  hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateDecision>;
  close(): Promise<void>;
}
