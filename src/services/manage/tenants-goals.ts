// Tenants and goals of a workspace's sites: everyone may list them (the dashboards' pickers and
// conversions); admins and owners create and change them, as the command line can.
import type { Goal, GoalPatch, Site, Tenant, TenantStatus } from '../../ports/catalog-store.js';
import { notFound, requireRole, type ManageDeps, type WorkspaceAccess } from './access.js';

/** The workspace's site of that id; a site of another workspace is as unknown as a missing one. */
async function siteOf(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess, siteId: string): Promise<Site> {
  const site = await deps.catalog.getSite(siteId);
  if (!site || site.workspaceId !== access.workspace.id) throw notFound('site', siteId);
  return site;
}

/** The sites a list covers: one of the workspace's, or all of them. */
async function sitesOf(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess, siteId: string | undefined): Promise<Site[]> {
  return siteId === undefined ? deps.catalog.listSites(access.workspace.id) : [await siteOf(deps, access, siteId)];
}

export async function listTenants(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess, siteId?: string): Promise<Tenant[]> {
  requireRole(access, 'viewer');
  const sites = await sitesOf(deps, access, siteId);
  return (await Promise.all(sites.map((s) => deps.catalog.listTenants(s.id)))).flat();
}

export async function createTenant(
  deps: Pick<ManageDeps, 'catalog'>,
  access: WorkspaceAccess,
  input: { siteId: string; slug: string; name: string; status?: TenantStatus },
): Promise<Tenant> {
  requireRole(access, 'admin');
  await siteOf(deps, access, input.siteId);
  return deps.catalog.createTenant(input);
}

export async function updateTenant(
  deps: Pick<ManageDeps, 'catalog'>,
  access: WorkspaceAccess & { tenant: Tenant },
  patch: { slug?: string; name?: string; status?: TenantStatus },
): Promise<Tenant> {
  requireRole(access, 'admin');
  return deps.catalog.updateTenant(access.tenant.id, patch);
}

export async function listGoals(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess, siteId?: string): Promise<Goal[]> {
  requireRole(access, 'viewer');
  const sites = await sitesOf(deps, access, siteId);
  return (await Promise.all(sites.map((s) => deps.catalog.listGoals(s.id)))).flat();
}

export async function createGoal(
  deps: Pick<ManageDeps, 'catalog'>,
  access: WorkspaceAccess,
  input: Omit<Goal, 'id' | 'workspaceId' | 'createdAt' | 'updatedAt'>,
): Promise<Goal> {
  requireRole(access, 'admin');
  await siteOf(deps, access, input.siteId);
  return deps.catalog.createGoal(input);
}

export async function updateGoal(
  deps: Pick<ManageDeps, 'catalog'>,
  access: WorkspaceAccess & { goal: Goal },
  patch: GoalPatch,
): Promise<Goal> {
  requireRole(access, 'admin');
  return deps.catalog.updateGoal(access.goal.id, patch);
}

export async function deleteGoal(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess & { goal: Goal }): Promise<void> {
  requireRole(access, 'admin');
  if (!(await deps.catalog.deleteGoal(access.goal.id))) throw notFound('goal', access.goal.id);
}
