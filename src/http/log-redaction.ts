// What a request log line may say. Fastify logs the method, URL, host and client address of each
// request, never bodies or headers (so no password, cookie, CSRF token or embed token); the one secret a
// URL can carry is a link's (/app/invite/<secret>, /app/reset/<secret>, /app/sign-in/<secret>, and a
// share link's /share/<slug> with everything under it), which is masked here before the line is written.
import type { FastifyServerOptions } from 'fastify';

const LINK_PATH = /^(\/app\/(?:invite|reset|sign-in)\/|\/share\/)[^/?#]+/;

export function redactUrl(url: string): string {
  return url.replace(LINK_PATH, '$1[redacted]');
}

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  hostname?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

export const requestSerializers = {
  req(req: LoggedRequest) {
    return { method: req.method, url: redactUrl(req.url), host: req.host ?? req.hostname, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
  },
};

/** The logger options with these serializers (a caller's own serializers win). */
export function withRedaction(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return logger;
  const base = typeof logger === 'object' ? logger : {};
  return { ...base, serializers: { ...requestSerializers, ...(base.serializers ?? {}) } };
}
