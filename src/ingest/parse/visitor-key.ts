// Daily visitor keys derived from ip + user agent (docs/product.md §8.1). The ip and the user agent
// go in and never come out: only a truncated HMAC under a salt that changes every UTC day.
import { createHmac } from 'node:crypto';

const UTC_DAY = /^\d{4}-\d{2}-\d{2}$/;
/** Hex characters kept: 64 bits; a million visitors on one site and day share a key with probability ~3e-8. */
export const VISITOR_KEY_HEX_LENGTH = 16;

/** HMAC-SHA256 of the secret over site_id and the UTC day; a NUL separates the parts unambiguously. */
export function dailySalt(secret: string | Buffer, siteId: string, utcDay: string): Buffer {
  if (!UTC_DAY.test(utcDay)) throw new Error(`utcDay must be YYYY-MM-DD, got ${utcDay}`);
  return createHmac('sha256', secret).update(`${siteId}\u0000${utcDay}`).digest();
}

/**
 * The daily visitor key: HMAC-SHA256 keyed by the day's salt over ip and user agent, as short hex.
 * The same inputs always give the same key (re-imports match); a new secret unlinks all old keys.
 */
export function dailyVisitorKey(secret: string | Buffer, siteId: string, utcDay: string, ip: string, ua: string): string {
  const salt = dailySalt(secret, siteId, utcDay);
  return createHmac('sha256', salt).update(`${ip.trim()}\u0000${ua}`).digest('hex').slice(0, VISITOR_KEY_HEX_LENGTH);
}
