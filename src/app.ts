// buildApp(deps): the Fastify app, one registration per way in. Never listens: tests use inject().
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { registerAppApi } from './http/app-api/register-app-api.js';
import { registerCollect } from './http/collect/register-collect.js';
import { registerEmbed } from './http/embed/register-embed.js';
import { registerOpenApi } from './http/openapi/register-openapi.js';
import { registerPages } from './http/pages/register-pages.js';
import { registerReportLinkPages } from './http/pages/report-link-pages.js';
import { loadWebBundle } from './http/pages/web-assets.js';
import type { AnyRoute } from './http/pipeline/define-route.js';
import { registerRequestMetrics } from './http/prometheus/request-metrics.js';
import { registerHealthz } from './http/server/healthz.js';
import { registerServer, serverOptions } from './http/server/register-server.js';
import { RouteMethods } from './http/server/route-methods.js';
import { registerShare } from './http/share/register-share.js';
import { registerV1 } from './http/v1/register-v1.js';
import type { AppDeps } from './services/deps.js';

export interface BuildAppOptions {
  /** pino options or false; defaults to the configured level */
  logger?: FastifyServerOptions['logger'];
  /** extra routes (tests, later features), registered through the same pipeline */
  routes?: readonly AnyRoute[];
}

export async function buildApp(deps: AppDeps, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const routeMethods = new RouteMethods();
  const app = Fastify(serverOptions(deps, options.logger, routeMethods));
  // what sees every route as it is added comes first: the route record, per-route metrics, the document
  await registerServer(app, routeMethods);
  if (deps.metrics) registerRequestMetrics(app, deps.metrics);
  await registerOpenApi(app);
  // the dashboard's files (npm run build:web), read once when a page first asks
  const bundle = () => loadWebBundle();
  registerV1(app, deps, options.routes);
  registerHealthz(app, deps);
  await registerEmbed(app, deps, bundle);
  await registerShare(app, deps, bundle);
  await registerReportLinkPages(app, deps);
  await registerAppApi(app, deps);
  await registerCollect(app, deps);
  await registerPages(app, bundle);
  await app.ready();
  return app;
}
