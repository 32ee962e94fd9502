// The dashboard policy (docs/product.md §7.7): the read rules of a person reading their workspace's
// dashboard, from the plan's packaging (product.dashboard, exports.csv) and its public retention target.
// Every plan, free included, reads its own surfaces; the API policy plays no part but for an enterprise
// workspace's retention. Pure.
import type { ApiPolicy, PlanId } from './plans.js';
import { DASHBOARD_SURFACES, type DashboardSurface } from './plans.js';
import { workspaceProduct, type ProductRetention } from './product.js';
import { surfaceMessage, type DashboardReadPolicy } from './read-policy.js';

/** Rows a dashboard breakdown or report top list may ask for, per plan. */
export const DASHBOARD_ROW_LIMITS: Readonly<Record<PlanId, number>> = { free: 100, starter: 500, pro: 2000, enterprise: 2000 };

const DAYS_PER_MONTH = 365 / 12;

export function dashboardPolicy(workspace: { plan: PlanId; apiPolicy: Partial<ApiPolicy> }): DashboardReadPolicy {
  const product = workspaceProduct(workspace);
  const surfaces = DASHBOARD_SURFACES.filter((s) => product.dashboard.enabled_surfaces.includes(s));
  const retention = retentionTargetDays(product.product_retention.workspace_retention, product.api.retention_days);
  const rows = DASHBOARD_ROW_LIMITS[workspace.plan];
  return {
    kind: 'dashboard',
    surfaces,
    retention_days: retention,
    max_range_days: retention,
    max_breakdown_limit: rows,
    max_report_limit: rows,
    hourly: product.dashboard.hourly_enabled,
    tenant_dimension: surfaces.includes('tenants'),
    csv: product.exports.csv,
  };
}

/**
 * The plan's public retention target in days: a fixed one in days as it is, in months as 365/12 days each
 * (13 months = 395 days, 24 months = 730 days); a custom one (enterprise) is the API policy's
 * retention_days, null meaning none.
 */
export function retentionTargetDays(target: ProductRetention['workspace_retention'], apiRetentionDays: number | null): number | null {
  if (target.kind === 'custom' || target.value === undefined) return apiRetentionDays;
  return target.unit === 'months' ? Math.round(target.value * DAYS_PER_MONTH) : target.value;
}

/** null when the policy opens `surface` (null: a read every dashboard may make), else the 403 message. */
export function surfaceRefusal(policy: Pick<DashboardReadPolicy, 'surfaces'>, surface: DashboardSurface | null): string | null {
  return surface === null || policy.surfaces.includes(surface) ? null : surfaceMessage(surface);
}
