// Bearer token -> caller. Looked up in the store on every request (no cache), so a revocation
// takes effect on the very next request.
import { apiPolicyFor } from '../domain/plans.js';
import { ApiError } from '../domain/errors.js';
import { hashSecret, looksLikeSecret } from '../domain/tokens.js';
import type { CatalogStore } from '../ports/catalog-store.js';
import type { Caller } from './caller.js';

const BEARER = /^Bearer ([^\s]+)$/i;

export async function authenticate(catalog: CatalogStore, authorization: string | undefined): Promise<Caller> {
  const secret = authorization ? BEARER.exec(authorization.trim())?.[1] : undefined;
  // A malformed secret costs no store lookup.
  if (!secret || !looksLikeSecret(secret)) throw new ApiError('UNAUTHORIZED');
  const token = await catalog.findTokenByHash(hashSecret(secret));
  if (!token || token.revokedAt !== null) throw new ApiError('UNAUTHORIZED');
  const workspace = await catalog.getWorkspace(token.workspaceId);
  if (!workspace) throw new ApiError('UNAUTHORIZED');
  return { token, workspace, policy: apiPolicyFor(workspace.plan, workspace.apiPolicy) };
}
