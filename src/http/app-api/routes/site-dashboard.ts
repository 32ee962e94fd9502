// What the dashboard of one site reads beside its numbers, for any member of the site's workspace:
// the site, the person's workspace and role, the plan's dashboard rules (what /app/api/v1/... of this
// site may ask: the page offers no more), the collection script; and the current visitors.
import type { Role } from '../../../domain/roles.js';
import { ApiError } from '../../../domain/errors.js';
import { liveVisitors } from '../../../services/analytics/live-visitors.js';
import { dashboardRulesJson, siteViewJson, workspaceSummaryJson } from '../../../services/manage/records-json.js';
import { getSite } from '../../../services/manage/sites.js';
import { defineAppRoute } from '../define-app-route.js';
import { LiveVisitorsSchema, SiteDashboardSchema } from '../schemas.js';
import { SiteParams } from './params.js';

const TAG = 'Sites';

export const siteDashboardRoutes = [
  defineAppRoute({
    method: 'GET',
    url: '/sites/:site_id',
    operationId: 'getSite',
    summary: "A site, the person's workspace and role, and the plan's dashboard rules (any member)",
    description:
      "The dashboard's reads of the site are the read API's GET operations under /app/api/v1/... (see the document's description); `dashboard` says which of them the plan opens and their limits.",
    tag: TAG,
    auth: 'session',
    guard: { on: 'site', need: 'viewer' },
    params: SiteParams,
    status: 200,
    response: SiteDashboardSchema,
    handler: async ({ deps, access }) => {
      const view = await getSite(deps, access);
      return {
        site: siteViewJson(view),
        workspace: workspaceSummaryJson(access.workspace, access.role as Role),
        dashboard: dashboardRulesJson(access.workspace),
        tracker_script_url: `${deps.config.publicUrl}/js/script.js`,
      };
    },
  }),
  defineAppRoute({
    method: 'GET',
    url: '/sites/:site_id/live',
    operationId: 'getLiveVisitors',
    summary: 'Current visitors: distinct visitors (human traffic) of the last 5 minutes, and the newest stored event (any member)',
    description:
      'Not metered. One count serves every page of the site for 5 s (per server process). `last_event_at` null: the site has no event yet (the dashboard then polls every 5 s for the first one; that answer is never held).',
    tag: TAG,
    auth: 'session',
    guard: { on: 'site', need: 'viewer' },
    params: SiteParams,
    status: 200,
    response: LiveVisitorsSchema,
    handler: async ({ deps, access }) => {
      // every container has an analytics store; a process without one has no numbers to show
      if (!deps.analytics) throw new ApiError('ANALYTICS_DB_UNAVAILABLE');
      return liveVisitors(deps.analytics.engine, access.site.id, deps.clock.now(), deps.config.queryTimeoutMs);
    },
  }),
];
