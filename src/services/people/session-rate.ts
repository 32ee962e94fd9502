// The management API's own rate limit: 20 requests a second per session, so that the dashboard's
// unmetered reads are no back door around the read API's metered ones. Same sliding log (memory or
// Redis) and same 429 as /v1.
import { rateLimited } from '../../domain/manage-errors.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';

export const SESSION_RATE_PER_SECOND = 20;
const WINDOW_MS = 1000;

export async function checkSessionRate(limiter: RateLimiter, sessionIdHash: string, nowMs: number): Promise<void> {
  const d = await limiter.hit(`session:${sessionIdHash}`, SESSION_RATE_PER_SECOND, WINDOW_MS, nowMs);
  if (!d.allowed) throw rateLimited(Math.max(1, d.resetUnix - Math.floor(nowMs / 1000)));
}
