// The management API's own rate limit: 20 requests a second per session, so that the dashboard's
// unmetered reads are no back door around the read API's metered ones. Same sliding log (memory or
// Redis) and same 429 as /v1. The dashboard's reads (/app/api/v1/...) count against the same window:
// one budget per session, whichever part of /app/api is asked.
import { rateLimited } from '../../domain/manage-errors.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import type { RateWindow } from '../rate-limit.js';

export const SESSION_RATE_PER_SECOND = 20;
const WINDOW_MS = 1000;

/** The window of a session: the key both the management routes and the dashboard's reads count under. */
export function sessionRateWindow(sessionIdHash: string): RateWindow {
  return { key: `session:${sessionIdHash}`, limit: SESSION_RATE_PER_SECOND, windowMs: WINDOW_MS };
}

export async function checkSessionRate(limiter: RateLimiter, sessionIdHash: string, nowMs: number): Promise<void> {
  const w = sessionRateWindow(sessionIdHash);
  const d = await limiter.hit(w.key, w.limit, w.windowMs, nowMs);
  if (!d.allowed) throw rateLimited(Math.max(1, d.resetUnix - Math.floor(nowMs / 1000)));
}
