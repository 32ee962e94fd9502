import { serveAnalytics } from '../../services/analytics/serve-analytics.js';
import { goalConversionsPlan } from '../../services/reports/goal-conversions-report.js';
import { checkReportLimit } from '../../services/reports/report-kit.js';
import { defineRoute, RawJson } from '../define-route.js';
import { reportEnvelope } from '../schemas/analytics.js';
import { GoalConversionsPayload, ReportQuery } from '../schemas/reports.js';

export const goalsConversionsRoute = defineRoute({
  url: '/v1/goals/conversions',
  operationId: 'getGoalConversions',
  family: 'goals',
  scopes: ['metrics:read'],
  tags: ['Goals'],
  summary: 'Conversions of the goals configured for a site',
  description:
    'Extended-only ("advanced and gated"): 409 REPORT_LOCKED_BY_PROFILE on a strict site, 409 ' +
    'REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD before any Extended data; a range crossing the switch counts from ' +
    'collection_profile_effective_at. Units = 4 x ceil(days / 30) x ceil(limit / 100) x (2 with compare).',
  querystring: ReportQuery,
  response: reportEnvelope(GoalConversionsPayload, 'Report envelope with goals payload'),
  errors: [402, 409, 503],
  site: { inactive: 'reject', tenantRequiredForRestrictedToken: true },
  check(query, { caller }) {
    checkReportLimit(query.limit, caller.policy.max_report_limit);
  },
  async handler(ctx) {
    return new RawJson(
      await serveAnalytics(ctx, {
        route: 'goals',
        query: ctx.query,
        plan: (range) => goalConversionsPlan(ctx, ctx.query, range),
      }),
    );
  },
});
