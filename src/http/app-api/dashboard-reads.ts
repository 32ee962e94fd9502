// The dashboard's reads: the read API's GET routes that name a site (the analytics routes, and the
// site's tenants and goals), served a second time under /app/api with the session strategy. Same
// definitions, parameters, answers and error catalog as /v1 (its error envelope, not the management
// one); not metered; the plan's dashboard policy; one rate window with the management routes. Kept out
// of /openapi.json: the management document describes them as the /v1 operations' twins.
import type { FastifyInstance } from 'fastify';
import type { AnyRoute } from '../pipeline/define-route.js';
import { sendApiError } from '../server/error-envelope.js';
import { analyticsRoutes, platformRoutes } from '../v1/index.js';
import { queryApiRoutes } from '../v2/index.js';
import type { AppApiDeps } from './app-api-deps.js';
import { APP_API_PREFIX } from './app-api-prefix.js';
import { sessionStrategy } from './session-strategy.js';

/**
 * Every read route that names a site: the dashboard's page reads nothing else of /v1 (its frame comes from
 * the management routes), and the query API's two (POST /app/api/api/v2/query and .../funnel: the site's
 * time zone, every filter, properties, funnels).
 */
export const DASHBOARD_READ_ROUTES: readonly AnyRoute[] = [
  ...analyticsRoutes,
  ...platformRoutes.filter((r) => r.site !== undefined),
  ...queryApiRoutes,
];

export async function registerDashboardReads(scope: FastifyInstance, deps: AppApiDeps): Promise<void> {
  const strategy = sessionStrategy(deps);
  await scope.register(async (reads) => {
    reads.setErrorHandler(sendApiError);
    for (const route of DASHBOARD_READ_ROUTES) route.register(reads, deps, { strategy, hidden: true });
  });
}

/** The paths below /app/api the GET twins answer (what a read batch may hold), for the management document. */
export const DASHBOARD_READ_PATHS: readonly string[] = DASHBOARD_READ_ROUTES.filter((r) => r.method !== 'POST').map(
  (r) => APP_API_PREFIX + r.url,
);

/** The POST twins (the query API's), for the management document. */
export const DASHBOARD_QUERY_PATHS: readonly string[] = DASHBOARD_READ_ROUTES.filter((r) => r.method === 'POST').map(
  (r) => APP_API_PREFIX + r.url,
);
