// The per-token sliding-window limit (docs/product.md §7.4, §8.10).
import { RATE_WINDOW_MS, rateLimitPerWindow } from '../domain/access.js';
import { ApiError } from '../domain/errors.js';
import type { RateDecision, RateLimiter } from '../ports/rate-limiter.js';
import type { Caller } from './caller.js';

export interface RateOutcome {
  decision: RateDecision;
  /** the headers every authenticated response carries */
  headers: Record<string, string>;
}

/**
 * Records the hit when allowed. Returns null when the policy sets no rate (no API plan, or an
 * enterprise policy without one): then there is nothing to count and no headers to send.
 * Throws RATE_LIMITED (with its headers attached) when the window is full.
 */
export async function applyRateLimit(limiter: RateLimiter, caller: Caller, nowMs: number): Promise<RateOutcome | null> {
  const limit = rateLimitPerWindow(caller.policy);
  if (limit === null) return null;
  const decision = await limiter.hit(`token:${caller.token.id}`, limit, RATE_WINDOW_MS, nowMs);
  const headers = {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetUnix),
  };
  if (!decision.allowed) {
    const retryAfter = Math.max(1, decision.resetUnix - Math.floor(nowMs / 1000));
    throw new RateLimitedError(retryAfter, { ...headers, 'Retry-After': String(retryAfter) });
  }
  return { decision, headers };
}

export class RateLimitedError extends ApiError {
  constructor(
    readonly retryAfterSeconds: number,
    readonly headers: Record<string, string>,
  ) {
    super('RATE_LIMITED', undefined, { retry_after_seconds: retryAfterSeconds });
  }
}
