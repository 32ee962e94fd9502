// The platform's /v1 routes; analytics routes join through buildApp's `routes` option.
import type { TObject, TSchema } from '@sinclair/typebox';
import type { RouteDefinition } from '../define-route.js';
import { goalsRoute } from './goals.js';
import { meRoute } from './me.js';
import { sitesRoute } from './sites.js';
import { tenantsRoute } from './tenants.js';
import { usageCurrentRoute } from './usage-current.js';
import { usageHistoryRoute } from './usage-history.js';

export const platformRoutes = [
  meRoute,
  sitesRoute,
  tenantsRoute,
  goalsRoute,
  usageCurrentRoute,
  usageHistoryRoute,
] as unknown as readonly RouteDefinition<TObject, TSchema>[];
