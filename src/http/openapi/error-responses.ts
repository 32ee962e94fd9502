// One response component per error status (#/components/responses/<Name>): the shared ErrorEnvelope
// narrowed to the codes that status can carry (from the error catalog), the headers it comes with,
// and an example per code.
import { ERROR_CATALOG, type ErrorCode } from '../../domain/errors.js';
import { RETRY_AFTER_SECONDS } from '../server/error-envelope.js';
import { catalogStatuses, codesForStatus } from './error-guidance.js';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document, walked and rewritten as plain JSON of any shape
type Json = Record<string, any>;

const NAMES: Record<number, string> = {
  401: 'Unauthorized',
  402: 'HardCapReached',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  422: 'InvalidRequest',
  429: 'RateLimited',
  500: 'InternalError',
  503: 'Unavailable',
};

export function errorResponseName(status: number): string {
  const name = NAMES[status];
  if (!name) throw new Error(`OpenAPI: no response component name for status ${status}`);
  return name;
}

export function errorResponseRef(status: number): Json {
  return { $ref: `#/components/responses/${errorResponseName(status)}` };
}

const header = (description: string, schema: Json, required = false): Json => ({ description, required, schema });

export const REQUEST_ID_HEADER = header(
  'The request id: the valid X-Request-Id the client sent, or one the server made; error.request_id repeats it',
  { type: 'string' },
  true,
);

/** The rate-limit headers; on 429 they are always there, elsewhere whenever the plan sets a rate. */
export function rateLimitHeaders(required: boolean): Json {
  const int = { type: 'integer', minimum: 0 };
  return {
    'X-RateLimit-Limit': header('Requests allowed per token in any 60-second window', int, required),
    'X-RateLimit-Remaining': header('Requests left in the current window', int, required),
    'X-RateLimit-Reset': header('Unix second at which a slot of the window frees', int, required),
  };
}

export const retryAfterHeader = (text: string) => header(text, { type: 'integer', minimum: 1 }, true);

function headersFor(status: number): Json {
  const h: Json = { 'X-Request-Id': REQUEST_ID_HEADER };
  // 401, 404 and 405 are answered before the rate limit; the others after it.
  if (![401, 404, 405].includes(status)) Object.assign(h, rateLimitHeaders(status === 429));
  if (status === 429) h['Retry-After'] = retryAfterHeader('Seconds until X-RateLimit-Reset (at least 1)');
  if (status === 503) h['Retry-After'] = retryAfterHeader('Seconds to wait before asking again');
  if (status === 405) h.Allow = header('The methods the path answers', { type: 'string', enum: ['GET', 'GET, HEAD'] }, true);
  return h;
}

const EXAMPLE_AVAILABILITY = {
  route: 'goals',
  classification: 'extended_only',
  currentProfile: 'strict',
  collectionProfileEffectiveAt: null,
  current: {
    status: 'locked_by_profile',
    reason: 'extended_data_required',
    requestedStart: '2025-06-09T00:00:00.000Z',
    requestedEnd: '2025-06-15T23:59:59.999Z',
    compatibleStart: null,
    compatibleEnd: null,
  },
  compare: null,
  sections: [],
};

const EXAMPLE_DETAILS: Partial<Record<ErrorCode, Json>> = {
  INVALID_PARAMS: { parameter: 'limit' },
  RETENTION_EXCEEDED: { min_allowed_from: '2023-06-16' },
  REPORT_RESPONSE_TOO_LARGE: { include: 'full', range_days: 90, measured_bytes: 6_120_448, max_bytes: 5_242_880 },
  RATE_LIMITED: { retry_after_seconds: 12 },
  REPORT_LOCKED_BY_PROFILE: {
    route: 'goals',
    classification: 'extended_only',
    currentProfile: 'strict',
    availability: EXAMPLE_AVAILABILITY,
  },
  REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD: {
    route: 'goals',
    classification: 'extended_only',
    currentProfile: 'extended',
    availability: {
      ...EXAMPLE_AVAILABILITY,
      currentProfile: 'extended',
      collectionProfileEffectiveAt: '2025-06-20T00:00:00.000Z',
      current: {
        ...EXAMPLE_AVAILABILITY.current,
        status: 'not_available_for_requested_period',
        reason: 'requested_period_has_no_extended_data',
      },
    },
  },
};

function errorExample(code: ErrorCode): Json {
  const details = EXAMPLE_DETAILS[code];
  return {
    summary: code,
    value: {
      error: {
        code,
        message: ERROR_CATALOG[code].message,
        request_id: 'req_5b0f8c2e-2d7a-4f51-9c1e-6f0d3a9b7e41',
        ...(details ? { details } : {}),
      },
    },
  };
}

function errorResponse(status: number): Json {
  const codes = codesForStatus(status);
  const retry =
    status === 503
      ? ` Retry-After: ${RETRY_AFTER_SECONDS.ANALYTICS_DB_UNAVAILABLE} s when a store is unavailable, ${RETRY_AFTER_SECONDS.ANALYTICS_DB_TIMEOUT} s after a timeout.`
      : '';
  return {
    description: `${codes.join(' or ')}.${retry}`,
    headers: headersFor(status),
    content: {
      'application/json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/ErrorEnvelope' },
            {
              type: 'object',
              required: ['error'],
              // message, request_id and details are the envelope's; named here only so that this
              // narrowing evaluates them too (examples are checked with unevaluatedProperties).
              properties: {
                error: {
                  type: 'object',
                  required: ['code'],
                  properties: { code: { type: 'string', enum: codes }, message: {}, request_id: {}, details: {} },
                },
              },
            },
          ],
        },
        examples: Object.fromEntries(codes.map((c) => [c, errorExample(c)])),
      },
    },
  };
}

/** #/components/responses: one entry per status of the catalog. */
export function errorResponseComponents(): Json {
  return Object.fromEntries(catalogStatuses().map((s) => [errorResponseName(s), errorResponse(s)]));
}
