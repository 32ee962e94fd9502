import { serveAnalytics } from '../../services/analytics/serve-analytics.js';
import { overviewPlan } from '../../services/reports/overview-report.js';
import { checkReportLimit } from '../../services/reports/report-kit.js';
import { defineRoute, RawJson } from '../define-route.js';
import { reportEnvelope } from '../schemas/analytics.js';
import { OverviewPayload, ReportQuery } from '../schemas/reports.js';

export const reportsOverviewRoute = defineRoute({
  url: '/v1/reports/overview',
  operationId: 'getOverviewReport',
  family: 'reports',
  scopes: ['metrics:read'],
  tags: ['Reports'],
  summary: 'Overview: totals, daily series, pages, movers, acquisition preview and audience',
  description:
    'Mixed route. On a strict site the strict-safe baseline plus the acquisition-lite preview (channels, host-only referrers, ' +
    'landing pages); regions and cities are the sections overview_regions and overview_cities (empty lists while locked). ' +
    'Units = 10 x ceil(days / 30) x ceil(limit / 100) x (2 with compare).',
  querystring: ReportQuery,
  response: reportEnvelope(OverviewPayload, 'Report envelope with overview payload'),
  errors: [402, 409, 503],
  site: { inactive: 'reject', tenantRequiredForRestrictedToken: true },
  check(query, { caller }) {
    checkReportLimit(query.limit, caller.policy.max_report_limit);
  },
  async handler(ctx) {
    return new RawJson(
      await serveAnalytics(ctx, {
        route: 'overview',
        query: ctx.query,
        plan: (range) => overviewPlan(ctx, ctx.query, range),
      }),
    );
  },
});
