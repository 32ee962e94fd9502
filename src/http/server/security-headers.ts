// Answers that carry a caller's data or a secret (a new token's, a session's CSRF token, a report) go
// into no cache, a browser's disk or a shared proxy, and are never sniffed into another media type:
// every answer under /v1, /app/api, /embed/api and a share link's /share/<slug>/api, errors included,
// gets `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`. Decided here only, by path, so a
// route added under those prefixes needs nothing of its own. The pages (`/app/...`, `/embed`,
// `/share/<slug>`: no-cache), their hashed files (`/app/assets/`: immutable), the tracker script and
// collection keep what they send.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodeLeniently } from './decode-leniently.js';

const AUTHENTICATED = /^(?:\/v1|\/app\/api|\/embed\/api|\/share\/[^/]+\/api)(?:\/|$)/;

/**
 * The route's pattern when one answered, and the path as the router decodes it in any case: either
 * under a prefix is enough (`/%761/me` is /v1/me; an unrouted path has no pattern).
 */
function underAuthenticatedPrefix(request: FastifyRequest): boolean {
  const pattern = request.routeOptions.url;
  if (pattern !== undefined && AUTHENTICATED.test(pattern)) return true;
  return AUTHENTICATED.test(decodeLeniently(request.url.split(/[?#]/, 1)[0]));
}

/** Sets the two headers when the request is under an authenticated prefix; also called where hooks do not run (Fastify's frameworkErrors). */
export function applySecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  if (underAuthenticatedPrefix(request)) reply.header('Cache-Control', 'no-store').header('X-Content-Type-Options', 'nosniff');
}

export function registerSecurityHeaders(app: FastifyInstance): void {
  // onSend: after the handler, the error handler or a 404/405, and before a stream's headers leave
  app.addHook('onSend', (request, reply, payload, done) => {
    applySecurityHeaders(request, reply);
    done(null, payload);
  });
}
