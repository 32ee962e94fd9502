// Counts every answered request by route pattern and status, and its duration, through the metrics
// port. Registered only when metrics are kept: without a listener the request path pays nothing.
import type { FastifyInstance } from 'fastify';
import type { Metrics, RouteMetrics } from '../../ports/metrics.js';

/** A request no route matched (404, or 405 on a known path under another method). */
export const UNMATCHED_ROUTE = 'unmatched';

export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  // One handle per route pattern, never per URL: a client cannot grow the label set.
  const byRoute = new Map<string, RouteMetrics>();
  const unmatched = metrics.route(UNMATCHED_ROUTE);
  app.addHook('onRoute', (route) => {
    if (typeof route.url === 'string' && !byRoute.has(route.url)) byRoute.set(route.url, metrics.route(route.url));
  });
  app.addHook('onResponse', (request, reply, done) => {
    const url = request.is404 ? undefined : request.routeOptions.url;
    const handle = (url !== undefined && byRoute.get(url)) || unmatched;
    handle.observe(reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
