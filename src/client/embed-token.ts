// mintEmbedToken: what a SaaS backend calls to let one of its customers see their own numbers. An embed
// token is a standard JWT (HS256, header kid = the embed key id) signed with the embed key's secret, so any
// JWT library makes the same; this one needs nothing but the Web Crypto API of Node 20 and browsers alike
// (mint on your server: the key's secret must never reach a page).
//
//   const token = await mintEmbedToken(
//     { keyId: process.env.FOOTFALL_EMBED_KEY_ID!, secret: process.env.FOOTFALL_EMBED_SECRET! },
//     { tokenId: 'tok_...', siteId: 'site_...', tenantId: customer.footfallTenantId },
//   );
//   // <iframe src="https://analytics.example.com/embed?key=KEY_ID#token=TOKEN">

/** The reads an embed token may be limited to (its `routes` claim). */
export type EmbedRoute = 'overview' | 'acquisition' | 'actions' | 'content' | 'goals' | 'timeseries' | 'breakdown' | 'query' | 'funnel';

export interface EmbedKeyCredentials {
  /** the embed key's id (`footfall embed-key create` prints it as key_id) */
  keyId: string;
  /** its secret, printed once at creation */
  secret: string;
}

export interface EmbedTokenOptions {
  /** the parent API token's id: the embed reads as it does, and counts against its rate limit */
  tokenId: string;
  siteId: string;
  /** the tenant it shows; required when the parent token is restricted to tenants; absent: the whole site */
  tenantId?: string;
  /** the reads it may make; absent: every one its parent may */
  routes?: readonly EmbedRoute[];
  /** how long it lives, in seconds: default 3600, at most 86400 (24 hours) */
  ttlSeconds?: number;
  /** the issue time (default: now) */
  now?: Date;
}

export const EMBED_TOKEN_MAX_TTL_SECONDS = 86_400;

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const encode = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)));

export async function mintEmbedToken(key: EmbedKeyCredentials, options: EmbedTokenOptions): Promise<string> {
  const ttl = options.ttlSeconds ?? 3600;
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > EMBED_TOKEN_MAX_TTL_SECONDS)
    throw new RangeError(`ttlSeconds must be an integer from 1 to ${EMBED_TOKEN_MAX_TTL_SECONDS}`);
  const iat = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const claims = {
    token_id: options.tokenId,
    site_id: options.siteId,
    ...(options.tenantId !== undefined ? { tenant_id: options.tenantId } : {}),
    ...(options.routes !== undefined ? { routes: [...options.routes] } : {}),
    iat,
    exp: iat + ttl,
  };
  const input = `${encode({ alg: 'HS256', typ: 'JWT', kid: key.keyId })}.${encode(claims)}`;
  const hmac = await crypto.subtle.importKey('raw', new TextEncoder().encode(key.secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const signature = new Uint8Array(await crypto.subtle.sign('HMAC', hmac, new TextEncoder().encode(input)));
  return `${input}.${base64url(signature)}`;
}
