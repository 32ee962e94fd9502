// Rules of two-factor sign-in that every entry point shares (docs/decisions/people.md, "Two-factor
// sign-in"): TOTP as RFC 6238 gives it with the parameters every authenticator app reads (SHA-1, 6
// digits, 30 seconds), the window of steps a code is accepted in, and the recovery codes. Pure: the
// secret and the time come in, nothing is stored here.
import { randomBytes as nodeRandomBytes, timingSafeEqual } from 'node:crypto';
import { HOTP, Secret, TOTP } from 'otpauth';
import type { RandomBytes } from './tokens.js';

export const TOTP_STEP_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** 160 bits, the length RFC 4226 recommends for an HMAC-SHA1 key */
export const TOTP_SECRET_BYTES = 20;
/** A code is accepted for the current step and the one either side (a clock 30 s off, a code typed late). */
export const TOTP_WINDOW_STEPS = 1;
export const RECOVERY_CODE_COUNT = 10;
/** the second step of a sign-in whose password was right */
export const TWO_FACTOR_CHALLENGE_LIFETIME_MS = 5 * 60_000;
export const TOTP_ISSUER = 'footfall';

/** The 30-second step of a moment (epoch ms). */
export const stepAt = (ms: number): number => Math.floor(ms / 1000 / TOTP_STEP_SECONDS);

/** A new secret of TOTP_SECRET_BYTES random bytes, in base32 (what a person types into an app). */
export function newTotpSecret(random: RandomBytes = nodeRandomBytes): string {
  return new Secret({ buffer: new Uint8Array(random(TOTP_SECRET_BYTES)).buffer }).base32;
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function otpauthUri(base32: string, account: string): string {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label: account,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_STEP_SECONDS,
    secret: Secret.fromBase32(base32),
  }).toString();
}

/** Whether a typed answer is shaped as a TOTP code (6 digits, spaces allowed); anything else is read as a recovery code. */
export function looksLikeTotpCode(typed: string): boolean {
  return /^\d{6}$/.test(typed.replace(/\s/g, ''));
}

/**
 * The step whose code `typed` is, within the window around `nowMs`, or null. Every step of the window
 * is computed and compared in constant time, with no early exit, so the time taken says nothing of
 * which step (or whether any) matched.
 */
export function matchingStep(base32: string, typed: string, nowMs: number): number | null {
  const code = Buffer.from(typed.replace(/\s/g, ''));
  if (code.length !== TOTP_DIGITS) return null;
  const secret = Secret.fromBase32(base32);
  const now = stepAt(nowMs);
  let found: number | null = null;
  for (let step = now - TOTP_WINDOW_STEPS; step <= now + TOTP_WINDOW_STEPS; step++) {
    const want = Buffer.from(HOTP.generate({ secret, algorithm: 'SHA1', digits: TOTP_DIGITS, counter: step }));
    if (timingSafeEqual(want, code)) found = step;
  }
  return found;
}

// Crockford's base32 (digits and letters but i, l, o, u): 5 bits a character, and what is misread
// when written down (o for 0, i or l for 1) is read back as meant.
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const RECOVERY_CHARS = 16;

/**
 * A recovery code: 16 characters of a 32-letter alphabet (80 bits), shown in four groups of four.
 * Random enough that its sha256 needs no salt nor a slow hash: nobody can try 2^80 candidates.
 */
export function newRecoveryCode(random: RandomBytes = nodeRandomBytes): string {
  const bytes = random(RECOVERY_CHARS);
  let code = '';
  for (let i = 0; i < RECOVERY_CHARS; i++) code += RECOVERY_ALPHABET[bytes[i] & 31];
  return code.match(/.{4}/g)!.join('-');
}

/** A recovery code as stored (hashed): lower case, without the spaces and dashes people type; null when it cannot be one. */
export function normalizeRecoveryCode(typed: string): string | null {
  const code = typed.toLowerCase().replace(/[\s-]/g, '').replace(/o/g, '0').replace(/[il]/g, '1');
  return code.length === RECOVERY_CHARS && [...code].every((c) => RECOVERY_ALPHABET.includes(c)) ? code : null;
}
