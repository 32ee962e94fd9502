// What a client should do with each error code (spec "Errors": client action and retry guidance).
// Keyed by the closed catalog, so a new code cannot be added without saying how to handle it; the
// OpenAPI description renders this table and src/client/retry.ts follows the same rules.
import { ERROR_CATALOG, type ErrorCode } from '../../domain/errors.js';

export type RetryRule =
  /** not automatically: the same request fails the same way; fix it, the token, the plan or the period */
  | 'never'
  /** 429: wait until X-RateLimit-Reset (Retry-After gives the same in seconds) */
  | 'after-reset'
  /** 500: retry with exponential backoff */
  | 'backoff'
  /** 503: retry after Retry-After */
  | 'after-retry-after';

export const ERROR_GUIDANCE: Record<ErrorCode, { action: string; retry: RetryRule }> = {
  UNAUTHORIZED: { action: 'Check the token: missing, malformed, unknown or revoked.', retry: 'never' },
  FORBIDDEN: {
    action: 'Check the scope, the site and tenant allowlists and the plan; a tenant-restricted token must pass tenant_id.',
    retry: 'never',
  },
  NOT_FOUND: { action: 'Check the path.', retry: 'never' },
  SITE_NOT_FOUND: {
    action: 'Not sent by this server: an unknown site_id answers 403 FORBIDDEN, like a site the token may not read.',
    retry: 'never',
  },
  INVALID_METHOD: { action: 'Use GET (the Allow header says so).', retry: 'never' },
  SITE_INACTIVE: { action: 'Use an active site.', retry: 'never' },
  REPORT_LOCKED_BY_PROFILE: {
    action: 'Read error.details.availability; use a strict-safe route or a site on the Extended profile.',
    retry: 'never',
  },
  REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD: {
    action: 'Read error.details.availability; ask for a period from compatibleStart on.',
    retry: 'never',
  },
  HARD_CAP_REACHED: { action: 'Check GET /v1/usage/current; wait for the next month (UTC) or raise the plan.', retry: 'never' },
  INVALID_PARAMS: { action: 'Fix the parameter named in error.details.parameter.', retry: 'never' },
  RETENTION_EXCEEDED: { action: 'Start the range at or after error.details.min_allowed_from.', retry: 'never' },
  REPORT_RESPONSE_TOO_LARGE: { action: 'Use include=summary, or a shorter range or a smaller limit.', retry: 'never' },
  RATE_LIMITED: { action: 'Wait until X-RateLimit-Reset (Unix seconds), then retry.', retry: 'after-reset' },
  INTERNAL_ERROR: { action: 'Retry with exponential backoff; quote error.request_id when it persists.', retry: 'backoff' },
  ANALYTICS_DB_TIMEOUT: {
    action: 'Ask again with a shorter range, or later (Retry-After): the same query retried at once would likely time out again.',
    retry: 'never',
  },
  ANALYTICS_DB_UNAVAILABLE: { action: 'Retry after Retry-After.', retry: 'after-retry-after' },
  CONTROL_PLANE_UNAVAILABLE: {
    action: 'Retry after Retry-After: the store of tokens, sites and usage is down or restarting; nothing was charged.',
    retry: 'after-retry-after',
  },
};

/** Codes in catalog order that answer with `status`. */
export function codesForStatus(status: number): ErrorCode[] {
  return (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((c) => ERROR_CATALOG[c].status === status);
}

/** Every status the catalog can answer, ascending. */
export function catalogStatuses(): number[] {
  return [...new Set(Object.values(ERROR_CATALOG).map((e) => e.status))].sort((a, b) => a - b);
}
