// Bearer token -> caller. Looked up in the store on every request (no cache), so a revocation
// takes effect on the very next request.
import { RATE_WINDOW_MS, rateLimitPerWindow } from '../domain/access.js';
import { apiPolicyFor } from '../domain/plans.js';
import { ApiError } from '../domain/errors.js';
import { apiReadPolicy } from '../domain/read-policy.js';
import { hashSecret, looksLikeSecret } from '../domain/tokens.js';
import type { CatalogStore, Token, Workspace } from '../ports/catalog-store.js';
import type { Admission } from './caller.js';

const BEARER = /^Bearer ([^\s]+)$/i;

/** The credential of an `Authorization: Bearer <credential>` header; undefined for anything else. */
export function bearerOf(authorization: string | undefined): string | undefined {
  return authorization ? BEARER.exec(authorization.trim())?.[1] : undefined;
}

/**
 * The token's caller: its grant, its plan's API policy, metered; rate-counted per token (docs/product.md
 * §7.4). With `siteId` (the request's site_id), the site is read in the same statement as the token.
 */
export async function authenticate(catalog: CatalogStore, authorization: string | undefined, siteId?: string): Promise<Admission> {
  const secret = bearerOf(authorization);
  // A malformed secret costs no store lookup.
  if (!secret || !looksLikeSecret(secret)) throw new ApiError('UNAUTHORIZED');
  const hash = hashSecret(secret);
  if (siteId === undefined) {
    const found = live(await catalog.findTokenWithWorkspace(hash));
    return tokenAdmission(found.token, found.workspace);
  }
  const found = live(await catalog.findTokenWithWorkspace(hash, siteId));
  return { ...tokenAdmission(found.token, found.workspace), site: { id: siteId, site: found.site } };
}

/** The token found, unless there is none or it is revoked: then 401, the same answer for both. */
function live<F extends { token: Token }>(found: F | null): F {
  if (!found || found.token.revokedAt !== null) throw new ApiError('UNAUTHORIZED');
  return found;
}

/** What a live token of `workspace` may do, and the window it counts against: an embed's parent is read the same way. */
export function tokenAdmission(token: Token, workspace: Workspace): Admission {
  const api = apiPolicyFor(workspace.plan, workspace.apiPolicy);
  const limit = rateLimitPerWindow(api);
  return {
    caller: {
      kind: 'token',
      workspace,
      api,
      grant: { workspaceId: token.workspaceId, scopes: token.scopes, siteIds: token.siteIds, tenantIds: token.tenantIds },
      policy: apiReadPolicy(workspace.plan, api),
      metering: 'metered',
    },
    rate: limit === null ? null : { key: `token:${token.id}`, limit, windowMs: RATE_WINDOW_MS },
  };
}
