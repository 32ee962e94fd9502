// Reading through a share link (docs/product.md §7.8): the link's site (or tenant) under the plan's
// dashboard policy, not metered (units_charged 0, as a person's dashboard), rate-limited per link and
// client address. A link with a password is read with a cookie its password gave: an HMAC of the link id
// and the cookie's expiry under a control-plane secret, so nothing is stored and a revoked link's
// cookies die with it (the link is looked up on every request).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { TOKEN_SCOPES } from '../../domain/access.js';
import { dashboardPolicy } from '../../domain/dashboard-policy.js';
import { SHARE_COOKIE_LIFETIME_MS, SHARE_RATE_PER_SECOND } from '../../domain/embeds.js';
import { ApiError } from '../../domain/errors.js';
import { ManageError } from '../../domain/manage-errors.js';
import { MAX_PASSWORD_LENGTH } from '../../domain/people.js';
import { apiPolicyFor } from '../../domain/plans.js';
import { hashSecret } from '../../domain/tokens.js';
import type { CatalogStore, Site, Workspace } from '../../ports/catalog-store.js';
import { controlSecret } from '../control-secret.js';
import type { ShareLink } from '../../ports/embed-store.js';
import type { PasswordHasher } from '../../ports/password-hasher.js';
import type { PeopleStore } from '../../ports/people-store.js';
import type { Admission } from '../caller.js';
import { guess, sharePasswordKeys } from '../people/guess-throttle.js';
import { RateLimitedError } from '../rate-limit.js';
import type { EmbedDeps } from './embed-keys.js';
import { openShareLink } from './share-links.js';

export const SHARE_COOKIE = 'footfall_share';
const COOKIE_KEY_NAME = 'share-cookie-key';

export const GONE = 'This share link was revoked or has expired, or never existed.';
export const NEEDS_PASSWORD = 'This share link needs its password: enter it on the share page.';

const cookieKey = (catalog: CatalogStore) => controlSecret(catalog, COOKIE_KEY_NAME);

async function mac(catalog: CatalogStore, share: ShareLink, expiresMs: number): Promise<string> {
  // The password's hash is in it too: a link whose password changed does not honour older cookies.
  return createHmac('sha256', await cookieKey(catalog))
    .update(`${share.id}.${expiresMs}.${share.passwordHash ?? ''}`)
    .digest('base64url');
}

/** The cookie value a correct password earns, and when it expires. */
export async function shareCookie(catalog: CatalogStore, share: ShareLink, nowMs: number): Promise<{ value: string; expiresAt: Date }> {
  const expiresMs = nowMs + SHARE_COOKIE_LIFETIME_MS;
  return { value: `${expiresMs}.${await mac(catalog, share, expiresMs)}`, expiresAt: new Date(expiresMs) };
}

export async function shareCookieValid(
  catalog: CatalogStore,
  share: ShareLink,
  value: string | undefined,
  nowMs: number,
): Promise<boolean> {
  const m = value === undefined ? null : /^(\d{13,15})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!m || Number(m[1]) <= nowMs) return false;
  const want = Buffer.from(await mac(catalog, share, Number(m[1])));
  const got = Buffer.from(m[2]);
  return got.length === want.length && timingSafeEqual(got, want);
}

export interface OpenShare {
  share: ShareLink;
  site: Site;
  workspace: Workspace;
}

/** The readable link of a slug with its site and workspace; null when it is gone (or its site is). */
export async function findShare(deps: Pick<EmbedDeps, 'embeds' | 'clock' | 'catalog'>, slug: string): Promise<OpenShare | null> {
  const share = await openShareLink(deps, slug);
  if (!share) return null;
  const site = await deps.catalog.getSite(share.siteId);
  const workspace = site ? await deps.catalog.getWorkspace(site.workspaceId) : null;
  return site && workspace ? { share, site, workspace } : null;
}

/** Whether the holder of `cookie` may read the link now: no password, or the cookie a password gave. */
export async function shareUnlocked(catalog: CatalogStore, share: ShareLink, cookie: string | undefined, nowMs: number): Promise<boolean> {
  return share.passwordHash === null || shareCookieValid(catalog, share, cookie, nowMs);
}

/** The caller of a share link's read; 401 when the link is gone or locked. */
export async function admitShare(
  deps: Pick<EmbedDeps, 'embeds' | 'clock' | 'catalog'>,
  input: { slug: string; cookie: string | undefined; clientAddress: string },
): Promise<Admission> {
  const open = await findShare(deps, input.slug);
  if (!open) throw new ApiError('UNAUTHORIZED', GONE);
  const { share, site, workspace } = open;
  if (!(await shareUnlocked(deps.catalog, share, input.cookie, deps.clock.now().getTime())))
    throw new ApiError('UNAUTHORIZED', NEEDS_PASSWORD);
  return {
    caller: {
      kind: 'share',
      workspace,
      api: apiPolicyFor(workspace.plan, workspace.apiPolicy),
      grant: {
        workspaceId: workspace.id,
        scopes: TOKEN_SCOPES,
        siteIds: [site.id],
        tenantIds: share.tenantId === null ? null : [share.tenantId],
      },
      policy: dashboardPolicy(workspace),
      metering: 'unmetered',
      seal: { siteId: site.id, tenantId: share.tenantId, routes: null },
    },
    // per viewer: one link may be opened by many people at once
    rate: { key: `share:${share.id}:${hashSecret(input.clientAddress).slice(0, 16)}`, limit: SHARE_RATE_PER_SECOND, windowMs: 1000 },
  };
}

export interface PasswordDeps extends Pick<EmbedDeps, 'embeds' | 'clock' | 'catalog'> {
  people: PeopleStore;
  hasher: PasswordHasher;
}

/**
 * The cookie for a link's correct password; 401 for a wrong one (or a gone link), 429 past the throttle's
 * failures (guess-throttle.ts: per link and viewer's address, per link, per address), so one guesser
 * does not lock every viewer out. A link without a password needs none.
 */
export async function unlockShare(
  deps: PasswordDeps,
  input: { slug: string; password: string; clientAddress: string },
): Promise<{ value: string; expiresAt: Date } | null> {
  const nowMs = deps.clock.now().getTime();
  const open = await findShare(deps, input.slug);
  if (!open) throw new ApiError('UNAUTHORIZED', GONE);
  const { share } = open;
  if (share.passwordHash === null) return null;
  const { passwordHash } = share;
  try {
    await guess(
      deps,
      sharePasswordKeys(share.id, input.clientAddress),
      nowMs,
      async () => (input.password.length <= MAX_PASSWORD_LENGTH && (await deps.hasher.verify(passwordHash, input.password)) ? true : null),
      () => new ApiError('UNAUTHORIZED', 'Wrong password for this share link.'),
    );
  } catch (err) {
    // the throttle's refusal, in the read API's envelope
    if (!(err instanceof ManageError) || err.code !== 'RATE_LIMITED') throw err;
    const retry = Number(err.details?.retry_after_seconds ?? 1);
    throw new RateLimitedError(retry, { 'Retry-After': String(retry) });
  }
  return shareCookie(deps.catalog, share, nowMs);
}
