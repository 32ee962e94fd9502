// Sites of a workspace: everyone may list them (the dashboards need them); admins and owners create
// and change them. The plan's site limit is kept by the store, under a workspace lock.
import type { Profile } from '../../domain/plans.js';
import type { Site, SiteStatus } from '../../ports/catalog-store.js';
import { requireRole, type ManageDeps, type WorkspaceAccess } from './access.js';

export interface SiteInput {
  name: string;
  hostnames: string[];
  collectionProfile: Profile;
  profileEffectiveAt?: string | null;
  status?: SiteStatus;
}

export type SitePatch = { name?: string; hostnames?: string[]; status?: SiteStatus; collectionProfile?: Profile; profileEffectiveAt?: string };

export async function listSites(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess): Promise<Site[]> {
  requireRole(access, 'viewer');
  return deps.catalog.listSites(access.workspace.id);
}

export async function createSite(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess, input: SiteInput): Promise<Site> {
  requireRole(access, 'admin');
  return deps.catalog.createSite({ workspaceId: access.workspace.id, ...input, profileEffectiveAt: input.profileEffectiveAt ?? null });
}

/** A profile change is prospective, as on the command line (the store refuses an effective-at in the past). */
export async function updateSite(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess & { site: Site }, patch: SitePatch): Promise<Site> {
  requireRole(access, 'admin');
  return deps.catalog.updateSite(access.site.id, patch);
}
