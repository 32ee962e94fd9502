// Every management route, in the order the document lists them.
import type { AppRoute } from '../define-app-route.js';
import { accountRoutes } from './account.js';
import { embedRoutes } from './embeds.js';
import { funnelRoutes } from './funnels.js';
import { linkRoutes } from './links.js';
import { memberRoutes } from './members.js';
import { readBatchRoutes } from './read-batch.js';
import { reportRoutes } from './reports.js';
import { sessionRoutes } from './session.js';
import { siteDashboardRoutes } from './site-dashboard.js';
import { siteRoutes } from './sites.js';
import { goalRoutes, tenantRoutes } from './tenants-goals.js';
import { twoFactorRoutes } from './two-factor.js';
import { tokenRoutes } from './tokens.js';
import { workspaceRoutes } from './workspaces.js';

export const appApiRoutes: readonly AppRoute[] = [
  ...sessionRoutes,
  ...accountRoutes,
  ...twoFactorRoutes,
  ...linkRoutes,
  ...workspaceRoutes,
  ...memberRoutes,
  ...siteRoutes,
  ...siteDashboardRoutes,
  ...readBatchRoutes,
  ...tenantRoutes,
  ...goalRoutes,
  ...funnelRoutes,
  ...tokenRoutes,
  ...embedRoutes,
  ...reportRoutes,
];
