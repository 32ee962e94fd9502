// Plan policy: the product object of a workspace (GET /v1/me) and of a site
// (product_configuration in GET /v1/sites). Pure data, no I/O.

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

const STARTER_API: ApiPolicy = {
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

/** The API policy in force: the plan's, with an enterprise workspace's own overrides on top of pro's. */
export function apiPolicyFor(plan: PlanId, overrides: ApiPolicyOverrides = {}): ApiPolicy {
  switch (plan) {
    case 'free':
      return { ...NO_API };
    case 'starter':
      return { ...STARTER_API };
    case 'pro':
      return { ...PRO_API };
    case 'enterprise': {
      // The seat and site limits share the --api-policy object but are no part of product.api.
      const { max_users: _u, max_sites: _s, max_events_per_month: _e, ...api } = overrides;
      return { ...PRO_API, availability: 'custom', ...api };
    }
  }
}

/** Seats (members plus open invitations) and sites a workspace may have; null = unlimited. */
export interface PlanLimits {
  max_users: number | null;
  max_sites: number | null;
}

/** What an enterprise `--api-policy` may hold: product.api overrides, the plan limits and the event allowance. */
export type ApiPolicyOverrides = Partial<ApiPolicy> & Partial<PlanLimits> & { max_events_per_month?: number | null };

/** Events a plan includes per UTC month (collection goes on past it: overage is a preview). */
const INCLUDED_EVENTS: Record<Exclude<PlanId, 'enterprise'>, number> = { free: 25_000, starter: 100_000, pro: 1_000_000 };

/** The workspace's included events per month; enterprise takes `max_events_per_month` of its policy, null (unlimited) when unset. */
export function includedEventsFor(plan: PlanId, overrides: ApiPolicyOverrides = {}): number | null {
  if (plan !== 'enterprise') return INCLUDED_EVENTS[plan];
  return overrides.max_events_per_month ?? null;
}

const PLAN_LIMITS: Record<Exclude<PlanId, 'enterprise'>, PlanLimits> = {
  free: { max_users: 1, max_sites: 3 },
  starter: { max_users: 3, max_sites: 10 },
  pro: { max_users: 10, max_sites: 50 },
};

/** The plan's seats and sites; enterprise takes its own from the overrides, unlimited when unset. */
export function planLimitsFor(plan: PlanId, overrides: ApiPolicyOverrides = {}): PlanLimits {
  if (plan !== 'enterprise') return { ...PLAN_LIMITS[plan] };
  return { max_users: overrides.max_users ?? null, max_sites: overrides.max_sites ?? null };
}

/** True when the plan lets tokens reach the API at all. */
export function hasApiAccess(policy: ApiPolicy): boolean {
  return policy.availability !== 'none';
}

/** Hourly intervals are a paid feature (starter and up). */
export function allowsHourly(plan: PlanId): boolean {
  return plan !== 'free';
}

/**
 * Validates an `--api-policy` object: only known keys, each of its type.
 * Returns the list of problems (empty when valid).
 */
export function validateApiPolicyOverrides(input: unknown): string[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return ['api policy must be a JSON object'];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    const kind = key === 'max_users' || key === 'max_sites' || key === 'max_events_per_month' ? 'integer|null' : API_POLICY_FIELDS[key as keyof ApiPolicy];
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
    if (!ok) problems.push(`api policy field "${key}" must be ${kind === 'availability' ? 'none|limited|standard|custom' : `a non-negative ${kind}`}`);
  }
  return problems;
}

export function runtimePlanId(plan: PlanId): RuntimePlanId {
  return plan === 'enterprise' ? 'pro' : plan;
}
