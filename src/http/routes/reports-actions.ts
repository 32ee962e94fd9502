import { serveAnalytics } from '../../services/analytics/serve-analytics.js';
import { actionsPlan, checkActionKey } from '../../services/reports/actions-report.js';
import { checkReportLimit } from '../../services/reports/report-kit.js';
import { defineRoute, RawJson } from '../define-route.js';
import { reportEnvelope } from '../schemas/analytics.js';
import { ActionsPayload, ActionsQuery } from '../schemas/reports.js';

export const reportsActionsRoute = defineRoute({
  url: '/v1/reports/actions',
  operationId: 'getActionsReport',
  family: 'reports',
  scopes: ['metrics:read'],
  tags: ['Reports'],
  summary: 'Actions: families, totals, series, action rows and their context',
  description:
    'Mixed route. On a strict site only the simple actions (ui.click, outbound.click, file.download, form.submit) are counted; ' +
    'the other families are section actions_advanced. action_family and action_key narrow actions, family_timeseries and context. ' +
    'Units = 8 x ceil(days / 30) x ceil(limit / 100) x (2 with compare).',
  querystring: ActionsQuery,
  response: reportEnvelope(ActionsPayload, 'Report envelope with actions payload'),
  errors: [402, 409, 503],
  site: { inactive: 'reject', tenantRequiredForRestrictedToken: true },
  check(query, { caller }) {
    checkReportLimit(query.limit, caller.policy.max_report_limit);
    checkActionKey(query.action_key);
  },
  async handler(ctx) {
    return new RawJson(
      await serveAnalytics(ctx, {
        route: 'actions',
        query: ctx.query,
        plan: (range) => actionsPlan(ctx, ctx.query, range),
      }),
    );
  },
});
