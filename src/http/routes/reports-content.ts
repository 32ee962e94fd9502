import { serveAnalytics } from '../../services/analytics/serve-analytics.js';
import { contentPlan } from '../../services/reports/content-report.js';
import { checkReportLimit } from '../../services/reports/report-kit.js';
import { defineRoute, RawJson } from '../define-route.js';
import { reportEnvelope } from '../schemas/analytics.js';
import { ContentPayload, ContentQuery } from '../schemas/reports.js';

export const reportsContentRoute = defineRoute({
  url: '/v1/reports/content',
  operationId: 'getContentReport',
  family: 'reports',
  scopes: ['metrics:read'],
  tags: ['Reports'],
  summary: 'Content: page totals and series (summary), or page rows, trends, entry and exit pages (full)',
  description:
    'Strict-safe route. include: summary (1 to 365 days), full (1 to 90 days) or details (deprecated alias of full); omitted, ' +
    'up to 90 days is full and 91 to 365 summary. compare accepts at most 30 days. limit has no effect in summary. A response over ' +
    '5 MiB is 422 REPORT_RESPONSE_TOO_LARGE and costs nothing. Units = full 6 x ceil(days / 30) x ceil(limit / 100), summary ' +
    '2 x ceil(days / 30); x 2 with compare.',
  querystring: ContentQuery,
  response: reportEnvelope(ContentPayload, 'Report envelope with content payload'),
  errors: [402, 409, 503],
  site: { inactive: 'reject', tenantRequiredForRestrictedToken: true },
  check(query, { caller }) {
    checkReportLimit(query.limit, caller.policy.max_report_limit);
  },
  async handler(ctx) {
    return new RawJson(
      await serveAnalytics(ctx, {
        route: 'content',
        query: ctx.query,
        plan: (range) => contentPlan(ctx, ctx.query, range),
      }),
    );
  },
});
