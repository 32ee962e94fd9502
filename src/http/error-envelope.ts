// Every error leaves as the spec's envelope: {error: {code, message, request_id, details?}}.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, EngineError, ERROR_CATALOG, type ErrorCode } from '../domain/errors.js';
import { RateLimitedError } from '../services/rate-limit.js';

export function envelope(code: ErrorCode, message: string, requestId: string, details?: Record<string, unknown>) {
  return { error: { code, message, request_id: requestId, ...(details ? { details } : {}) } };
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

function toApiError(err: unknown): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err instanceof EngineError) return new ApiError(err.kind === 'timeout' ? 'ANALYTICS_DB_TIMEOUT' : 'ANALYTICS_DB_UNAVAILABLE');
  const fe = err as FastifyError & { validation?: ValidationIssue[] };
  if (Array.isArray(fe?.validation) && fe.validation.length) {
    const issue = fe.validation[0];
    const parameter = parameterOf(issue);
    const what = issue.keyword === 'required' ? 'is required' : (issue.message ?? 'is invalid');
    return new ApiError(
      'INVALID_PARAMS',
      parameter ? `Invalid query parameter ${parameter}: ${what}.` : `Invalid query parameters: ${what}.`,
      parameter ? { parameter } : undefined,
    );
  }
  // Other framework rejections of the request itself (malformed URL, unexpected body ...): the
  // closed catalog has no better code than INVALID_PARAMS for a request the client must fix.
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    if (fe.statusCode === 404) return new ApiError('NOT_FOUND');
    return new ApiError('INVALID_PARAMS', fe.message);
  }
  return null;
}

export function registerErrorEnvelope(app: FastifyInstance, knownPaths: () => ReadonlySet<string>): void {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const api = toApiError(err);
    if (!api) {
      // The cause stays in the log, joined to the request id; the client gets the fixed message.
      request.log.error({ err, request_id: request.id }, 'unhandled error');
      return reply.code(500).send(envelope('INTERNAL_ERROR', ERROR_CATALOG.INTERNAL_ERROR.message, request.id));
    }
    if (api.status >= 500) request.log.warn({ err, request_id: request.id, code: api.code }, 'request failed');
    if (err instanceof RateLimitedError) reply.headers(err.headers);
    return reply.code(api.status).send(envelope(api.code, api.message, request.id, api.details));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    if (knownPaths().has(path)) {
      // Known path, other method (HEAD and OPTIONS included): 405 before any other check.
      return reply
        .code(405)
        .header('Allow', 'GET')
        .send(envelope('INVALID_METHOD', `Method ${request.method} is not supported on ${path}; use GET.`, request.id));
    }
    return reply.code(404).send(envelope('NOT_FOUND', ERROR_CATALOG.NOT_FOUND.message, request.id));
  });
}
