// The runtime product object (GET /v1/me `product`) and a site's product_configuration (GET /v1/sites),
// assembled from the plan's row of the plan table (plans.ts) and the site's collection profile. Pure.
import {
  apiPolicyFor,
  PLANS,
  runtimePlanId,
  type ApiPolicy,
  type Dashboard,
  type DataEnvelope,
  type Level,
  type PlanEntry,
  type PlanId,
  type Profile,
  type RuntimePlanId,
  type WorkspaceRetention,
} from './plans.js';

export type Maturity = 'implemented' | 'partially_implemented' | 'not_explicitly_split' | 'not_applicable';

export interface Capability {
  level: Level;
  data_envelope: DataEnvelope;
  maturity: Maturity;
  notes: string[];
}

export interface ProductRetention {
  workspace_retention: WorkspaceRetention;
  api_retention_days: number | null;
  technical_retention: { site_data_retention_months: number };
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

/** The notes of the exports capability: the same on every plan and site. */
export const EXPORT_NOTES: readonly string[] = [
  'CSV: the dashboard downloads it, and /v1/metrics/* answer Accept: text/csv; the API has no asynchronous export.',
];

function capabilities(p: PlanEntry, api: ApiPolicy, envelope: DataEnvelope): Capabilities {
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
      notes:
        envelope === 'extended'
          ? []
          : ['Source, medium and campaign need Extended collection; channels, referrer hosts and landing pages are strict-safe.'],
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
  const p = PLANS[plan];
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
