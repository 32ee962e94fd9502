// Share links of a site (admins and owners): `/share/<slug>`, the site's (or one tenant's) dashboard for
// people without a backend of their own. The slug is long and random, handed out once in the link, and
// stored as its sha256; an optional password is stored as its argon2 hash. A revoked or expired link
// is gone from the next request.
import { randomBytes } from 'node:crypto';
import { looksLikeShareSlug, SHARE_SLUG_LENGTH } from '../../domain/embeds.js';
import { invalidField } from '../../domain/manage-errors.js';
import { passwordProblem } from '../../domain/people.js';
import { hashSecret, randomBase62, type RandomBytes } from '../../domain/tokens.js';
import type { Site } from '../../ports/catalog-store.js';
import type { ShareLink } from '../../ports/embed-store.js';
import type { PasswordHasher } from '../../ports/password-hasher.js';
import { notFound, requireRole, type WorkspaceAccess } from '../manage/access.js';
import type { EmbedDeps } from './embed-keys.js';

export interface ShareDeps extends EmbedDeps {
  hasher: PasswordHasher;
  /** the origin of the links handed out (FOOTFALL_PUBLIC_URL) */
  publicUrl: string;
  random?: RandomBytes;
}

export interface ShareInput {
  tenantId?: string | null;
  password?: string | null;
  /** ISO 8601 instant; absent: the link does not expire */
  expiresAt?: string | null;
}

type SiteAccess = WorkspaceAccess & { site: Site };

export function shareUrl(publicUrl: string, slug: string): string {
  return `${new URL(publicUrl).origin}/share/${slug}`;
}

/** Where a link stands at `now`: readable, revoked, or past its expiry. */
export function shareState(share: ShareLink, now: Date): 'active' | 'revoked' | 'expired' {
  if (share.revokedAt !== null) return 'revoked';
  if (share.expiresAt !== null && Date.parse(share.expiresAt) <= now.getTime()) return 'expired';
  return 'active';
}

export async function createShareLink(deps: ShareDeps, access: SiteAccess, input: ShareInput): Promise<{ share: ShareLink; url: string }> {
  requireRole(access, 'admin');
  let passwordHash: string | null = null;
  if (input.password !== undefined && input.password !== null) {
    const problem = passwordProblem(input.password);
    if (problem) throw invalidField('password', `The share link's ${problem}.`);
    passwordHash = await deps.hasher.hash(input.password);
  }
  let expiresAt: string | null = null;
  if (input.expiresAt !== undefined && input.expiresAt !== null) {
    const at = Date.parse(input.expiresAt);
    // A time without its zone would be read in the server's zone, which the person cannot see: refused.
    if (!/^\d{4}-\d{2}-\d{2}T[0-9:.]+(?:Z|[+-]\d{2}:\d{2})$/i.test(input.expiresAt) || Number.isNaN(at))
      throw invalidField('expires_at', 'expires_at must be an ISO 8601 instant with a time zone, e.g. 2026-01-31T00:00:00Z.');
    if (at <= deps.clock.now().getTime()) throw invalidField('expires_at', 'expires_at must be in the future.');
    expiresAt = new Date(at).toISOString();
  }
  if (input.tenantId) {
    const tenant = await deps.catalog.getTenant(input.tenantId);
    if (!tenant || tenant.siteId !== access.site.id) throw notFound('tenant', input.tenantId);
  }
  const slug = randomBase62(deps.random ?? randomBytes, SHARE_SLUG_LENGTH);
  const share = await deps.embeds.createShareLink({
    siteId: access.site.id,
    tenantId: input.tenantId ?? null,
    slugHash: hashSecret(slug),
    passwordHash,
    expiresAt,
  });
  return { share, url: shareUrl(deps.publicUrl, slug) };
}

export async function listShareLinks(deps: Pick<EmbedDeps, 'embeds'>, access: SiteAccess): Promise<ShareLink[]> {
  requireRole(access, 'admin');
  return deps.embeds.listShareLinks(access.site.id);
}

/** A link of the access's site, else NOT_FOUND as for an unknown id. */
export async function shareLinkOf(deps: Pick<EmbedDeps, 'embeds'>, access: SiteAccess, shareId: string): Promise<ShareLink> {
  const share = await deps.embeds.getShareLink(shareId);
  if (!share || share.siteId !== access.site.id) throw notFound('share link', shareId);
  return share;
}

export async function revokeShareLink(deps: EmbedDeps, access: SiteAccess, shareId: string): Promise<ShareLink> {
  requireRole(access, 'admin');
  const share = await shareLinkOf(deps, access, shareId);
  await deps.embeds.revokeShareLink(share.id, deps.clock.now().toISOString());
  return (await deps.embeds.getShareLink(share.id)) ?? share;
}

/** The readable link of a slug at `now`; null for an unknown, revoked or expired one (or a malformed slug, without a lookup). */
export async function openShareLink(deps: Pick<EmbedDeps, 'embeds' | 'clock'>, slug: string): Promise<ShareLink | null> {
  if (!looksLikeShareSlug(slug)) return null;
  const share = await deps.embeds.findShareLinkBySlugHash(hashSecret(slug));
  return share && shareState(share, deps.clock.now()) === 'active' ? share : null;
}
