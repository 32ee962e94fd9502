// In-process exact sliding log: each key keeps the times of its recorded hits, oldest first.
import type { RateDecision, RateLimiter } from '../ports/rate-limiter.js';

/** Sweep idle keys every this many hits so memory follows the set of active tokens. */
const SWEEP_EVERY = 10_000;

/**
 * Hit times of one key: the live ones are times[head..], oldest first. Expiring moves `head`
 * instead of shifting the array, so a busy token (hundreds of thousands of hits in its window)
 * costs the same per hit as an idle one; the dead prefix is dropped once it is most of the array.
 */
interface SlidingLog {
  times: number[];
  head: number;
}

/** Drop the dead prefix only when it is this long and at least half the array (amortized O(1)). */
const COMPACT_MIN = 1024;

export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, SlidingLog>();
  private hitsSinceSweep = 0;
  private longestWindowMs = 0;

  async hit(key: string, limit: number, windowMs: number, nowMs: number): Promise<RateDecision> {
    if (windowMs > this.longestWindowMs) this.longestWindowMs = windowMs;
    if (++this.hitsSinceSweep >= SWEEP_EVERY) this.sweep(nowMs);

    let log = this.logs.get(key);
    if (log === undefined) log = { times: [], head: 0 };
    const { times } = log;
    // A hit at t counts while now < t + windowMs.
    const expiredBefore = nowMs - windowMs;
    let head = log.head;
    while (head < times.length && times[head] <= expiredBefore) head++;
    if (head === times.length) {
      times.length = 0;
      head = 0;
    } else if (head >= COMPACT_MIN && head * 2 >= times.length) {
      times.splice(0, head);
      head = 0;
    }
    log.head = head;

    const allowed = times.length - head < limit;
    if (allowed) insertSorted(times, head, nowMs);
    const live = times.length - head;
    if (live) this.logs.set(key, log);
    else this.logs.delete(key);

    const resetUnix = live ? Math.ceil((times[head] + windowMs) / 1000) : Math.ceil(nowMs / 1000);
    return { allowed, limit, remaining: allowed ? limit - live : 0, resetUnix };
  }

  async close(): Promise<void> {
    this.logs.clear();
  }

  private sweep(nowMs: number): void {
    this.hitsSinceSweep = 0;
    for (const [key, log] of this.logs) {
      if (log.times.length === log.head || log.times[log.times.length - 1] <= nowMs - this.longestWindowMs) this.logs.delete(key);
    }
  }
}

// Clocks may step back (NTP), so keep the log ordered rather than trusting arrival order.
function insertSorted(times: number[], head: number, t: number): void {
  let i = times.length;
  while (i > head && times[i - 1] > t) i--;
  if (i === times.length) times.push(t);
  else times.splice(i, 0, t);
}

export const memoryRateLimiter = (): RateLimiter => new MemoryRateLimiter() satisfies RateLimiter;
