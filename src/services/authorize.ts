// Plan, scope and route-family (or dashboard surface) gates, then site and tenant access (docs/product.md §7).
import { canReadSite, canReadTenant, familyAllowed, scopeGrants, type RouteFamily, type TokenScope } from '../domain/access.js';
import { surfaceRefusal } from '../domain/dashboard-policy.js';
import { hasApiAccess } from '../domain/plans.js';
import { apiAccessRefusal, familyRefusal } from '../domain/plan-refusals.js';
import type { DashboardSurface } from '../domain/plans.js';
import type { EmbedRoute } from '../domain/embeds.js';
import { CSV_REFUSAL } from '../domain/read-policy.js';
import { ApiError, siteForbidden, tenantForbidden } from '../domain/errors.js';
import type { CatalogStore, Site, Tenant } from '../ports/catalog-store.js';
import type { Caller } from './caller.js';

/** What a route declares for the gates: its API family and scopes, and the dashboard surface it draws. */
export interface RouteGate {
  family: RouteFamily;
  scopes: readonly TokenScope[];
  /** null: a read every dashboard may make (the caller's workspace, its sites, its usage) */
  surface: DashboardSurface | null;
  /** the embed name of the route; absent: no embed token or share link reads it */
  embed?: EmbedRoute;
}

/**
 * 403 FORBIDDEN unless the caller's rules open the route: a sealed caller (embed, share) only its routes;
 * under the API policy, API access, then the scope, then the family; under the dashboard policy, the
 * scope, then the surface. Then CSV, when asked.
 */
export function authorizeRoute(caller: Caller, route: RouteGate, asked: { csv: boolean } = { csv: false }): void {
  const policy = caller.policy;
  const seal = caller.seal;
  if (seal && (route.embed === undefined || (seal.routes !== null && !seal.routes.includes(route.embed))))
    throw new ApiError(
      'FORBIDDEN',
      `This embed reads only ${seal.routes === null ? 'the reports, metrics and goals of its site' : `these routes: ${seal.routes.join(', ')}`}.`,
    );
  const plan = caller.workspace.plan;
  if (policy.kind === 'api' && !hasApiAccess(caller.api)) throw new ApiError('FORBIDDEN', apiAccessRefusal(plan));
  if (!scopeGrants(caller.grant.scopes, route.scopes))
    throw new ApiError('FORBIDDEN', `The token lacks the scope this endpoint needs (${route.scopes.join(' or ')}).`);
  const refusal =
    policy.kind === 'api'
      ? familyAllowed(route.family, caller.api)
        ? null
        : familyRefusal(plan, route.family)
      : surfaceRefusal(policy, route.surface);
  if (refusal !== null) throw new ApiError('FORBIDDEN', refusal);
  if (asked.csv && !policy.csv) throw new ApiError('FORBIDDEN', CSV_REFUSAL);
}

export interface SiteAccessOptions {
  /** 'reject' answers 409 SITE_INACTIVE for a SUSPENDED site */
  inactive: 'reject' | 'allow';
  /** a tenant-restricted token must name one of its tenants */
  tenantRequiredForRestrictedToken: boolean;
  /** the site already read with the caller (Admission.site): used when it is the one asked for */
  known?: { id: string; site: Site | null };
}

/**
 * Resolves site_id and tenant_id for the caller. Unknown, foreign, not-allowed and malformed ids all
 * get the same 403 body (one for sites, one for tenants), so no caller learns whether an id exists.
 */
export async function resolveSiteAccess(
  catalog: CatalogStore,
  caller: Caller,
  siteId: string,
  tenantId: string | undefined,
  options: SiteAccessOptions,
): Promise<{ site: Site; tenant: Tenant | null }> {
  const site = options.known?.id === siteId ? options.known.site : await catalog.getSite(siteId);
  if (!site || !canReadSite(caller.grant, site)) throw siteForbidden();
  let tenant: Tenant | null = null;
  if (tenantId !== undefined) {
    tenant = await catalog.getTenant(tenantId);
    if (!canReadTenant(caller.grant, site.id, tenant)) throw tenantForbidden();
  } else if (options.tenantRequiredForRestrictedToken && caller.grant.tenantIds !== null) {
    // Says what is missing, not which tenants exist: GET /v1/tenants lists the token's own.
    throw new ApiError('FORBIDDEN', 'This token is restricted to tenants: tenant_id is required (GET /v1/tenants lists them).', {
      parameter: 'tenant_id',
    });
  }
  if (options.inactive === 'reject' && site.status === 'SUSPENDED') throw new ApiError('SITE_INACTIVE');
  return { site, tenant };
}
