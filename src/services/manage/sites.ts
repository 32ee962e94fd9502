// Sites of a workspace: everyone may list them (the dashboards need them); admins and owners create
// and change them, and verify their domain scope. The plan's site limit is kept by the store, under a
// workspace lock; the ownership rules (scopes, patterns, proofs) by the store and verify-site.ts.
import type { CatalogStore, DomainProof, NewSite, Site, SiteOwnership, SitePatch } from '../../ports/catalog-store.js';
import type { DnsTxtResolver } from '../../ports/dns-txt-resolver.js';
import { verifySite, type SiteVerification } from '../ownership/verify-site.js';
import { notFound, requireRole, type ManageDeps, type WorkspaceAccess } from './access.js';

/** What a new site is made of: the store's createSite input but for the workspace, which the access names. */
export type SiteInput = Omit<NewSite, 'workspaceId'>;

export type { SitePatch };

/** A site with what it asks for beyond its exact hostnames, and where each proof stands. */
export interface SiteView {
  site: Site;
  ownership: SiteOwnership;
}

/** A site that asks for nothing beyond its exact hostnames. */
const noOwnership = (site: Site): SiteOwnership => ({
  siteId: site.id,
  workspaceId: site.workspaceId,
  domainScope: null,
  hostnamePatterns: [],
  domains: [],
  releasedHostnames: [],
});

/** Every site of the workspace with its ownership, in listSites order. */
export async function siteViews(catalog: Pick<CatalogStore, 'listSites' | 'listSiteOwnership'>, workspaceId: string): Promise<SiteView[]> {
  const [sites, ownership] = await Promise.all([catalog.listSites(workspaceId), catalog.listSiteOwnership(workspaceId)]);
  const of = new Map(ownership.map((o) => [o.siteId, o]));
  return sites.map((site) => ({ site, ownership: of.get(site.id) ?? noOwnership(site) }));
}

async function viewOf(catalog: Pick<CatalogStore, 'getSiteOwnership'>, site: Site): Promise<SiteView> {
  const ownership = await catalog.getSiteOwnership(site.id);
  if (!ownership) throw notFound('site', site.id);
  return { site, ownership };
}

/** The proof of the site's domain scope: the TXT record to publish, and whether it is proven. */
export function scopeProof(ownership: SiteOwnership): DomainProof | undefined {
  return ownership.domainScope === null ? undefined : ownership.domains.find((d) => d.domain === ownership.domainScope);
}

export async function listSites(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess): Promise<SiteView[]> {
  requireRole(access, 'viewer');
  return siteViews(deps.catalog, access.workspace.id);
}

/** One site as a member of its workspace sees it, whatever their role (the dashboard's frame reads it). */
export async function getSite(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess & { site: Site }): Promise<SiteView> {
  requireRole(access, 'viewer');
  return viewOf(deps.catalog, access.site);
}

export async function createSite(deps: Pick<ManageDeps, 'catalog'>, access: WorkspaceAccess, input: SiteInput): Promise<SiteView> {
  requireRole(access, 'admin');
  const site = await deps.catalog.createSite({
    workspaceId: access.workspace.id,
    ...input,
    profileEffectiveAt: input.profileEffectiveAt ?? null,
  });
  return viewOf(deps.catalog, site);
}

/** A profile change is prospective, as on the command line (the store refuses an effective-at in the past). */
export async function updateSite(
  deps: Pick<ManageDeps, 'catalog'>,
  access: WorkspaceAccess & { site: Site },
  patch: SitePatch,
): Promise<SiteView> {
  requireRole(access, 'admin');
  return viewOf(deps.catalog, await deps.catalog.updateSite(access.site.id, patch));
}

/** Looks the site's TXT record up now (admins and owners): verify-site.ts, as `footfall site verify`. */
export async function verifySiteDomain(
  deps: Pick<ManageDeps, 'catalog'> & { dns: DnsTxtResolver },
  access: WorkspaceAccess & { site: Site },
): Promise<SiteVerification> {
  requireRole(access, 'admin');
  return verifySite({ catalog: deps.catalog, dns: deps.dns }, access.site.id);
}
