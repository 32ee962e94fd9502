// Access decisions of the read API (docs/api.md "Authentication", docs/product.md §7). Pure: callers pass the facts.
import { hasApiAccess, type ApiPolicy } from './plans.js';

/** What a token can be granted, in the order lists show them. */
export const TOKEN_SCOPES = ['metrics:read', 'usage:read'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/**
 * Route families the plan gates. `me`, `sites`, `usage` and `metrics` are open to every plan
 * with API access; the others need their api.allow_* switch.
 */
export type RouteFamily = 'me' | 'sites' | 'usage' | 'metrics' | 'reports' | 'goals' | 'tenants';

/** What a route accepts: any one of these scopes grants it. */
export function scopeGrants(held: readonly string[], accepted: readonly TokenScope[]): boolean {
  return accepted.some((s) => held.includes(s));
}

/** The api policy switches that open a part of the API. */
export type PolicySwitch = 'allow_reports' | 'allow_goals' | 'allow_tenants' | 'allow_tenant_dimension';

/** The switch that opens each gated family; the other families are open to every plan with API access. */
export const FAMILY_SWITCHES: Partial<Record<RouteFamily, PolicySwitch>> = {
  reports: 'allow_reports',
  goals: 'allow_goals',
  tenants: 'allow_tenants',
};

/** Whether the active API policy opens this route family. */
export function familyAllowed(family: RouteFamily, policy: ApiPolicy): boolean {
  if (!hasApiAccess(policy)) return false;
  const flag = FAMILY_SWITCHES[family];
  return flag === undefined || policy[flag];
}

/**
 * What a caller may read, whichever way it came in: a token's own scopes and allowlists, every site and
 * tenant of the workspace for a person reading its dashboard, a parent token's with a forced site and
 * tenant for an embed.
 */
export interface AccessGrant {
  workspaceId: string;
  scopes: readonly TokenScope[];
  /** null = every site of the workspace */
  siteIds: readonly string[] | null;
  /** null = every tenant */
  tenantIds: readonly string[] | null;
}

type SiteGrant = Pick<AccessGrant, 'workspaceId' | 'siteIds'>;

/**
 * A site is readable when it exists, belongs to the grant's workspace and passes the allowlist.
 * The three failures are deliberately indistinguishable to the caller.
 */
export function canReadSite(grant: SiteGrant, site: { id: string; workspaceId: string } | null): boolean {
  if (!site || site.workspaceId !== grant.workspaceId) return false;
  return grant.siteIds === null || grant.siteIds.includes(site.id);
}

/** A tenant is readable when it belongs to the (already readable) site and passes the allowlist. */
export function canReadTenant(
  grant: Pick<AccessGrant, 'tenantIds'>,
  siteId: string,
  tenant: { id: string; siteId: string } | null,
): boolean {
  if (!tenant || tenant.siteId !== siteId) return false;
  return grant.tenantIds === null || grant.tenantIds.includes(tenant.id);
}

/** Rate limit per token in any trailing 60 s (docs/product.md §7.4); null when the policy sets no rate. */
export function rateLimitPerWindow(policy: ApiPolicy): number | null {
  return policy.rate_limit_rps === null ? null : policy.rate_limit_rps * 60;
}

export const RATE_WINDOW_MS = 60_000;
