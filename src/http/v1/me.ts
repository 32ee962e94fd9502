import { Type } from '@sinclair/typebox';
import { workspaceProduct } from '../../domain/product.js';
import { defineRoute } from '../pipeline/define-route.js';
import { Nullable, StringEnum } from '../schemas/common.js';
import { WorkspaceProductSchema } from '../schemas/product.js';

export const meRoute = defineRoute({
  url: '/v1/me',
  operationId: 'getMe',
  family: 'me',
  scopes: ['metrics:read'],
  surface: null,
  tags: ['Caller and plan'],
  summary: 'The caller workspace product object',
  querystring: Type.Object({}, { additionalProperties: false }),
  response: Type.Object({
    product: WorkspaceProductSchema,
    plan_id: StringEnum(['free', 'starter', 'pro'] as const, {
      deprecated: true,
      description: 'Deprecated mirror of product.runtime_plan_id',
    }),
    retention_days: {
      ...Nullable(Type.Integer()),
      deprecated: true,
      description: 'Deprecated mirror of product.product_retention.api_retention_days',
    },
  }),
  async handler({ caller }) {
    const product = workspaceProduct(caller.workspace);
    return { product, plan_id: product.runtime_plan_id, retention_days: product.product_retention.api_retention_days };
  },
});
