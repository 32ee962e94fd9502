// The query API's routes (POST /api/v2/query and /api/v2/funnel, and GET /api/v2/funnels, the site's
// saved funnels): registered beside /v1, twinned under /app/api for the dashboard and under a share
// link's prefix, and members of every read batch.
import type { AnyRoute } from '../pipeline/define-route.js';
import { funnelRoute } from './funnel-route.js';
import { funnelsRoute } from './funnels-route.js';
import { queryRoute } from './query-route.js';

export const queryApiRoutes: readonly AnyRoute[] = [queryRoute, funnelRoute, funnelsRoute];
