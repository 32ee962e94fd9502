// An embed token -> caller (docs/product.md §7.8). The token is a JWT (HS256) its workspace's backend
// signed with an embed key; it names a parent API token of the same workspace, a site and maybe a tenant.
// Its signature is verified with jose (once per token text, see verifiedPayload), its claims against the
// clock on every request, and the key and the parent are looked up every time (no cache), so revoking
// either refuses the token from the next request, and rotating the parent refuses the tokens minted before. The caller is the parent's (its plan, its
// scopes, metered to the workspace, counted in the parent's rate window) narrowed to the site and tenant.
import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { checkEmbedClaims, EXPIRED_EMBED_TOKEN } from '../../domain/embeds.js';
import { ApiError } from '../../domain/errors.js';
import { isStorableText } from '../../domain/storable-text.js';
import type { CatalogStore } from '../../ports/catalog-store.js';
import type { Clock } from '../../domain/clock.js';
import type { EmbedStore } from '../../ports/embed-store.js';
import { tokenAdmission } from '../authenticate.js';
import type { Admission } from '../caller.js';
import { embedKeyVerifyKey } from './embed-keys.js';

export interface EmbedAdmissionDeps {
  catalog: CatalogStore;
  embeds?: EmbedStore;
  clock: Clock;
}

const refuse = (message: string) => new ApiError('UNAUTHORIZED', message);

/** The caller of an embed token (a compact JWS already recognized by its shape); 401 or 403 otherwise. */
export async function admitEmbedToken(deps: EmbedAdmissionDeps, jwt: string): Promise<Admission> {
  if (!deps.embeds) throw refuse('This server does not take embed tokens.');
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(jwt).kid;
  } catch {
    throw refuse('The embed token is not a valid JWT.');
  }
  if (typeof kid !== 'string' || kid.length === 0 || kid.length > 100)
    throw refuse('The embed token has no kid header: set it to the embed key id.');
  const key = isStorableText(kid) ? await deps.embeds.getEmbedKey(kid) : null;
  if (!key || key.revokedAt !== null) throw refuse('The embed key named by the token (kid) is unknown or revoked.');
  const now = deps.clock.now();
  const payload = await verifiedPayload(deps.catalog, key.id, jwt, now);
  const claims = checkEmbedClaims(payload, Math.floor(now.getTime() / 1000));
  if ('problem' in claims) throw refuse(claims.problem.endsWith('.') ? claims.problem : `The embed token is not valid: ${claims.problem}.`);
  const parent = await deps.catalog.getToken(claims.tokenId);
  // A parent of another workspace than the key's is as unknown as a missing one.
  if (!parent || parent.revokedAt !== null || parent.workspaceId !== key.workspaceId)
    throw refuse("The parent token of the embed token (token_id) is unknown, revoked, or not of the embed key's workspace.");
  // Rotating the parent cuts every embed token minted before it (to the second: iat has no finer grain),
  // so a leaked embed token is ended without revoking the parent or the key that every embed uses.
  if (parent.rotatedAt !== null && claims.iat < Math.floor(Date.parse(parent.rotatedAt) / 1000))
    throw refuse('The embed token was issued before its parent token (token_id) was rotated: mint a new one.');
  const workspace = await deps.catalog.getWorkspace(parent.workspaceId);
  if (!workspace) throw refuse('The parent token of the embed token (token_id) is unknown.');
  // What the parent may not read, the embed may not either: refused here, before anything is counted.
  if (parent.siteIds !== null && !parent.siteIds.includes(claims.siteId))
    throw new ApiError('FORBIDDEN', 'The parent token may not read the site of the embed token.');
  if (parent.tenantIds !== null) {
    if (claims.tenantId === null)
      throw new ApiError('FORBIDDEN', 'The parent token is restricted to tenants: the embed token needs a tenant_id claim.', {
        parameter: 'tenant_id',
      });
    if (!parent.tenantIds.includes(claims.tenantId))
      throw new ApiError('FORBIDDEN', 'The parent token may not read the tenant of the embed token.');
  }
  const { caller, rate } = tokenAdmission(parent, workspace);
  return {
    caller: {
      ...caller,
      kind: 'embed',
      grant: {
        ...caller.grant,
        siteIds: [claims.siteId],
        tenantIds: claims.tenantId === null ? caller.grant.tenantIds : [claims.tenantId],
      },
      seal: { siteId: claims.siteId, tenantId: claims.tenantId, routes: claims.routes },
    },
    // the parent's own window: an embed is no way around its parent's rate
    rate,
  };
}

// Tokens whose signature jose has already verified, by their exact text, per control plane (whose master
// fixes every key's secret): an embed repeats one token for its whole life, and checking the same bytes
// under the same immutable key again says nothing new, while it is most of what an embed read costs on
// top of its parent's. Only successes are kept (a forger fills nothing), at most VERIFIED_MAX, oldest
// out first. The key and the parent are still read on every request, and the claims (exp, iat) are
// checked against the clock on every request by checkEmbedClaims; a token with nbf is never kept.
const VERIFIED_MAX = 10_000;
const verifiedTokens = new WeakMap<CatalogStore, Map<string, Record<string, unknown>>>();

async function verifiedPayload(catalog: CatalogStore, keyId: string, jwt: string, now: Date): Promise<Record<string, unknown>> {
  const verified = verifiedTokens.get(catalog) ?? new Map<string, Record<string, unknown>>();
  verifiedTokens.set(catalog, verified);
  const known = verified.get(jwt);
  if (known) return known;
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(jwt, await embedKeyVerifyKey(catalog, keyId), { algorithms: ['HS256'], currentDate: now }));
  } catch (err) {
    if (err instanceof errors.JWTExpired) throw refuse(EXPIRED_EMBED_TOKEN);
    if (err instanceof errors.JOSEAlgNotAllowed) throw refuse('The embed token must be signed with HS256.');
    if (err instanceof errors.JWSSignatureVerificationFailed)
      throw refuse('The embed token is not signed with the secret of its embed key.');
    if (err instanceof errors.JOSEError) throw refuse(`The embed token is not valid: ${err.message}.`);
    throw err;
  }
  if (payload.nbf === undefined) {
    if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
    verified.set(jwt, payload);
  }
  return payload;
}
