import { serveAnalytics } from '../../services/analytics/serve-analytics.js';
import { acquisitionPlan } from '../../services/reports/acquisition-report.js';
import { checkReportLimit } from '../../services/reports/report-kit.js';
import { defineRoute, RawJson } from '../define-route.js';
import { reportEnvelope } from '../schemas/analytics.js';
import { AcquisitionPayload, ReportQuery } from '../schemas/reports.js';

export const reportsAcquisitionRoute = defineRoute({
  url: '/v1/reports/acquisition',
  operationId: 'getAcquisitionReport',
  family: 'reports',
  scopes: ['metrics:read'],
  tags: ['Reports'],
  summary: 'Acquisition: channels, referrers, landing pages, attribution and coverage',
  description:
    'Mixed route. Channels, host-only referrers and landing pages are strict-safe; top_sources, top_mediums, top_campaigns and ' +
    'tagged sessions belong to section acquisition_attribution (empty while locked). Shares are fractions of the range\'s sessions. ' +
    'Units = 8 x ceil(days / 30) x ceil(limit / 100) x (2 with compare).',
  querystring: ReportQuery,
  response: reportEnvelope(AcquisitionPayload, 'Report envelope with acquisition payload'),
  errors: [402, 409, 503],
  site: { inactive: 'reject', tenantRequiredForRestrictedToken: true },
  check(query, { caller }) {
    checkReportLimit(query.limit, caller.policy.max_report_limit);
  },
  async handler(ctx) {
    return new RawJson(
      await serveAnalytics(ctx, {
        route: 'acquisition',
        query: ctx.query,
        plan: (range) => acquisitionPlan(ctx, ctx.query, range),
      }),
    );
  },
});
