// The edges of the server, under every way in: the Fastify options (logger with secrets masked, request
// ids, no HEAD twins, the client address, framework and client errors in the envelope), the record of
// every route's methods behind all 404s and 405s, the Host check, X-Request-Id and bodiless HEAD answers,
// the security headers of authenticated answers, the read API's error envelope (the management API
// answers its own) and compression. /healthz (healthz.ts) is registered after the document, which lists it.
import type { Server } from 'node:http';
import type { FastifyHttpOptions, FastifyInstance, FastifyServerOptions } from 'fastify';
import type { AppDeps } from '../../services/deps.js';
import { trustProxyOption } from './client-address.js';
import { clientErrorHandler, refuseConnect } from './client-errors.js';
import { registerCompression } from './compression.js';
import { frameworkError, ProtocolError, registerErrorEnvelope } from './error-envelope.js';
import { withRedaction } from './log-redaction.js';
import { requestIdFor } from './request-id.js';
import { recordRouteMethods, type RouteMethods } from './route-methods.js';
import { registerSecurityHeaders } from './security-headers.js';

export function serverOptions(
  deps: AppDeps,
  logger: FastifyServerOptions['logger'] | undefined,
  routeMethods: RouteMethods,
): FastifyHttpOptions<Server> {
  return {
    // silent: no logger at all, rather than a pino child per request that writes nothing
    logger: withRedaction(logger ?? (deps.config.logLevel === 'silent' ? false : { level: deps.config.logLevel })),
    // HEAD is answered 405 like any method other than GET, except where a route declares it (/healthz).
    exposeHeadRoutes: false,
    requestIdHeader: false,
    genReqId: requestIdFor,
    return503OnClosing: false,
    // the client address of collected events and of the guess throttle (request.ip). A hop count is
    // what Fastify does with a number (its types only list the function form).
    trustProxy: trustProxyOption(deps.config.trustProxy),
    // Node would answer a missing Host with a bare 400; the hook below answers it in the envelope.
    http: { requireHostHeader: false },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientErrorHandler(routeMethods),
  };
}

export async function registerServer(app: FastifyInstance, routeMethods: RouteMethods): Promise<void> {
  app.server.on('connect', refuseConnect);
  recordRouteMethods(app, routeMethods);
  app.addHook('onRequest', (request, _reply, done) => {
    const raw = request.raw;
    if (raw.headers.host === undefined && raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1)
      return done(new ProtocolError(400, 'An HTTP/1.1 request needs a Host header.'));
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('X-Request-Id', request.id);
    // A HEAD answer carries no body whatever answered it (an error, a 405, a route with a HEAD of its own),
    // its Content-Length saying what GET would send: Fastify does so only for the HEAD routes it adds.
    if (request.method === 'HEAD' && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
      reply.header('content-length', String(Buffer.byteLength(payload)));
      return done(null, null);
    }
    done(null, payload);
  });
  registerSecurityHeaders(app);
  registerErrorEnvelope(app);
  await registerCompression(app);
}
