import { Type } from '@sinclair/typebox';
import { currentUsage } from '../../services/usage.js';
import { defineRoute } from '../pipeline/define-route.js';
import { UsageCurrentSchema } from '../schemas/resources.js';

export const usageCurrentRoute = defineRoute({
  url: '/v1/usage/current',
  operationId: 'getCurrentUsage',
  family: 'usage',
  scopes: ['usage:read', 'metrics:read'],
  surface: null,
  tags: ['Usage'],
  summary: 'Metered units of the current UTC month',
  querystring: Type.Object({}, { additionalProperties: false }),
  response: UsageCurrentSchema,
  async handler({ deps, caller, arrivedAt }) {
    return currentUsage(deps.ledger, caller.workspace.id, caller.api, arrivedAt);
  },
});
