// The management API's error catalog (/app/api and the commands that share its use-cases): code ->
// HTTP status and public message. Kept apart from the read API's closed catalog (errors.ts), whose
// enumeration is part of the /v1 contract and does not grow with the dashboard.

export const MANAGE_ERROR_CATALOG = {
  UNAUTHORIZED: { status: 401, message: 'Sign in first: there is no session, or it has ended.' },
  INVALID_CREDENTIALS: { status: 401, message: 'Wrong email or password.' },
  INVALID_CODE: {
    status: 401,
    message: 'Wrong code: type the 6-digit code your authenticator app shows now (each is used once), or an unused recovery code.',
  },
  FORBIDDEN: { status: 403, message: 'Your role in this workspace does not allow this.' },
  NOT_FOUND: { status: 404, message: 'Not found.' },
  INVALID_METHOD: { status: 405, message: 'HTTP method not supported on this endpoint.' },
  CONFLICT: { status: 409, message: 'This conflicts with what exists already.' },
  SEAT_LIMIT_REACHED: { status: 409, message: 'Every seat of the plan is in use (members and open invitations).' },
  SITE_LIMIT_REACHED: { status: 409, message: 'Every site the plan includes is in use.' },
  SITE_SCOPE_ALREADY_CLAIMED: { status: 409, message: 'Another site or workspace holds this hostname or domain.' },
  INVALID_PARAMS: { status: 422, message: 'Invalid request.' },
  INVALID_SITE_HOSTNAME: { status: 422, message: 'A hostname, domain scope or hostname pattern is malformed.' },
  SITE_SCOPE_NOT_ALLOWED: { status: 422, message: 'This domain cannot be a domain scope: give a registrable domain.' },
  HOSTNAME_PATTERN_OUT_OF_SCOPE: { status: 422, message: 'A hostname pattern lies outside every domain this workspace has asked for.' },
  SITE_DNS_VERIFICATION_FAILED: {
    status: 422,
    message: 'The TXT record that proves the domain was not found: publish it, then verify again.',
  },
  SITE_DNS_VERIFICATION_UNAVAILABLE: { status: 422, message: 'This domain cannot be proven by DNS.' },
  RATE_LIMITED: { status: 429, message: 'Too many requests: wait, then try again.' },
  INTERNAL_ERROR: { status: 500, message: 'Unexpected backend failure.' },
  CONTROL_PLANE_UNAVAILABLE: {
    status: 503,
    message: 'The store of workspaces, sites and people is temporarily unavailable: retry after Retry-After.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ManageErrorCode = keyof typeof MANAGE_ERROR_CATALOG;
export const MANAGE_ERROR_CODES = Object.keys(MANAGE_ERROR_CATALOG) as ManageErrorCode[];

export class ManageError extends Error {
  readonly status: number;
  constructor(
    readonly code: ManageErrorCode,
    message?: string,
    readonly details?: Record<string, unknown>,
    /** headers the answer carries (Retry-After of a 429) */
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? MANAGE_ERROR_CATALOG[code].message);
    this.name = 'ManageError';
    this.status = MANAGE_ERROR_CATALOG[code].status;
  }
}

export const isManageErrorCode = (code: string): code is ManageErrorCode => Object.hasOwn(MANAGE_ERROR_CATALOG, code);

/** A refusal that names the request field it is about. */
export function invalidField(field: string, message: string): ManageError {
  return new ManageError('INVALID_PARAMS', message, { field });
}

export function rateLimited(retryAfterSeconds: number): ManageError {
  const s = Math.max(1, Math.ceil(retryAfterSeconds));
  return new ManageError(
    'RATE_LIMITED',
    `Too many attempts: try again in ${s} seconds.`,
    { retry_after_seconds: s },
    { 'Retry-After': String(s) },
  );
}
