import { acquisitionPlan } from '../../services/reports/acquisition-report.js';
import { reportRoute } from './report-route.js';
import { AcquisitionPayload, ReportQuery } from '../schemas/reports.js';

export const reportsAcquisitionRoute = reportRoute({
  url: '/v1/reports/acquisition',
  operationId: 'getAcquisitionReport',
  summary: 'Acquisition: channels, referrers, landing pages, attribution and coverage',
  description:
    'Mixed route. Channels, host-only referrers and landing pages are strict-safe; top_sources, top_mediums, top_campaigns and ' +
    "tagged sessions belong to section acquisition_attribution (empty while locked). Shares are fractions of the range's sessions. " +
    'Units = 8 x ceil(days / 30) x ceil(limit / 100) x (2 with compare).',
  report: 'acquisition',
  querystring: ReportQuery,
  payload: AcquisitionPayload,
  plan: acquisitionPlan,
});
