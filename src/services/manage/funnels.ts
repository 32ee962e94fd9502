// Saved funnels of a workspace's sites: everyone may list them (the dashboard's funnel picker, embeds
// asking by funnel_id); admins and owners create, change and delete them, as the command line can.
import type { FunnelStep } from '../../domain/funnels.js';
import type { Funnel } from '../../ports/catalog-store.js';
import { notFound, requireRole, type ManageDeps, type WorkspaceAccess } from './access.js';

async function siteOf(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess, siteId: string) {
  const site = await deps.catalog.getSite(siteId);
  // a site of another workspace is as unknown as a missing one
  if (!site || site.workspaceId !== access.workspace.id) throw notFound('site', siteId);
  return site;
}

export async function listFunnels(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess, siteId?: string): Promise<Funnel[]> {
  requireRole(access, 'viewer');
  const sites = siteId === undefined ? await deps.catalog.listSites(access.workspace.id) : [await siteOf(deps, access, siteId)];
  return (await Promise.all(sites.map((s) => deps.catalog.listFunnels(s.id)))).flat();
}

export async function createFunnel(
  deps: Pick<ManageDeps, 'catalog'>,
  access: WorkspaceAccess,
  input: { siteId: string; name: string; steps: FunnelStep[] },
): Promise<Funnel> {
  requireRole(access, 'admin');
  await siteOf(deps, access, input.siteId);
  return deps.catalog.createFunnel(input);
}

export async function updateFunnel(
  deps: Pick<ManageDeps, 'catalog'>,
  access: WorkspaceAccess & { funnel: Funnel },
  patch: { name?: string; steps?: FunnelStep[] },
): Promise<Funnel> {
  requireRole(access, 'admin');
  return deps.catalog.updateFunnel(access.funnel.id, patch);
}

export async function deleteFunnel(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess & { funnel: Funnel }): Promise<void> {
  requireRole(access, 'admin');
  if (!(await deps.catalog.deleteFunnel(access.funnel.id))) throw notFound('funnel', access.funnel.id);
}
