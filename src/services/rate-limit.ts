// The sliding-window limit of each caller (docs/product.md §7.4, §8.10): per token on /v1, per session on
// the dashboard; the authentication strategy names the window.
import { ApiError } from '../domain/errors.js';
import type { RateDecision, RateLimiter } from '../ports/rate-limiter.js';

/** The window a request counts against: `limit` requests per `windowMs` under `key`. */
export interface RateWindow {
  key: string;
  limit: number;
  windowMs: number;
}

export interface RateOutcome {
  decision: RateDecision;
  /** the headers every authenticated response carries */
  headers: Record<string, string>;
}

/**
 * Records the hit when allowed. Returns null without a window (no API plan, or an enterprise policy
 * without a rate): then there is nothing to count and no headers to send.
 * Throws RATE_LIMITED (with its headers attached) when the window is full.
 */
export async function applyRateLimit(limiter: RateLimiter, window: RateWindow | null, nowMs: number): Promise<RateOutcome | null> {
  if (window === null) return null;
  const decision = await limiter.hit(window.key, window.limit, window.windowMs, nowMs);
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
