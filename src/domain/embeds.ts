// Embeds and share links (docs/product.md §7.8): what an embed token may claim, the origins an embed key
// lets frame the embed page, and the lifetimes of a share link's password cookie. Pure.
import { isStorableText } from './storable-text.js';

/** The reads an embed token (or a share link) may make, by the names its `routes` claim uses. */
export const EMBED_ROUTES = [
  'overview',
  'acquisition',
  'actions',
  'content',
  'goals',
  'timeseries',
  'breakdown',
  'query',
  'funnel',
] as const;
export type EmbedRoute = (typeof EMBED_ROUTES)[number];

/** An embed token lives at most this long: `exp` at most 24 hours after `iat`. */
export const EMBED_TOKEN_MAX_LIFETIME_S = 24 * 60 * 60;
/** How far a minting server's clock may run ahead of ours (an `iat` a little in the future). */
export const EMBED_CLOCK_SKEW_S = 60;

export const EMBED_KEY_SECRET_PREFIX = 'ff_embed_';
/** An embed key lists at most this many origins (each one a frame-ancestors source). */
export const MAX_EMBED_ORIGINS = 20;

/** A compact JWS of three base64url parts (the last empty for an unsigned token), of a sane length: anything else is no embed token. */
export function looksLikeJwt(s: string): boolean {
  return s.length <= 8192 && /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(s);
}

/** What a verified embed token says, once its claims are checked. */
export interface EmbedClaims {
  tokenId: string;
  siteId: string;
  /** null: the whole site (allowed only when the parent token is not restricted to tenants) */
  tenantId: string | null;
  /** null: every embed route the parent may read */
  routes: readonly EmbedRoute[] | null;
  iat: number;
  exp: number;
}

/** The refusal of a token past its exp: the embed page recognizes it and asks its host page for a fresh one. */
export const EXPIRED_EMBED_TOKEN = 'The embed token has expired: mint a fresh one.';

const ID_MAX = 100;
// an id a store cannot hold (a NUL, a lone surrogate) names nothing: malformed, before any lookup
const isId = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= ID_MAX && isStorableText(v);
const isSeconds = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/**
 * The claims of a token whose signature is already verified, or what is wrong with them (said so that
 * whoever mints the token can fix it). `nowS` is the server's time in epoch seconds.
 */
export function checkEmbedClaims(payload: Record<string, unknown>, nowS: number): EmbedClaims | { problem: string } {
  const { token_id, site_id, tenant_id, routes, iat, exp } = payload;
  if (!isId(token_id)) return { problem: 'the token_id claim (an API token id of the workspace) is missing or malformed' };
  if (!isId(site_id)) return { problem: 'the site_id claim is missing or malformed' };
  if (tenant_id !== undefined && !isId(tenant_id)) return { problem: 'the tenant_id claim is malformed' };
  if (!isSeconds(iat)) return { problem: 'the iat claim (issued at, epoch seconds) is missing' };
  if (!isSeconds(exp)) return { problem: 'the exp claim (expiry, epoch seconds) is missing' };
  if (exp - iat > EMBED_TOKEN_MAX_LIFETIME_S)
    return { problem: 'exp is more than 24 hours after iat: an embed token lives at most 24 hours' };
  if (exp <= iat) return { problem: 'exp is not after iat' };
  if (iat > nowS + EMBED_CLOCK_SKEW_S) return { problem: 'iat is in the future: check the clock of the server that mints the token' };
  if (exp <= nowS) return { problem: EXPIRED_EMBED_TOKEN };
  let list: EmbedRoute[] | null = null;
  if (routes !== undefined) {
    if (!Array.isArray(routes) || routes.length === 0 || routes.some((r) => !(EMBED_ROUTES as readonly unknown[]).includes(r)))
      return { problem: `the routes claim must be a non-empty array of ${EMBED_ROUTES.join(', ')}` };
    list = [...new Set(routes as EmbedRoute[])];
  }
  return { tokenId: token_id, siteId: site_id, tenantId: tenant_id ?? null, routes: list, iat, exp };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * An origin as a frame-ancestors source and a postMessage origin: `https://host[:port]` (or `http://`
 * on a loopback host, for development), lower case, no path. Throws a message naming the input otherwise.
 */
export function normalizeOrigin(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new Error(`"${input}" is not an origin: write it as https://app.example.com`);
  }
  const loopback = LOOPBACK.has(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw new Error(`"${input}": an origin must use https (http only on localhost or 127.0.0.1)`);
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash)
    throw new Error(`"${input}" is not an origin: give the scheme, host and port only, without a path`);
  if (url.hostname.includes('*')) throw new Error(`"${input}": wildcards are not accepted, list each origin`);
  return url.origin;
}

/** Normalized, de-duplicated origins; throws naming the first bad one or the count past the limit. */
export function normalizeOrigins(input: readonly string[]): string[] {
  const out = [...new Set(input.map(normalizeOrigin))];
  if (out.length > MAX_EMBED_ORIGINS) throw new Error(`at most ${MAX_EMBED_ORIGINS} origins per embed key`);
  return out;
}

/** The CSP frame-ancestors sources of an embed key's origins: `'none'` when it has none (not framable). */
export function frameAncestors(origins: readonly string[]): string {
  return origins.length === 0 ? "'none'" : origins.join(' ');
}

/** A share link's slug: ~238 bits of base62 in its path, stored as its sha256. */
export const SHARE_SLUG_LENGTH = 40;
const SHARE_SLUG_RE = /^[0-9A-Za-z]{40}$/;
export const looksLikeShareSlug = (s: unknown): s is string => typeof s === 'string' && SHARE_SLUG_RE.test(s);

/** How long a share link's password cookie lets its holder read (not slid: the password is asked again). */
export const SHARE_COOKIE_LIFETIME_MS = 8 * 60 * 60_000;
/** A share link's reads: per link and client address, as a person's dashboard session. */
export const SHARE_RATE_PER_SECOND = 20;
