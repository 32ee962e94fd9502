import { overviewPlan } from '../../services/reports/overview-report.js';
import { reportRoute } from './report-route.js';
import { OverviewPayload, ReportQuery } from '../schemas/reports.js';

export const reportsOverviewRoute = reportRoute({
  url: '/v1/reports/overview',
  operationId: 'getOverviewReport',
  summary: 'Overview: totals, daily series, pages, movers, acquisition preview and audience',
  description:
    'Mixed route. On a strict site the strict-safe baseline plus the acquisition-lite preview (channels, host-only referrers, ' +
    'landing pages); regions and cities are the sections overview_regions and overview_cities (empty lists while locked). ' +
    'Units = 10 x ceil(days / 30) x ceil(limit / 100) x (2 with compare).',
  report: 'overview',
  querystring: ReportQuery,
  payload: OverviewPayload,
  plan: overviewPlan,
});
