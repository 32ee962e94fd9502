// Rows of the control-plane tables as the CatalogStore port's records.
import type { Selectable } from 'kysely';
import type { Goal, GoalFilters, Site, SiteStatus, Tenant, TenantStatus, Token, Workspace } from '../ports/catalog-store.js';
import type { PlanId, Profile } from '../domain/plans.js';
import type { TokenScope } from '../domain/access.js';
import type { GoalsTable, SitesTable, TenantsTable, TokensTable, WorkspacesTable } from './schema.js';

export function toWorkspace(r: Selectable<WorkspacesTable>): Workspace {
  return { id: r.id, name: r.name, plan: r.plan as PlanId, apiPolicy: JSON.parse(r.api_policy), createdAt: r.created_at };
}

export function toSite(r: Selectable<SitesTable>, hostnames: string[]): Site {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    name: r.name,
    hostnames,
    status: r.status as SiteStatus,
    collectionProfile: r.collection_profile as Profile,
    profileEffectiveAt: r.profile_effective_at,
    createdAt: r.created_at,
    timezone: r.timezone,
  };
}

export function toTenant(r: Selectable<TenantsTable>): Tenant {
  return { id: r.id, siteId: r.site_id, slug: r.slug, name: r.name, status: r.status as TenantStatus, createdAt: r.created_at };
}

export function toGoal(r: Selectable<GoalsTable>): Goal {
  return {
    id: r.id,
    siteId: r.site_id,
    workspaceId: r.workspace_id,
    name: r.name,
    type: r.type as Goal['type'],
    intent: r.intent as Goal['intent'],
    pattern: r.pattern,
    filters: JSON.parse(r.filters) as GoalFilters,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/**
 * A token of its row. `name` may be left out of the columns read (authentication's one read,
 * admission-reads.ts, does not need it): the token then reads as unnamed.
 */
export function toToken(r: Omit<Selectable<TokensTable>, 'name'> & { name?: string | null }): Token {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    name: r.name ?? null,
    scopes: JSON.parse(r.scopes) as TokenScope[],
    siteIds: r.site_ids === null ? null : (JSON.parse(r.site_ids) as string[]),
    tenantIds: r.tenant_ids === null ? null : (JSON.parse(r.tenant_ids) as string[]),
    revokedAt: r.revoked_at,
    rotatedAt: r.rotated_at,
    createdAt: r.created_at,
  };
}
