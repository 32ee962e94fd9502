import { actionsPlan, checkActionKey } from '../../services/reports/actions-report.js';
import { reportRoute } from './report-route.js';
import { ActionsPayload, ActionsQuery } from '../schemas/reports.js';

export const reportsActionsRoute = reportRoute({
  url: '/v1/reports/actions',
  operationId: 'getActionsReport',
  summary: 'Actions: families, totals, series, action rows and their context',
  description:
    'Mixed route. On a strict site only the simple actions (ui.click, outbound.click, file.download, form.submit) are counted; ' +
    'the other families are section actions_advanced. action_family and action_key narrow actions, family_timeseries and context. ' +
    'Units = 8 x ceil(days / 30) x ceil(limit / 100) x (2 with compare).',
  report: 'actions',
  querystring: ActionsQuery,
  payload: ActionsPayload,
  check: (query) => checkActionKey(query.action_key),
  plan: actionsPlan,
});
