// Embed keys of a workspace (admins and owners). A key's secret is never stored: it is an HMAC of the key
// id under a control-plane secret, so it can be shown once at creation and derived again to verify a
// token, while the control plane holds nothing per key that would reveal it (docs/decisions/embeds-and-share-links.md
// "Embed key secrets"). Revoking a key refuses its tokens from the next request.
import { createHmac } from 'node:crypto';
import { EMBED_KEY_SECRET_PREFIX, normalizeOrigins } from '../../domain/embeds.js';
import { invalidField } from '../../domain/manage-errors.js';
import type { CatalogStore } from '../../ports/catalog-store.js';
import { controlSecret } from '../control-secret.js';
import type { EmbedKey, EmbedStore } from '../../ports/embed-store.js';
import { notFound, requireRole, type ManageDeps, type WorkspaceAccess } from '../manage/access.js';

export interface EmbedDeps extends ManageDeps {
  embeds: EmbedStore;
}

/** The name of the control-plane secret every embed key's secret is derived from. */
export const EMBED_KEY_MASTER_NAME = 'embed-key-master';

const master = (catalog: CatalogStore) => controlSecret(catalog, EMBED_KEY_MASTER_NAME);

/** The secret of an embed key: what its owner signs tokens with (HS256 takes its UTF-8 bytes as the key). */
export async function embedKeySecret(catalog: CatalogStore, keyId: string): Promise<string> {
  return (
    EMBED_KEY_SECRET_PREFIX +
    createHmac('sha256', await master(catalog))
      .update(`embed-key:${keyId}`)
      .digest('base64url')
  );
}

// The HMAC key a token of an embed key is verified with, imported once per key and process: its secret
// is fixed by the master and the key id, so this holds no state a revocation could outdate (the key's
// row is still read on every request). Filled only for keys found live, so bounded by the keys there are.
const verifyKeys = new WeakMap<CatalogStore, Map<string, Promise<CryptoKey>>>();
const MAX_VERIFY_KEYS = 10_000;

/** embedKeySecret's bytes as an HS256 verification key (what jose's jwtVerify takes). */
export function embedKeyVerifyKey(catalog: CatalogStore, keyId: string): Promise<CryptoKey> {
  const keys = verifyKeys.get(catalog) ?? new Map<string, Promise<CryptoKey>>();
  verifyKeys.set(catalog, keys);
  let key = keys.get(keyId);
  if (!key) {
    if (keys.size >= MAX_VERIFY_KEYS) keys.clear();
    key = embedKeySecret(catalog, keyId).then((secret) =>
      crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']),
    );
    key.catch(() => keys.delete(keyId));
    keys.set(keyId, key);
  }
  return key;
}

function origins(input: readonly string[]): string[] {
  try {
    return normalizeOrigins(input);
  } catch (err) {
    throw invalidField('origins', `${(err as Error).message}.`);
  }
}

export async function createEmbedKey(
  deps: EmbedDeps,
  access: WorkspaceAccess,
  input: { origins: readonly string[] },
): Promise<{ key: EmbedKey; secret: string }> {
  requireRole(access, 'admin');
  const key = await deps.embeds.createEmbedKey({ workspaceId: access.workspace.id, origins: origins(input.origins) });
  return { key, secret: await embedKeySecret(deps.catalog, key.id) };
}

export async function listEmbedKeys(deps: Pick<EmbedDeps, 'embeds'>, access: WorkspaceAccess): Promise<EmbedKey[]> {
  requireRole(access, 'admin');
  return deps.embeds.listEmbedKeys(access.workspace.id);
}

/** The key as the access may act on it: one of the access's workspace, else NOT_FOUND as for an unknown id. */
export async function embedKeyOf(deps: Pick<EmbedDeps, 'embeds'>, access: WorkspaceAccess, keyId: string): Promise<EmbedKey> {
  const key = await deps.embeds.getEmbedKey(keyId);
  if (!key || key.workspaceId !== access.workspace.id) throw notFound('embed key', keyId);
  return key;
}

export async function revokeEmbedKey(deps: EmbedDeps, access: WorkspaceAccess, keyId: string): Promise<EmbedKey> {
  requireRole(access, 'admin');
  const key = await embedKeyOf(deps, access, keyId);
  await deps.embeds.revokeEmbedKey(key.id, deps.clock.now().toISOString());
  return (await deps.embeds.getEmbedKey(key.id)) ?? key;
}
