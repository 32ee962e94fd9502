// What each plan includes, in one table (PLANS): its API policy, seats and sites, included events, data
// retention, exports and dashboard. Everything that asks what a plan allows reads it here; product.ts
// only assembles the product objects of GET /v1/me and GET /v1/sites from it. Pure data, no I/O.

export const PLAN_IDS = ['free', 'starter', 'pro', 'enterprise'] as const;
export type PlanId = (typeof PLAN_IDS)[number];
export type RuntimePlanId = 'free' | 'starter' | 'pro';
export type Level = 'none' | 'limited' | 'standard' | 'guardrailed' | 'advanced' | 'custom';
export type Profile = 'strict' | 'extended';
export type DataEnvelope = Profile | 'mixed';

export interface ApiPolicy {
  availability: 'none' | 'limited' | 'standard' | 'custom';
  can_create_tokens: boolean;
  allow_reports: boolean;
  allow_goals: boolean;
  allow_tenants: boolean;
  allow_tenant_dimension: boolean;
  retention_days: number | null;
  monthly_included_units: number | null;
  hard_cap_units: number | null;
  rate_limit_rps: number | null;
  max_range_days: number;
  max_breakdown_limit: number;
  max_report_limit: number;
  usage_history_months: number;
}

/** Keys an enterprise `--api-policy` may override, with the JSON type each takes. */
export const API_POLICY_FIELDS: Record<keyof ApiPolicy, 'boolean' | 'integer' | 'integer|null' | 'availability'> = {
  availability: 'availability',
  can_create_tokens: 'boolean',
  allow_reports: 'boolean',
  allow_goals: 'boolean',
  allow_tenants: 'boolean',
  allow_tenant_dimension: 'boolean',
  retention_days: 'integer|null',
  monthly_included_units: 'integer|null',
  hard_cap_units: 'integer|null',
  rate_limit_rps: 'integer|null',
  max_range_days: 'integer',
  max_breakdown_limit: 'integer',
  max_report_limit: 'integer',
  usage_history_months: 'integer',
};

/** Seats (members plus open invitations) and sites a workspace may have; null = unlimited. */
export interface PlanLimits {
  max_users: number | null;
  max_sites: number | null;
}

/** What an enterprise `--api-policy` may hold: product.api overrides, the plan limits and the event allowance. */
export type ApiPolicyOverrides = Partial<ApiPolicy> & Partial<PlanLimits> & { max_events_per_month?: number | null };

/** What the dashboard draws, in parts a plan opens (`dashboard.enabled_surfaces`). */
export const DASHBOARD_SURFACES = ['overview', 'content', 'acquisition', 'actions', 'goals', 'tenants'] as const;
export type DashboardSurface = (typeof DASHBOARD_SURFACES)[number];

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

export type WorkspaceRetention = { kind: 'fixed' | 'custom'; value?: number; unit?: 'days' | 'months' };

/** One plan's row of the table. Enterprise's are pro's where its `--api-policy` says nothing. */
export interface PlanEntry {
  api: ApiPolicy;
  /** enterprise: `max_users` and `max_sites` of its policy */
  limits: PlanLimits;
  /** per UTC month; enterprise: `max_events_per_month` of its policy (collection goes on past it) */
  includedEvents: number | null;
  retention: WorkspaceRetention;
  /** months of site data kept: older UTC days are purged */
  technicalMonths: number;
  exports: { csv: boolean; level: Level };
  dashboard: Dashboard;
  reportsLevel: Level;
  advancedActionsLevel: Level;
}

const NO_API: ApiPolicy = {
  availability: 'none',
  can_create_tokens: false,
  allow_reports: false,
  allow_goals: false,
  allow_tenants: false,
  allow_tenant_dimension: false,
  retention_days: null,
  monthly_included_units: null,
  hard_cap_units: null,
  rate_limit_rps: null,
  max_range_days: 0,
  max_breakdown_limit: 0,
  max_report_limit: 0,
  usage_history_months: 0,
};

const PRO_API: ApiPolicy = {
  availability: 'standard',
  can_create_tokens: true,
  allow_reports: true,
  allow_goals: true,
  allow_tenants: true,
  allow_tenant_dimension: true,
  retention_days: 730,
  monthly_included_units: 1_000_000,
  hard_cap_units: 2_000_000,
  rate_limit_rps: 30,
  max_range_days: 730,
  max_breakdown_limit: 2000,
  max_report_limit: 2000,
  usage_history_months: 24,
};

const SURFACES_FREE: DashboardSurface[] = ['overview', 'content', 'acquisition'];
const SURFACES_STARTER: DashboardSurface[] = [...SURFACES_FREE, 'actions'];
const SURFACES_PRO: DashboardSurface[] = [...SURFACES_STARTER, 'goals', 'tenants'];

const PRO_DASHBOARD: Dashboard = {
  hourly_enabled: true,
  hourly_level: 'standard',
  essential_level: 'standard',
  standard_level: 'standard',
  breakdowns_standard_level: 'standard',
  breakdowns_high_cardinality_level: 'guardrailed',
  team_management_level: 'standard',
  enabled_surfaces: SURFACES_PRO,
};

export const PLANS: Readonly<Record<PlanId, Readonly<PlanEntry>>> = {
  free: {
    api: NO_API,
    limits: { max_users: 1, max_sites: 3 },
    includedEvents: 25_000,
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
    api: {
      availability: 'limited',
      can_create_tokens: true,
      allow_reports: false,
      allow_goals: false,
      allow_tenants: false,
      allow_tenant_dimension: false,
      retention_days: 395,
      monthly_included_units: 100_000,
      hard_cap_units: 250_000,
      rate_limit_rps: 15,
      max_range_days: 395,
      max_breakdown_limit: 500,
      max_report_limit: 200,
      usage_history_months: 12,
    },
    limits: { max_users: 3, max_sites: 10 },
    includedEvents: 100_000,
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
    api: PRO_API,
    limits: { max_users: 10, max_sites: 50 },
    includedEvents: 1_000_000,
    retention: { kind: 'fixed', value: 24, unit: 'months' },
    technicalMonths: 25,
    exports: { csv: true, level: 'standard' },
    dashboard: PRO_DASHBOARD,
    reportsLevel: 'advanced',
    advancedActionsLevel: 'advanced',
  },
  enterprise: {
    api: { ...PRO_API, availability: 'custom' },
    limits: { max_users: null, max_sites: null },
    includedEvents: null,
    retention: { kind: 'custom' },
    technicalMonths: 25,
    exports: { csv: true, level: 'custom' },
    dashboard: { ...PRO_DASHBOARD, breakdowns_high_cardinality_level: 'advanced', team_management_level: 'custom' },
    reportsLevel: 'custom',
    advancedActionsLevel: 'custom',
  },
};

/** The API policy in force: the plan's, with an enterprise workspace's own overrides on top. */
export function apiPolicyFor(plan: PlanId, overrides: ApiPolicyOverrides = {}): ApiPolicy {
  if (plan !== 'enterprise') return { ...PLANS[plan].api };
  // The seat and site limits and the event allowance share the --api-policy object but are no part of product.api.
  const { max_users: _u, max_sites: _s, max_events_per_month: _e, ...api } = overrides;
  return { ...PLANS.enterprise.api, ...api };
}

/** The workspace's included events per month; enterprise takes `max_events_per_month` of its policy, null (unlimited) when unset. */
export function includedEventsFor(plan: PlanId, overrides: ApiPolicyOverrides = {}): number | null {
  if (plan !== 'enterprise') return PLANS[plan].includedEvents;
  return overrides.max_events_per_month ?? null;
}

/** The plan's seats and sites; enterprise takes its own from the overrides, unlimited when unset. */
export function planLimitsFor(plan: PlanId, overrides: ApiPolicyOverrides = {}): PlanLimits {
  if (plan !== 'enterprise') return { ...PLANS[plan].limits };
  return { max_users: overrides.max_users ?? null, max_sites: overrides.max_sites ?? null };
}

/** Months of site data the plan keeps (technical retention: older UTC days are purged). */
export function technicalRetentionMonths(plan: PlanId): number {
  return PLANS[plan].technicalMonths;
}

/** The plan's exports (`exports` of the product object), without building the rest of it. */
export function exportsOf(plan: PlanId): { csv: boolean; level: Level } {
  return { ...PLANS[plan].exports };
}

/** True when the plan lets tokens reach the API at all. */
export function hasApiAccess(policy: ApiPolicy): boolean {
  return policy.availability !== 'none';
}

/** Hourly intervals are a paid feature (starter and up). */
export function allowsHourly(plan: PlanId): boolean {
  return PLANS[plan].dashboard.hourly_enabled;
}

/**
 * Validates an `--api-policy` object: only known keys, each of its type.
 * Returns the list of problems (empty when valid).
 */
export function validateApiPolicyOverrides(input: unknown): string[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return ['api policy must be a JSON object'];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    const kind =
      key === 'max_users' || key === 'max_sites' || key === 'max_events_per_month'
        ? 'integer|null'
        : API_POLICY_FIELDS[key as keyof ApiPolicy];
    if (!kind) {
      problems.push(`unknown api policy field "${key}"`);
      continue;
    }
    const isInt = Number.isSafeInteger(value) && (value as number) >= 0;
    const ok =
      kind === 'boolean'
        ? typeof value === 'boolean'
        : kind === 'integer'
          ? isInt
          : kind === 'integer|null'
            ? value === null || isInt
            : ['none', 'limited', 'standard', 'custom'].includes(value as string);
    if (!ok)
      problems.push(
        `api policy field "${key}" must be ${kind === 'availability' ? 'none|limited|standard|custom' : `a non-negative ${kind}`}`,
      );
  }
  return problems;
}

export function runtimePlanId(plan: PlanId): RuntimePlanId {
  return plan === 'enterprise' ? 'pro' : plan;
}
