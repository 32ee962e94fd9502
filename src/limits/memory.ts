// In-process exact sliding log: each key keeps the times of its recorded hits, oldest first.
import type { RateDecision, RateLimiter } from '../ports/rate-limiter.js';

/** Sweep idle keys every this many hits so memory follows the set of active tokens. */
const SWEEP_EVERY = 10_000;

export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, number[]>();
  private hitsSinceSweep = 0;
  private longestWindowMs = 0;

  async hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateDecision> {
    this.longestWindowMs = Math.max(this.longestWindowMs, windowMs);
    if (++this.hitsSinceSweep >= SWEEP_EVERY) this.sweep(nowMs);

    const log = this.logs.get(key) ?? [];
    // A hit at t counts while now < t + windowMs.
    let expired = 0;
    while (expired < log.length && log[expired] <= nowMs - windowMs) expired++;
    if (expired) log.splice(0, expired);

    const allowed = log.length < limit;
    if (allowed) insertSorted(log, nowMs);
    if (log.length) this.logs.set(key, log);
    else this.logs.delete(key);

    const resetUnix = log.length ? Math.ceil((log[0] + windowMs) / 1000) : Math.ceil(nowMs / 1000);
    return { allowed, limit, remaining: allowed ? limit - log.length : 0, resetUnix };
  }

  async close(): Promise<void> {
    this.logs.clear();
  }

  private sweep(nowMs: number): void {
    this.hitsSinceSweep = 0;
    for (const [key, log] of this.logs) {
      if (log[log.length - 1] <= nowMs - this.longestWindowMs) this.logs.delete(key);
    }
  }
}

// Clocks may step back (NTP), so keep the log ordered rather than trusting arrival order.
function insertSorted(log: number[], t: number): void {
  let i = log.length;
  while (i > 0 && log[i - 1] > t) i--;
  log.splice(i, 0, t);
}

export const memoryRateLimiter = (): RateLimiter => new MemoryRateLimiter() satisfies RateLimiter;
