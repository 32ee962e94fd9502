// buildApp(deps): the Fastify app with every route and hook. Never listens: tests use inject().
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { clientErrorHandler, refuseConnect } from './http/server/client-errors.js';
import { registerCompression } from './http/server/compression.js';
import { registerDocsPage } from './http/pages/docs-page.js';
import { registerAppPages } from './http/pages/app-pages.js';
import { registerEmbedPage } from './http/embed/embed-page.js';
import { registerSharePage } from './http/share/share-page.js';
import { registerShareApi } from './http/share/share-api.js';
import { EMBED_READ_BATCH_URL, registerReadBatch } from './http/pipeline/read-batch-route.js';
import { embedStrategy } from './http/pipeline/auth-strategy.js';
import { frameworkError, ProtocolError, registerErrorEnvelope } from './http/server/error-envelope.js';
import { registerOpenApi, registerOpenApiRoute } from './http/openapi/register-openapi.js';
import { requestIdFor } from './http/server/request-id.js';
import { registerSecurityHeaders } from './http/server/security-headers.js';
import { loadWebBundle, registerWebAssets } from './http/pages/web-assets.js';
import type { AnyRoute } from './http/pipeline/define-route.js';
import { registerRequestMetrics } from './http/prometheus/request-metrics.js';
import { registerHealthz } from './http/server/healthz.js';
import { registerCollectEvent } from './http/collect/collect-event.js';
import { answerFirst } from './http/collect/collect-fast-path.js';
import { trustProxyOption } from './http/collect/client-address.js';
import { registerTrackerScript } from './http/collect/tracker-script.js';
import { analyticsRoutes, embedReadRoutes, platformRoutes } from './http/v1/index.js';
import { registerAppApi } from './http/app-api/register-app-api.js';
import { withRedaction } from './http/server/log-redaction.js';
import type { AppDeps } from './services/deps.js';

export interface BuildAppOptions {
  /** pino options or false; defaults to the configured level */
  logger?: FastifyServerOptions['logger'];
  /** extra routes (tests, later features), registered through the same pipeline */
  routes?: readonly AnyRoute[];
}

export async function buildApp(deps: AppDeps, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  // path -> the methods its routes answer, for 405 and Allow (filled as routes are added)
  const knownPaths = new Map<string, string>();
  const app = Fastify({
    // silent: no logger at all, rather than a pino child per request that writes nothing
    logger: withRedaction(options.logger ?? (deps.config.logLevel === 'silent' ? false : { level: deps.config.logLevel })),
    // HEAD is answered 405 like any method other than GET, except where a route declares it (/healthz).
    exposeHeadRoutes: false,
    requestIdHeader: false,
    genReqId: requestIdFor,
    return503OnClosing: false,
    // the client address of collected events (request.ip); nothing else reads it. A hop count is
    // what Fastify does with a number (its types only list the function form).
    trustProxy: trustProxyOption(deps.config.trustProxy),
    // Node would answer a missing Host with a bare 400; the hook below answers it in the envelope.
    http: { requireHostHeader: false },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientErrorHandler(knownPaths),
  });
  app.server.on('connect', refuseConnect);

  if (deps.metrics) registerRequestMetrics(app, deps.metrics);
  const methods = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    if (typeof route.url !== 'string') return;
    const set = methods.get(route.url) ?? new Set<string>();
    for (const m of [route.method].flat()) set.add(m);
    methods.set(route.url, set);
    knownPaths.set(route.url, ['GET', 'HEAD'].filter((m) => set.has(m)).join(', ') || [...set].join(', '));
  });
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
  registerErrorEnvelope(app, knownPaths);
  await registerCompression(app);

  await registerOpenApi(app);
  for (const route of [...platformRoutes, ...analyticsRoutes, ...(options.routes ?? [])]) route.register(app, deps);
  registerReadBatch(app, deps, {
    url: EMBED_READ_BATCH_URL,
    strategy: embedStrategy,
    routes: embedReadRoutes,
    target: () => ({ prefix: '', credential: 'authorization' }),
  });
  registerHealthz(app, deps);
  await registerAppApi(app, deps);
  await registerShareApi(app, deps, embedReadRoutes);
  if (deps.collector) {
    // the route's requests are answered before Fastify routes them (http/collect/collect-fast-path.ts)
    answerFirst(app.server, await registerCollectEvent(app, { ...deps, collector: deps.collector }));
    registerTrackerScript(app);
  }
  registerOpenApiRoute(app);
  await registerDocsPage(app);
  // the browser half: its files (built by npm run build:web) and the pages that load them
  registerWebAssets(app, () => loadWebBundle());
  registerAppPages(app, () => loadWebBundle());
  registerEmbedPage(app, deps, () => loadWebBundle());
  await registerSharePage(app, deps, () => loadWebBundle());
  await app.ready();
  return app;
}
