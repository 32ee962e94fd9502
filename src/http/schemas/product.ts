// The product object (GET /v1/me) and product_configuration (GET /v1/sites).
import { Type } from '@sinclair/typebox';
import { DataEnvelopeSchema, DateTime, Level, Nullable, ProfileSchema, StringEnum } from './common.js';

const Capability = {
  level: Level,
  data_envelope: DataEnvelopeSchema,
  maturity: StringEnum(['implemented', 'partially_implemented', 'not_explicitly_split', 'not_applicable'] as const),
  notes: Type.Array(Type.String()),
};
const CapabilitySchema = Type.Object(Capability, { title: 'Capability' });

export const ApiPolicySchema = Type.Object(
  {
    availability: StringEnum(['none', 'limited', 'standard', 'custom'] as const),
    can_create_tokens: Type.Boolean(),
    allow_reports: Type.Boolean(),
    allow_goals: Type.Boolean(),
    allow_tenants: Type.Boolean(),
    allow_tenant_dimension: Type.Boolean(),
    retention_days: Nullable(Type.Integer()),
    monthly_included_units: Nullable(Type.Integer()),
    hard_cap_units: Nullable(Type.Integer()),
    rate_limit_rps: Nullable(Type.Integer()),
    max_range_days: Type.Integer(),
    max_breakdown_limit: Type.Integer(),
    max_report_limit: Type.Integer(),
    usage_history_months: Type.Integer(),
  },
  { title: 'ApiPolicy' },
);

const ProductCore = {
  runtime_plan_id: StringEnum(['free', 'starter', 'pro'] as const),
  product_retention: Type.Object(
    {
      workspace_retention: Type.Object({
        kind: StringEnum(['fixed', 'custom'] as const),
        value: Type.Optional(Type.Integer()),
        unit: Type.Optional(StringEnum(['days', 'months'] as const)),
      }),
      api_retention_days: Nullable(Type.Integer()),
      technical_retention: Type.Object({ site_data_retention_months: Type.Integer() }),
    },
    { title: 'ProductRetention' },
  ),
  api: ApiPolicySchema,
  exports: Type.Object({ csv: Type.Boolean(), level: Level }),
  dashboard: Type.Object(
    {
      hourly_enabled: Type.Boolean(),
      hourly_level: Level,
      essential_level: Level,
      standard_level: Level,
      breakdowns_standard_level: Level,
      breakdowns_high_cardinality_level: Level,
      team_management_level: Level,
      enabled_surfaces: Type.Array(Type.String()),
    },
    { title: 'Dashboard' },
  ),
  capabilities: Type.Object(
    {
      collection: CapabilitySchema,
      reports: Type.Object({ ...Capability, dashboard_surfaces: Type.Array(Type.String()) }),
      acquisition: CapabilitySchema,
      advanced_actions: CapabilitySchema,
      multi_tenant: CapabilitySchema,
      exports: CapabilitySchema,
      api: CapabilitySchema,
    },
    { title: 'Capabilities' },
  ),
};

export const WorkspaceProductSchema = Type.Object(
  {
    runtime_plan_id: ProductCore.runtime_plan_id,
    default_collection_profile: ProfileSchema,
    product_retention: ProductCore.product_retention,
    api: ProductCore.api,
    exports: ProductCore.exports,
    dashboard: ProductCore.dashboard,
    capabilities: ProductCore.capabilities,
  },
  { title: 'WorkspaceProduct' },
);

export const SiteProductConfigurationSchema = Type.Object(
  {
    runtime_plan_id: ProductCore.runtime_plan_id,
    collection_profile: ProfileSchema,
    collection_profile_effective_at: Nullable(DateTime),
    product_retention: ProductCore.product_retention,
    api: ProductCore.api,
    exports: ProductCore.exports,
    dashboard: ProductCore.dashboard,
    capabilities: ProductCore.capabilities,
  },
  { title: 'ProductConfiguration' },
);
