// The management API's own rate limit, per session: 100 requests in any 5 seconds (the sliding log,
// memory or Redis, and the same 429 as /v1). It is there so that the dashboard's unmetered reads are no
// back door around the read API's metered ones; the dashboard's reads (/app/api/v1/..., one by one or
// in a batch) count against the same window: one budget per session, whichever part of /app/api is asked.
// Five seconds rather than 20 in one: the same average, but a person who opens a second site or changes
// the period twice in a second (a view is some 15 reads) is not refused, while a script reading without
// pause is after 5 seconds (docs/decisions/people.md).
import { rateLimited } from '../../domain/manage-errors.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import type { RateWindow } from '../rate-limit.js';

/** Requests a session may make in any SESSION_RATE_WINDOW_MS. */
export const SESSION_RATE_LIMIT = 100;
export const SESSION_RATE_WINDOW_MS = 5_000;

/** The window of a session: the key both the management routes and the dashboard's reads count under. */
export function sessionRateWindow(sessionIdHash: string): RateWindow {
  return { key: `session:${sessionIdHash}`, limit: SESSION_RATE_LIMIT, windowMs: SESSION_RATE_WINDOW_MS };
}

export async function checkSessionRate(limiter: RateLimiter, sessionIdHash: string, nowMs: number): Promise<void> {
  const w = sessionRateWindow(sessionIdHash);
  const d = await limiter.hit(w.key, w.limit, w.windowMs, nowMs);
  if (!d.allowed) throw rateLimited(Math.max(1, d.resetUnix - Math.floor(nowMs / 1000)));
}
