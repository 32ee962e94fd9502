// Who is calling, whichever way they came in (docs/product.md §7.7): a token (/v1), a person reading their
// workspace's dashboard, an embed (a parent token's grant with a forced site and tenant) or a share link
// (one site or tenant under the dashboard's rules). The pipeline and the services read only these
// members, never where they came from.
import { TOKEN_SCOPES, type AccessGrant } from '../domain/access.js';
import { dashboardPolicy } from '../domain/dashboard-policy.js';
import type { EmbedRoute } from '../domain/embeds.js';
import { apiPolicyFor, type ApiPolicy } from '../domain/plans.js';
import type { ReadPolicy } from '../domain/read-policy.js';
import type { Site, Workspace } from '../ports/catalog-store.js';
import type { RateWindow } from './rate-limit.js';

export type CallerKind = 'token' | 'person' | 'embed' | 'share';

/**
 * The one site (and tenant) an embed token or a share link reads: a request naming none reads them, one
 * naming another is refused like any site or tenant outside the grant; only routes with an embed name
 * (RouteDefinition.embed) are open to it, and of those the `routes` listed.
 */
export interface Seal {
  siteId: string;
  /** null: the whole site */
  tenantId: string | null;
  /** null: every embed route */
  routes: readonly EmbedRoute[] | null;
}

/** 'metered': units reserved and charged to the workspace; 'unmetered': units_charged 0 and nothing recorded. */
export type Metering = 'metered' | 'unmetered';

export interface Caller {
  kind: CallerKind;
  workspace: Workspace;
  /** the workspace's API policy in force: its units terms (meta.usage, the hard cap) and usage history, whoever calls */
  api: ApiPolicy;
  /** the scopes, sites and tenants it may read */
  grant: AccessGrant;
  /** the routes and limits of its reads: the API policy's (token, embed) or the dashboard's (person) */
  policy: ReadPolicy;
  metering: Metering;
  /** set for embeds and share links: what every read of theirs is sealed to */
  seal?: Seal;
}

/** What an authentication strategy makes of a request: the caller, and the window it counts against. */
export interface Admission {
  caller: Caller;
  /** null: not rate limited (a policy without a rate) */
  rate: RateWindow | null;
  /**
   * The site the request's site_id names, read with the caller (one statement with the token): null when
   * the caller's workspace has no such site. Absent: not read; the site rule reads it.
   */
  site?: { id: string; site: Site | null };
}

/** A person reading their workspace's dashboard: every site and tenant of it, the dashboard policy, unmetered. */
export function personCaller(workspace: Workspace): Caller {
  return {
    kind: 'person',
    workspace,
    api: apiPolicyFor(workspace.plan, workspace.apiPolicy),
    grant: { workspaceId: workspace.id, scopes: TOKEN_SCOPES, siteIds: null, tenantIds: null },
    policy: dashboardPolicy(workspace),
    metering: 'unmetered',
  };
}
