// The rules one read runs under, whichever way it came in (docs/product.md §7.7): the plan's API policy for
// a token (and an embed), the plan's dashboard policy (dashboard-policy.ts) for a person reading their
// workspace's dashboard. Routes and services read the limits here, never the plan, so that one route
// definition serves every way in. Pure.
import { allowsHourly, exportsOf, type ApiPolicy, type DashboardSurface, type PlanId } from './plans.js';
import { switchRefusal } from './plan-refusals.js';

interface ReadLimits {
  /** readable days back from today; null = no limit */
  retention_days: number | null;
  /** the longest range in days; null = no limit */
  max_range_days: number | null;
  max_breakdown_limit: number;
  max_report_limit: number;
  /** interval=hour */
  hourly: boolean;
  /** dimension=tenant */
  tenant_dimension: boolean;
  /** text/csv answers, on the routes that offer them */
  csv: boolean;
}

/** A token's reads: routes gated by the API policy's families and the token's scopes. */
export interface ApiReadPolicy extends ReadLimits {
  kind: 'api';
  /** whose policy it is: refusals name the plan that decides them */
  plan: PlanId;
}

/** A person's dashboard reads: routes gated by the plan's dashboard surfaces. */
export interface DashboardReadPolicy extends ReadLimits {
  kind: 'dashboard';
  surfaces: readonly DashboardSurface[];
}

export type ReadPolicy = ApiReadPolicy | DashboardReadPolicy;

/** The read rules of a token of a workspace on `plan` under the API policy `api`. */
export function apiReadPolicy(plan: PlanId, api: ApiPolicy): ApiReadPolicy {
  return {
    kind: 'api',
    plan,
    retention_days: api.retention_days,
    max_range_days: api.max_range_days,
    max_breakdown_limit: api.max_breakdown_limit,
    max_report_limit: api.max_report_limit,
    hourly: allowsHourly(plan),
    tenant_dimension: api.allow_tenant_dimension,
    csv: exportsOf(plan).csv,
  };
}

/** How messages name the breakdown limit: the API policy's field, or the dashboard's. */
export function breakdownLimitName(policy: ReadPolicy): string {
  return policy.kind === 'api' ? 'api.max_breakdown_limit' : "the plan's dashboard limit";
}

/** How RETENTION_EXCEEDED messages name the retention in force. */
export function retentionName(policy: ReadPolicy): string {
  return policy.kind === 'api' ? 'the API retention' : "the plan's dashboard retention";
}

/** The 403 message of dimension=tenant where the rules do not open it. */
export function tenantDimensionRefusal(policy: ReadPolicy): string {
  if (policy.kind === 'api') return switchRefusal(policy.plan, 'allow_tenant_dimension');
  return surfaceMessage('tenants', 'the breakdown by tenant');
}

/** The 403 message for a surface the plan does not open: the page shows it as an upgrade note. */
export function surfaceMessage(surface: DashboardSurface, what?: string): string {
  return (
    `The plan does not include the dashboard's ${surface} surface${what ? ` (${what})` : ''}: ` +
    "the workspace's plan decides which surfaces its dashboard reads."
  );
}

export const HOURLY_REFUSAL = 'The plan does not include the hourly interval.';
export const CSV_REFUSAL = 'The plan does not include CSV exports (exports.csv); ask for application/json, or change the plan.';
