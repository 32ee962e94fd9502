// Every error leaves as the spec's envelope: {error: {code, message, request_id, details?}}, with
// X-Request-Id, whether a route raised it, no route matched, Fastify refused the URL, or Node could
// not parse the request at all (http/server/client-errors.ts).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ControlPlaneUnavailableError, EngineError, ERROR_CATALOG, type ErrorCode } from '../../domain/errors.js';
import { UnstorableTextError } from '../../domain/storable-text.js';
import { RateLimitedError } from '../../services/rate-limit.js';
import { PATTERN_WORDS } from '../schemas/common.js';
import type { RouteMethods } from './route-methods.js';
import { applySecurityHeaders } from './security-headers.js';

export function envelope(code: ErrorCode, message: string, requestId: string, details?: Record<string, unknown>) {
  return { error: { code, message, request_id: requestId, ...(details ? { details } : {}) } };
}

/** Retry-After of each 503: a store that is down comes back soon; a query that timed out needs a quieter moment. */
export const RETRY_AFTER_SECONDS = { ANALYTICS_DB_UNAVAILABLE: 5, ANALYTICS_DB_TIMEOUT: 30, CONTROL_PLANE_UNAVAILABLE: 5 } as const;

const hasRetryAfter = (code: ErrorCode): code is keyof typeof RETRY_AFTER_SECONDS => Object.hasOwn(RETRY_AFTER_SECONDS, code);

/**
 * A request refused before any route could be chosen (its URL cannot be decoded, it has no Host):
 * it keeps the HTTP status the protocol gives it, with code INVALID_PARAMS.
 */
export class ProtocolError extends Error {
  constructor(
    readonly status: 400 | 408 | 431,
    message: string,
  ) {
    super(message);
    this.name = 'ProtocolError';
  }
}

interface ValidationIssue {
  instancePath?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  message?: string;
}

/** Names the query parameter an ajv issue is about. */
function parameterOf(issue: ValidationIssue): string | undefined {
  if (issue.keyword === 'required' && typeof issue.params?.missingProperty === 'string') return issue.params.missingProperty;
  if (issue.keyword === 'additionalProperties' && typeof issue.params?.additionalProperty === 'string')
    return issue.params.additionalProperty;
  const path = issue.instancePath?.replace(/^\//, '').split('/')[0];
  return path || undefined;
}

function validationError(issue: ValidationIssue): ApiError {
  const parameter = parameterOf(issue);
  // `from must be a date written YYYY-MM-DD, e.g. …`, not the regular expression that checks it
  const words = issue.keyword === 'pattern' && typeof issue.params?.pattern === 'string' ? PATTERN_WORDS[issue.params.pattern] : undefined;
  if (parameter && words) return new ApiError('INVALID_PARAMS', `${parameter} must be ${words}.`, { parameter });
  const allowed = issue.keyword === 'enum' && Array.isArray(issue.params?.allowedValues) ? (issue.params.allowedValues as unknown[]) : null;
  const what =
    issue.keyword === 'required' ? 'is required' : allowed ? `must be one of ${allowed.join(', ')}` : (issue.message ?? 'is invalid');
  return new ApiError(
    'INVALID_PARAMS',
    parameter ? `Invalid query parameter ${parameter}: ${what}.` : `Invalid query parameters: ${what}.`,
    parameter ? { parameter, ...(allowed ? { allowed } : {}) } : undefined,
  );
}

function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof EngineError) return new ApiError(err.kind === 'timeout' ? 'ANALYTICS_DB_TIMEOUT' : 'ANALYTICS_DB_UNAVAILABLE');
  if (err instanceof ControlPlaneUnavailableError) return new ApiError('CONTROL_PLANE_UNAVAILABLE');
  if (err instanceof UnstorableTextError) return new ApiError('INVALID_PARAMS', err.message);
  const fe = err as FastifyError & { validation?: ValidationIssue[] };
  if (Array.isArray(fe?.validation) && fe.validation.length) return validationError(fe.validation[0]);
  // Other framework rejections of a routed request: the closed catalog has no better code than
  // INVALID_PARAMS for a request the client must fix.
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    if (fe.statusCode === 404) return new ApiError('NOT_FOUND');
    return new ApiError('INVALID_PARAMS', fe.message);
  }
  return null;
}

/**
 * The Allow of a known path in the read API's envelope: GET (and HEAD where a route declares it) when it
 * reads, else every method it answers; null for an unknown path.
 */
export function readApiAllow(methods: RouteMethods, path: string): string | null {
  const all = methods.at(path);
  if (all.length === 0) return null;
  const reads = ['GET', 'HEAD'].filter((m) => all.includes(m));
  return (reads.length ? reads : all).join(', ');
}

/** 404 for an unknown path, 405 (with Allow) for a known path under another method. */
function answerUnrouted(request: FastifyRequest, reply: FastifyReply) {
  const path = request.url.split('?')[0];
  const allow = readApiAllow(request.server.routeMethods, path);
  if (allow !== null) {
    return reply
      .code(405)
      .header('Allow', allow)
      .send(
        envelope('INVALID_METHOD', `Method ${request.method} is not supported on ${path}; use ${allow.replace(', ', ' or ')}.`, request.id),
      );
  }
  return reply.code(404).send(envelope('NOT_FOUND', ERROR_CATALOG.NOT_FOUND.message, request.id));
}

/**
 * A routed request's error in the read API's envelope and catalog: also what the read routes answer
 * where they are served under another prefix (the dashboard's twins under /app/api).
 */
export function sendApiError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (err instanceof ProtocolError) return reply.code(err.status).send(envelope('INVALID_PARAMS', err.message, request.id));
  const api = toApiError(err);
  if (!api) {
    // The cause stays in the log, joined to the request id; the client gets the fixed message.
    request.log.error({ err, request_id: request.id }, 'unhandled error');
    return reply.code(500).send(envelope('INTERNAL_ERROR', ERROR_CATALOG.INTERNAL_ERROR.message, request.id));
  }
  if (api.status >= 500) request.log.warn({ err, request_id: request.id, code: api.code }, 'request failed');
  if (err instanceof RateLimitedError) reply.headers(err.headers);
  if (hasRetryAfter(api.code)) reply.header('Retry-After', RETRY_AFTER_SECONDS[api.code]);
  return reply.code(api.status).send(envelope(api.code, api.message, request.id, api.details));
}

export function registerErrorEnvelope(app: FastifyInstance): void {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    // An unrouted request Fastify refused before the not-found handler ran (e.g. QUERY without a
    // Content-Type): still a question of path and method.
    if (request.is404) return answerUnrouted(request, reply);
    return sendApiError(err, request, reply);
  });

  app.setNotFoundHandler((request, reply) => answerUnrouted(request, reply));
}

/** Fastify's frameworkErrors: a URL that cannot be decoded, and the like, before routing (no onSend hook runs). */
export function frameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const message = err.code === 'FST_ERR_BAD_URL' ? 'The URL is malformed (invalid percent-encoding).' : 'The request is malformed.';
  applySecurityHeaders(request, reply);
  reply
    .header('X-Request-Id', request.id)
    .code(400)
    .send(envelope('INVALID_PARAMS', message, request.id));
}
