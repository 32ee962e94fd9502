// Every error of the management API leaves in the spec's envelope, {error: {code, message, request_id,
// details?}}, with the management catalog's codes: what a use-case refused (ManageError), what the
// catalog or people store refused (CatalogError), what Fastify refused before a route ran (the body's
// JSON or its media type), an unknown path (404) or method (405, with Allow: every method the path answers).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, ControlPlaneUnavailableError } from '../../domain/errors.js';
import { isManageErrorCode, ManageError, MANAGE_ERROR_CATALOG, type ManageErrorCode } from '../../domain/manage-errors.js';
import { UnstorableTextError } from '../../domain/storable-text.js';
import { CatalogError } from '../../ports/catalog-store.js';
import { RETRY_AFTER_SECONDS } from '../server/error-envelope.js';

/** Store codes that are not the management API's own, and what they answer. */
const CATALOG_CODES: Record<string, ManageErrorCode> = { INVALID: 'INVALID_PARAMS' };

export function toManageError(err: unknown): ManageError | null {
  if (err instanceof ManageError) return err;
  if (err instanceof CatalogError) {
    const code = CATALOG_CODES[err.code] ?? (isManageErrorCode(err.code) ? err.code : 'INVALID_PARAMS');
    return new ManageError(code, err.message, err.details);
  }
  if (err instanceof ApiError && isManageErrorCode(err.code)) return new ManageError(err.code, err.message, err.details);
  if (err instanceof ControlPlaneUnavailableError)
    return new ManageError('CONTROL_PLANE_UNAVAILABLE', undefined, undefined, {
      'Retry-After': String(RETRY_AFTER_SECONDS.CONTROL_PLANE_UNAVAILABLE),
    });
  if (err instanceof UnstorableTextError) return new ManageError('INVALID_PARAMS', err.message);
  const fe = err as FastifyError;
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    if (fe.statusCode === 404) return new ManageError('NOT_FOUND');
    if (fe.statusCode === 413) return new ManageError('INVALID_PARAMS', 'The body is too large.', { field: 'body' });
    if (fe.statusCode === 415) return new ManageError('INVALID_PARAMS', 'Send the body as application/json.', { field: 'body' });
    return new ManageError('INVALID_PARAMS', 'The body is not valid JSON.', { field: 'body' });
  }
  return null;
}

export function manageEnvelope(e: { code: ManageErrorCode; message: string; details?: Record<string, unknown> }, requestId: string) {
  return { error: { code: e.code, message: e.message, request_id: requestId, ...(e.details ? { details: e.details } : {}) } };
}

export function registerAppApiErrors(scope: FastifyInstance): void {
  scope.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const e = toManageError(err);
    if (!e) {
      // The cause stays in the log, joined to the request id; the client gets the fixed message.
      request.log.error({ err, request_id: request.id }, 'unhandled error');
      return reply
        .code(500)
        .send(manageEnvelope({ code: 'INTERNAL_ERROR', message: MANAGE_ERROR_CATALOG.INTERNAL_ERROR.message }, request.id));
    }
    if (e.headers) reply.headers(e.headers);
    if (e.status >= 500) request.log.warn({ err, request_id: request.id, code: e.code }, 'request failed');
    return reply.code(e.status).send(manageEnvelope(e, request.id));
  });
  scope.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    // the one record of the server's routes (server/route-methods.ts), sorted as this API lists them
    const allow = request.server.routeMethods.at(path).sort();
    if (allow.length) {
      return reply
        .code(405)
        .header('Allow', allow.join(', '))
        .send(
          manageEnvelope(
            { code: 'INVALID_METHOD', message: `Method ${request.method} is not supported on ${path}; use ${allow.join(' or ')}.` },
            request.id,
          ),
        );
    }
    return reply.code(404).send(manageEnvelope({ code: 'NOT_FOUND', message: 'Unknown endpoint of the management API.' }, request.id));
  });
}
