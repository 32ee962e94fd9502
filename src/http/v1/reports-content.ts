import { contentPlan } from '../../services/reports/content-report.js';
import { reportRoute } from './report-route.js';
import { ContentPayload, ContentQuery } from '../schemas/reports.js';

export const reportsContentRoute = reportRoute({
  url: '/v1/reports/content',
  operationId: 'getContentReport',
  summary: 'Content: page totals and series (summary), or page rows, trends, entry and exit pages (full)',
  description:
    'Strict-safe route. include: summary (1 to 365 days), full (1 to 90 days) or details (deprecated alias of full); omitted, ' +
    'up to 90 days is full and 91 to 365 summary. compare accepts at most 30 days. limit has no effect in summary. A response over ' +
    '5 MiB is 422 REPORT_RESPONSE_TOO_LARGE and costs nothing. Units = full 6 x ceil(days / 30) x ceil(limit / 100), summary ' +
    '2 x ceil(days / 30); x 2 with compare.',
  report: 'content',
  querystring: ContentQuery,
  payload: ContentPayload,
  plan: contentPlan,
});
