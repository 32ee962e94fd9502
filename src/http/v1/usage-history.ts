import { Type } from '@sinclair/typebox';
import { usageHistory } from '../../services/usage.js';
import { defineRoute } from '../pipeline/define-route.js';
import { DateParam } from '../schemas/common.js';
import { listOf, UsageHistoryRecordSchema } from '../schemas/resources.js';

export const usageHistoryRoute = defineRoute({
  url: '/v1/usage/history',
  operationId: 'getUsageHistory',
  family: 'usage',
  scopes: ['usage:read', 'metrics:read'],
  surface: null,
  tags: ['Usage'],
  summary: 'Metered units per UTC month',
  description:
    'One item per month from `from` to `to`, clipped to the last api.usage_history_months months (current month included) ' +
    'and to the months since the workspace was created, oldest first. A month without use shows zero units under the allowance ' +
    'of the plan in force at its end (the current plan for the current month). Defaults: to = today, from = the start of the window.',
  querystring: Type.Object({ from: Type.Optional(DateParam), to: Type.Optional(DateParam) }, { additionalProperties: false }),
  response: listOf(UsageHistoryRecordSchema),
  async handler({ deps, caller, arrivedAt, query }) {
    return { items: await usageHistory(deps, caller.workspace, caller.api, arrivedAt, query) };
  },
});
