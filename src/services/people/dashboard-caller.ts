// Who a signed-in person is when they read a site's numbers through the dashboard (/app/api/v1/...):
// a member of the site's workspace, whatever their role, reads it as that workspace's person
// (caller.ts personCaller: the dashboard policy, not metered). For a site they may not see (another
// workspace's, or none at all) they are a caller that reads no site: its rules refuse nothing the
// pipeline checks before the site, so the parameters are checked as on /v1 and the request ends at the
// site check with the very 403 /v1 gives a site the token may not read. Nothing tells the two apart.
import { TOKEN_SCOPES } from '../../domain/access.js';
import { dashboardPolicy } from '../../domain/dashboard-policy.js';
import { apiPolicyFor } from '../../domain/plans.js';
import type { Workspace } from '../../ports/catalog-store.js';
import type { User } from '../../ports/people-store.js';
import { personCaller, type Caller } from '../caller.js';
import type { ManageDeps } from '../manage/access.js';

/** No workspace: the caller below reads in nobody's name (its reads end at the site check, unmetered). */
const NOBODY: Workspace = Object.freeze({ id: '', name: '', plan: 'enterprise', apiPolicy: {}, createdAt: '1970-01-01T00:00:00.000Z' });

/** A person reading a site that is not theirs: no site is readable; every surface and limit is open so only that refuses. */
const NO_SITE_CALLER: Caller = Object.freeze({
  kind: 'person',
  workspace: NOBODY,
  api: apiPolicyFor(NOBODY.plan, NOBODY.apiPolicy),
  grant: { workspaceId: NOBODY.id, scopes: TOKEN_SCOPES, siteIds: [], tenantIds: null },
  policy: { ...dashboardPolicy(NOBODY), retention_days: null, max_range_days: null },
  metering: 'unmetered',
});

/**
 * The caller of a dashboard read by `user` naming `siteId` (the raw query value: anything but one
 * string names no site).
 */
export async function dashboardCaller(deps: Pick<ManageDeps, 'catalog' | 'people'>, user: User, siteId: unknown): Promise<Caller> {
  if (typeof siteId !== 'string' || siteId === '') return NO_SITE_CALLER;
  const site = await deps.catalog.getSite(siteId);
  if (!site) return NO_SITE_CALLER;
  const role = await deps.people.getRole(site.workspaceId, user.id);
  if (role === null) return NO_SITE_CALLER;
  const workspace = await deps.catalog.getWorkspace(site.workspaceId);
  return workspace ? personCaller(workspace) : NO_SITE_CALLER;
}
