// Sites, tenants, goals and usage records as the spec's resource tables define them.
import { Type } from '@sinclair/typebox';
import { DateTime, Period, StringEnum } from './common.js';
import { SiteProductConfigurationSchema } from './product.js';

export const SiteSchema = Type.Object(
  {
    siteId: Type.String(),
    name: Type.String(),
    hostnames: Type.Array(Type.String()),
    status: StringEnum(['ACTIVE', 'SUSPENDED'] as const),
    product_configuration: SiteProductConfigurationSchema,
  },
  { title: 'Site' },
);

export const TenantSchema = Type.Object(
  {
    tenant_id: Type.String({ description: 'Stable identifier' }),
    tenant_slug: Type.String({ description: 'Current routing slug' }),
    tenant_name: Type.String({ description: 'Current display name' }),
    status: StringEnum(['ACTIVE', 'INACTIVE'] as const),
  },
  { title: 'Tenant' },
);

export const GoalSchema = Type.Object(
  {
    goalId: Type.String(),
    siteId: Type.String(),
    orgId: Type.String({ description: 'Workspace id' }),
    name: Type.String(),
    type: StringEnum(['PAGEVIEW_MATCH', 'EVENT_MATCH'] as const),
    intent: StringEnum(['lead', 'signup', 'purchase', 'download', 'outbound', 'content', 'custom'] as const),
    pattern: Type.String(),
    filters: Type.Optional(
      Type.Object({
        action_id: Type.Optional(Type.String()),
        action_target_host: Type.Optional(Type.String()),
        form_id: Type.Optional(Type.String()),
        form_action_path: Type.Optional(Type.String()),
      }),
    ),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { title: 'Goal' },
);

const usageFields = {
  period: Period,
  units_used: Type.Integer(),
  units_included: Type.Integer(),
  units_overage: Type.Integer(),
  hard_cap_units: Type.Integer(),
};

export const UsageCurrentSchema = Type.Object({ ...usageFields, reset_at: DateTime }, { title: 'CurrentUsage' });
export const UsageHistoryRecordSchema = Type.Object(usageFields, { title: 'UsageMonth' });

export function listOf<T extends Parameters<typeof Type.Array>[0]>(item: T) {
  return Type.Object({ items: Type.Array(item) });
}

/** site_id of the listing routes. */
export const SiteQuery = Type.Object({ site_id: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
