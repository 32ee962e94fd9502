// The closed error catalog: code -> HTTP status and public message. Nothing else
// decides an error's status, and the OpenAPI document is generated from this table.

export const ERROR_CATALOG = {
  UNAUTHORIZED: { status: 401, message: 'Missing, invalid or revoked token.' },
  FORBIDDEN: { status: 403, message: 'The token may not access this resource.' },
  NOT_FOUND: { status: 404, message: 'Unknown endpoint.' },
  SITE_NOT_FOUND: { status: 404, message: 'Unknown site.' },
  INVALID_METHOD: { status: 405, message: 'HTTP method not supported on this endpoint.' },
  SITE_INACTIVE: { status: 409, message: 'The site is not active.' },
  REPORT_LOCKED_BY_PROFILE: { status: 409, message: 'This route requires Extended collection.' },
  REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD: {
    status: 409,
    message: 'The requested period predates compatible Extended data.',
  },
  HARD_CAP_REACHED: { status: 402, message: 'The monthly hard cap of metered units is reached.' },
  INVALID_PARAMS: { status: 422, message: 'Invalid query parameters.' },
  RETENTION_EXCEEDED: { status: 422, message: 'The requested range starts before the API retention window.' },
  REPORT_RESPONSE_TOO_LARGE: { status: 422, message: 'The serialized response exceeds the 5 MiB budget.' },
  RATE_LIMITED: { status: 429, message: 'Rate limit exceeded.' },
  INTERNAL_ERROR: { status: 500, message: 'Unexpected backend failure.' },
  ANALYTICS_DB_TIMEOUT: { status: 503, message: 'The analytics query exceeded its timeout.' },
  ANALYTICS_DB_UNAVAILABLE: { status: 503, message: 'The analytics store is temporarily unavailable.' },
  CONTROL_PLANE_UNAVAILABLE: { status: 503, message: 'The control plane (tokens, sites, usage) is temporarily unavailable.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;
export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

/** An error that maps to one catalog entry. `message` overrides the catalog text when more precise. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: Record<string, unknown>;
  constructor(code: ErrorCode, message?: string, details?: Record<string, unknown>) {
    super(message ?? ERROR_CATALOG[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.details = details;
  }
}

export function invalidParams(message: string, details?: Record<string, unknown>): ApiError {
  return new ApiError('INVALID_PARAMS', message, details);
}

/**
 * The one 403 body for a site_id the caller may not read: unknown, another workspace's, outside an
 * allowlist, or not an id at all (a hostname, a slug). It says what site_id is and where the readable
 * ones are listed, the same whether or not such a site exists (docs/product.md §7.3).
 */
export function siteForbidden(): ApiError {
  return new ApiError(
    'FORBIDDEN',
    "The site_id is not a site you may read. site_id is a site's id (site_ and 22 letters and digits), not its hostname; GET /v1/sites lists the sites you may read.",
    { parameter: 'site_id' },
  );
}

/** The same for tenant_id: one body for every tenant the caller may not read. */
export function tenantForbidden(): ApiError {
  return new ApiError(
    'FORBIDDEN',
    "The tenant_id is not a tenant of this site you may read. tenant_id is a tenant's id (ten_ and 22 letters and digits), not its slug; GET /v1/tenants?site_id=… lists the tenants you may read.",
    { parameter: 'tenant_id' },
  );
}

/**
 * Raised at the control plane's driver boundary when its store cannot be reached or refuses connections
 * (src/control/db-errors.ts says which failures); the HTTP layers answer it 503 CONTROL_PLANE_UNAVAILABLE
 * with Retry-After, and a command prints it and exits 1. `code` is what a command's --json error carries.
 */
export class ControlPlaneUnavailableError extends Error {
  readonly code = 'CONTROL_UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ControlPlaneUnavailableError';
  }
}

/** Raised by engine adapters; the HTTP layer maps them to 503 responses. */
export class EngineError extends Error {
  constructor(
    readonly kind: 'timeout' | 'unavailable',
    cause?: unknown,
  ) {
    super(kind === 'timeout' ? 'analytics query timed out' : 'analytics store unavailable', { cause });
    this.name = 'EngineError';
  }
}
