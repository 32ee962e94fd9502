// Embed keys and tokens for the HTTP tests. Tokens are minted with jsonwebtoken, a JWT library other
// than the one the server verifies with (jose), as a SaaS backend would mint them.
import jwt from 'jsonwebtoken';
import { OPERATOR, siteAccess, workspaceAccess } from '../../../src/services/manage/access.js';
import { createEmbedKey } from '../../../src/services/embeds/embed-keys.js';
import { createShareLink } from '../../../src/services/embeds/share-links.js';
import { TEST_HASHER, type Harness } from './harness.js';

export interface TestEmbedKey {
  id: string;
  secret: string;
}

/** A new embed key of the workspace, as `footfall embed-key create` makes it. */
export async function embedKey(h: Harness, workspaceId: string, origins: string[] = []): Promise<TestEmbedKey> {
  const deps = { catalog: h.catalog, people: h.people, embeds: h.container.embeds!, clock: h.clock };
  const { key, secret } = await createEmbedKey(deps, await workspaceAccess(deps, OPERATOR, workspaceId, 'admin'), { origins });
  return { id: key.id, secret };
}

export interface Claims {
  token_id?: string;
  site_id?: string;
  tenant_id?: string;
  routes?: string[];
  iat?: number;
  exp?: number;
  [other: string]: unknown;
}

/**
 * An HS256 JWT with header kid, signed with `secret`; iat now (the clock given) and exp an hour later
 * unless given; a claim given as undefined is left out.
 */
export function mint(
  h: { clock: { now(): Date } },
  key: { id: string; secret: string },
  claims: Claims,
  header: Record<string, unknown> = {},
): string {
  const now = Math.floor(h.clock.now().getTime() / 1000);
  const payload = Object.fromEntries(Object.entries({ iat: now, exp: now + 3600, ...claims }).filter(([, v]) => v !== undefined));
  const alg = (header.alg as jwt.Algorithm | undefined) ?? 'HS256';
  // jsonwebtoken writes iat itself unless told not to: a token without one is asked for so
  return jwt.sign(payload, key.secret, {
    algorithm: alg,
    keyid: key.id,
    noTimestamp: !('iat' in payload),
    header: { alg, kid: key.id, ...header },
  });
}

/** An unsigned token (alg none) with the same claims: what no server may accept. */
export function unsigned(kid: string, claims: Claims): string {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${b64({ alg: 'none', typ: 'JWT', kid })}.${b64(claims)}.`;
}

/** A share link of the site, as `footfall share create` makes it: its id and the slug of its url. */
export async function shareLink(
  h: Harness,
  siteId: string,
  input: { tenantId?: string; password?: string; expiresAt?: string } = {},
): Promise<{ id: string; slug: string; url: string }> {
  const deps = {
    catalog: h.catalog,
    people: h.people,
    embeds: h.container.embeds!,
    clock: h.clock,
    hasher: TEST_HASHER,
    publicUrl: h.container.config.publicUrl,
  };
  const { share, url } = await createShareLink(deps, await siteAccess(deps, OPERATOR, siteId, 'admin'), input);
  return { id: share.id, slug: new URL(url).pathname.split('/')[2], url };
}
