// The runtime product object (GET /v1/me `product`) and a site's product_configuration
// (GET /v1/sites), derived from the plan and its API policy. Pure.
import { apiPolicyFor, runtimePlanId, type ApiPolicy, type DataEnvelope, type Level, type PlanId, type Profile, type RuntimePlanId } from './plans.js';

export type Maturity = 'implemented' | 'partially_implemented' | 'not_explicitly_split' | 'not_applicable';

export interface Capability {
  level: Level;
  data_envelope: DataEnvelope;
  maturity: Maturity;
  notes: string[];
}

export interface ProductRetention {
  workspace_retention: { kind: 'fixed' | 'custom'; value?: number; unit?: 'days' | 'months' };
  api_retention_days: number | null;
  technical_retention: { site_data_retention_months: number };
}

export interface Dashboard {
  hourly_enabled: boolean;
  hourly_level: Level;
  essential_level: Level;
  standard_level: Level;
  breakdowns_standard_level: Level;
  breakdowns_high_cardinality_level: Level;
  team_management_level: Level;
  enabled_surfaces: string[];
}

export interface Capabilities {
  collection: Capability;
  reports: Capability & { dashboard_surfaces: string[] };
  acquisition: Capability;
  advanced_actions: Capability;
  multi_tenant: Capability;
  exports: Capability;
  api: Capability;
}

/** Members shared by the workspace product and a site's product_configuration. */
interface ProductCore {
  runtime_plan_id: RuntimePlanId;
  product_retention: ProductRetention;
  api: ApiPolicy;
  exports: { csv: boolean; level: Level };
  dashboard: Dashboard;
  capabilities: Capabilities;
}

export interface WorkspaceProduct extends ProductCore {
  default_collection_profile: Profile;
}

export interface SiteProductConfiguration extends ProductCore {
  collection_profile: Profile;
  collection_profile_effective_at: string | null;
}

/** The profile a workspace's new sites start with: privacy first. */
export const DEFAULT_COLLECTION_PROFILE: Profile = 'strict';

interface PlanPackaging {
  retention: ProductRetention['workspace_retention'];
  technicalMonths: number;
  exports: { csv: boolean; level: Level };
  dashboard: Dashboard;
  reportsLevel: Level;
  advancedActionsLevel: Level;
}

/** What the dashboard draws, in parts a plan opens (`dashboard.enabled_surfaces`). */
export const DASHBOARD_SURFACES = ['overview', 'content', 'acquisition', 'actions', 'goals', 'tenants'] as const;
export type DashboardSurface = (typeof DASHBOARD_SURFACES)[number];

const SURFACES_FREE: DashboardSurface[] = ['overview', 'content', 'acquisition'];
const SURFACES_STARTER: DashboardSurface[] = [...SURFACES_FREE, 'actions'];
const SURFACES_PRO: DashboardSurface[] = [...SURFACES_STARTER, 'goals', 'tenants'];

const PACKAGING: Record<PlanId, PlanPackaging> = {
  free: {
    retention: { kind: 'fixed', value: 60, unit: 'days' },
    technicalMonths: 3,
    exports: { csv: false, level: 'none' },
    dashboard: {
      hourly_enabled: false,
      hourly_level: 'none',
      essential_level: 'standard',
      standard_level: 'limited',
      breakdowns_standard_level: 'limited',
      breakdowns_high_cardinality_level: 'none',
      team_management_level: 'none',
      enabled_surfaces: SURFACES_FREE,
    },
    reportsLevel: 'limited',
    advancedActionsLevel: 'none',
  },
  starter: {
    retention: { kind: 'fixed', value: 13, unit: 'months' },
    technicalMonths: 14,
    exports: { csv: true, level: 'limited' },
    dashboard: {
      hourly_enabled: true,
      hourly_level: 'limited',
      essential_level: 'standard',
      standard_level: 'standard',
      breakdowns_standard_level: 'standard',
      breakdowns_high_cardinality_level: 'limited',
      team_management_level: 'limited',
      enabled_surfaces: SURFACES_STARTER,
    },
    reportsLevel: 'standard',
    advancedActionsLevel: 'limited',
  },
  pro: {
    retention: { kind: 'fixed', value: 24, unit: 'months' },
    technicalMonths: 25,
    exports: { csv: true, level: 'standard' },
    dashboard: {
      hourly_enabled: true,
      hourly_level: 'standard',
      essential_level: 'standard',
      standard_level: 'standard',
      breakdowns_standard_level: 'standard',
      breakdowns_high_cardinality_level: 'guardrailed',
      team_management_level: 'standard',
      enabled_surfaces: SURFACES_PRO,
    },
    reportsLevel: 'advanced',
    advancedActionsLevel: 'advanced',
  },
  enterprise: {
    retention: { kind: 'custom' },
    technicalMonths: 25,
    exports: { csv: true, level: 'custom' },
    dashboard: {
      hourly_enabled: true,
      hourly_level: 'standard',
      essential_level: 'standard',
      standard_level: 'standard',
      breakdowns_standard_level: 'standard',
      breakdowns_high_cardinality_level: 'advanced',
      team_management_level: 'custom',
      enabled_surfaces: SURFACES_PRO,
    },
    reportsLevel: 'custom',
    advancedActionsLevel: 'custom',
  },
};

/** The notes of the exports capability: the same on every plan and site. */
export const EXPORT_NOTES: readonly string[] = ['CSV: the dashboard downloads it, and /v1/metrics/* answer Accept: text/csv; the API has no asynchronous export.'];

function capabilities(p: PlanPackaging, api: ApiPolicy, envelope: DataEnvelope): Capabilities {
  const strictNote =
    envelope === 'strict'
      ? ['Strict collection stores no region, city, UTM values or actions beyond ui.click, outbound.click, file.download and form.submit.']
      : envelope === 'mixed'
        ? ['The collection profile changed; enriched slices exist only from collection_profile_effective_at on.']
        : [];
  return {
    collection: { level: 'standard', data_envelope: envelope, maturity: 'implemented', notes: strictNote },
    reports: {
      level: p.reportsLevel,
      data_envelope: envelope,
      maturity: 'implemented',
      notes: api.allow_reports ? [] : ['Report endpoints are not enabled by the active API policy.'],
      dashboard_surfaces: [...p.dashboard.enabled_surfaces],
    },
    acquisition: {
      level: envelope === 'strict' ? 'limited' : 'standard',
      data_envelope: envelope,
      maturity: 'implemented',
      notes: envelope === 'extended' ? [] : ['Source, medium and campaign need Extended collection; channels, referrer hosts and landing pages are strict-safe.'],
    },
    advanced_actions: {
      level: p.advancedActionsLevel,
      data_envelope: envelope,
      maturity: 'partially_implemented',
      notes: envelope === 'extended' ? [] : ['Advanced action families need Extended collection.'],
    },
    multi_tenant: {
      level: api.allow_tenants ? 'standard' : 'none',
      data_envelope: envelope,
      maturity: 'implemented',
      notes: api.allow_tenant_dimension ? [] : ['The tenant dimension is not enabled by the active API policy.'],
    },
    exports: {
      level: p.exports.level,
      data_envelope: envelope,
      maturity: 'not_applicable',
      notes: [...EXPORT_NOTES],
    },
    api: {
      level: api.availability,
      data_envelope: envelope,
      maturity: 'implemented',
      notes: api.availability === 'none' ? ['The plan includes no API access.'] : [],
    },
  };
}

function core(plan: PlanId, apiOverrides: Partial<ApiPolicy>, envelope: DataEnvelope): ProductCore {
  const p = PACKAGING[plan];
  const api = apiPolicyFor(plan, apiOverrides);
  return {
    runtime_plan_id: runtimePlanId(plan),
    product_retention: {
      workspace_retention: { ...p.retention },
      api_retention_days: api.retention_days,
      technical_retention: { site_data_retention_months: p.technicalMonths },
    },
    api,
    exports: { ...p.exports },
    dashboard: { ...p.dashboard, enabled_surfaces: [...p.dashboard.enabled_surfaces] },
    capabilities: capabilities(p, api, envelope),
  };
}

/** The plan's exports (`exports` of the product object), without building the rest of it. */
/** Months of site data the plan keeps (technical retention: older UTC days are purged). */
export function technicalRetentionMonths(plan: PlanId): number {
  return PACKAGING[plan].technicalMonths;
}

export function exportsOf(plan: PlanId): { csv: boolean; level: Level } {
  return { ...PACKAGING[plan].exports };
}

/** The workspace's canonical product object (GET /v1/me). */
export function workspaceProduct(workspace: { plan: PlanId; apiPolicy: Partial<ApiPolicy> }): WorkspaceProduct {
  const c = core(workspace.plan, workspace.apiPolicy, DEFAULT_COLLECTION_PROFILE);
  return { ...c, default_collection_profile: DEFAULT_COLLECTION_PROFILE };
}

/**
 * The envelope of a site's data: its profile, or `mixed` once it switched profile after it began
 * (before effective_at the other profile applied, so stored data holds both).
 */
export function siteDataEnvelope(site: { collectionProfile: Profile; profileEffectiveAt: string | null; createdAt: string }): DataEnvelope {
  if (site.profileEffectiveAt === null) return site.collectionProfile;
  return Date.parse(site.profileEffectiveAt) > Date.parse(site.createdAt) ? 'mixed' : site.collectionProfile;
}

/** A site's product_configuration (GET /v1/sites). */
export function siteProductConfiguration(
  workspace: { plan: PlanId; apiPolicy: Partial<ApiPolicy> },
  site: { collectionProfile: Profile; profileEffectiveAt: string | null; createdAt: string },
): SiteProductConfiguration {
  const c = core(workspace.plan, workspace.apiPolicy, siteDataEnvelope(site));
  return { ...c, collection_profile: site.collectionProfile, collection_profile_effective_at: site.profileEffectiveAt };
}
