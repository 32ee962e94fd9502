// Who is calling, whichever way they came in (docs/product.md §7.7): a token (/v1), a person reading their
// workspace's dashboard, or an embed (a parent token's grant with a forced site and tenant). The pipeline
// and the services read only these members, never where they came from.
import { TOKEN_SCOPES, type AccessGrant } from '../domain/access.js';
import { dashboardPolicy } from '../domain/dashboard-policy.js';
import { apiPolicyFor, type ApiPolicy } from '../domain/plans.js';
import type { ReadPolicy } from '../domain/read-policy.js';
import type { Workspace } from '../ports/catalog-store.js';
import type { RateWindow } from './rate-limit.js';

export type CallerKind = 'token' | 'person' | 'embed';

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
}

/** What an authentication strategy makes of a request: the caller, and the window it counts against. */
export interface Admission {
  caller: Caller;
  /** null: not rate limited (a policy without a rate) */
  rate: RateWindow | null;
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
