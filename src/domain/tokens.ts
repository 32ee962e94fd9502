// Token secrets and record ids. Pure: randomness is passed in, so callers (and tests) decide its source.
import { sha256 } from './sha256.js';

export const SECRET_PREFIX = 'ff_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const SECRET_RE = /^ff_live_([0-9A-Za-z]{32})([0-9A-Za-z]{6})$/;
const ID_BODY_LENGTH = 22; // ~131 bits: unguessable, and short enough to type

export type RandomBytes = (n: number) => Buffer | Uint8Array;
export type IdPrefix = 'ws' | 'site' | 'ten' | 'goal' | 'tok' | 'usr' | 'inv' | 'fail' | 'imp' | 'ek' | 'shr' | 'funnel' | 'rep';

/**
 * `length` uniformly random base62 characters. Bytes >= 248 are dropped (248 = 4 x 62)
 * so that no character is more likely than another.
 */
export function randomBase62(random: RandomBytes, length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = random(Math.max(16, length - out.length + 8));
    if (bytes.length === 0) throw new Error('random source returned no bytes');
    for (const b of bytes) {
      if (b >= 248) continue;
      out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** The 6-character checksum: the first 6 bytes of sha256(prefix + body), each taken modulo 62. */
function checksumOf(body: string): string {
  const digest = sha256(SECRET_PREFIX + body, 'buffer');
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) out += BASE62[digest[i] % 62];
  return out;
}

/** A new token secret: `ff_live_` + 32 random base62 characters + 6-character checksum. */
export function generateSecret(random: RandomBytes): string {
  const body = randomBase62(random, BODY_LENGTH);
  return SECRET_PREFIX + body + checksumOf(body);
}

/** Format and checksum are right; lets the HTTP layer refuse garbage without a store lookup. */
export function looksLikeSecret(s: unknown): s is string {
  if (typeof s !== 'string') return false;
  const m = SECRET_RE.exec(s);
  return m !== null && checksumOf(m[1]) === m[2];
}

/** What the control plane stores instead of the secret: lower-case hex sha256. */
export function hashSecret(secret: string): string {
  return sha256(secret, 'hex');
}

export function isSecretHash(s: unknown): s is string {
  return typeof s === 'string' && /^[0-9a-f]{64}$/.test(s);
}

/** A random record id such as `ws_3kTq…`. */
export function newId(prefix: IdPrefix, random: RandomBytes): string {
  return `${prefix}_${randomBase62(random, ID_BODY_LENGTH)}`;
}

export { BODY_LENGTH as SECRET_BODY_LENGTH, CHECKSUM_LENGTH as SECRET_CHECKSUM_LENGTH };
