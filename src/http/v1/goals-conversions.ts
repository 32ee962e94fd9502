import { goalConversionsPlan } from '../../services/reports/goal-conversions-report.js';
import { reportRoute } from './report-route.js';
import { GoalConversionsPayload, ReportQuery } from '../schemas/reports.js';

export const goalsConversionsRoute = reportRoute({
  url: '/v1/goals/conversions',
  operationId: 'getGoalConversions',
  summary: 'Conversions of the goals configured for a site',
  description:
    'Extended-only ("advanced and gated"): 409 REPORT_LOCKED_BY_PROFILE on a strict site, 409 ' +
    'REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD before any Extended data; a range crossing the switch counts from ' +
    'collection_profile_effective_at. Units = 4 x ceil(days / 30) x ceil(limit / 100) x (2 with compare).',
  report: 'goals',
  querystring: ReportQuery,
  payload: GoalConversionsPayload,
  plan: goalConversionsPlan,
});
