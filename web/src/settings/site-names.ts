// The workspace's sites by id, for the sections whose rows name a site (tenants, goals, tokens).
import type { SiteRecord } from '../api/manage-types.js';
import { useManaged } from './kit.js';

export function useSites(workspaceId: string): { sites: SiteRecord[]; name(id: string): string } {
  const listed = useManaged('/workspaces/{workspace_id}/sites', { path: { workspace_id: workspaceId } });
  const sites = listed.result?.ok ? listed.result.data.sites : [];
  return { sites, name: (id) => sites.find((s) => s.site_id === id)?.name ?? id };
}
