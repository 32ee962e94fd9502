// The /v1 routes buildApp registers: the platform's and the analytics routes (metered, report envelope).
import type { AnyRoute } from '../pipeline/define-route.js';
import { goalsRoute } from './goals.js';
import { goalsConversionsRoute } from './goals-conversions.js';
import { meRoute } from './me.js';
import { metricsBreakdownRoute } from './metrics-breakdown.js';
import { metricsTimeseriesRoute } from './metrics-timeseries.js';
import { sitesRoute } from './sites.js';
import { reportsAcquisitionRoute } from './reports-acquisition.js';
import { reportsActionsRoute } from './reports-actions.js';
import { reportsContentRoute } from './reports-content.js';
import { reportsOverviewRoute } from './reports-overview.js';
import { tenantsRoute } from './tenants.js';
import { usageCurrentRoute } from './usage-current.js';
import { usageHistoryRoute } from './usage-history.js';
import { queryApiRoutes } from '../v2/index.js';

export const platformRoutes: readonly AnyRoute[] = [meRoute, sitesRoute, tenantsRoute, goalsRoute, usageCurrentRoute, usageHistoryRoute];

/** Routes answering the common report envelope through services/analytics/serve-analytics.ts. */
export const analyticsRoutes: readonly AnyRoute[] = [
  metricsTimeseriesRoute,
  metricsBreakdownRoute,
  reportsOverviewRoute,
  reportsAcquisitionRoute,
  reportsActionsRoute,
  reportsContentRoute,
  goalsConversionsRoute,
];

/** The read routes an embed token may make (RouteDefinition.embed): what embeds and share links read, and batch (the query API's too). */
export const embedReadRoutes: readonly AnyRoute[] = [...platformRoutes, ...analyticsRoutes, ...queryApiRoutes].filter(
  (r) => r.embed !== undefined,
);
