// Two-factor sign-in with an authenticator app (TOTP, RFC 6238) and recovery codes; the rules in
// docs/decisions/people.md, "Two-factor sign-in". Turning it on takes a secret the server made, then the
// password and a current code; the codes shown then are shown once. Every code typed, here or at sign-in,
// is a guess behind the one throttle (codeKeys); every change needs the password and a code. No secret,
// code or challenge is returned but to the person it is for, nor logged.
import { timingSafeEqual } from 'node:crypto';
import { ManageError } from '../../domain/manage-errors.js';
import { qrPath, type QrPath } from '../../domain/qr-path.js';
import { hashSecret } from '../../domain/tokens.js';
import {
  looksLikeTotpCode,
  matchingStep,
  newRecoveryCode,
  newTotpSecret,
  normalizeRecoveryCode,
  otpauthUri,
  RECOVERY_CODE_COUNT,
} from '../../domain/two-factor.js';
import { CatalogError } from '../../ports/catalog-store.js';
import type { User } from '../../ports/people-store.js';
import { notFound } from '../manage/access.js';
import { codeKeys, guess } from './guess-throttle.js';
import type { PeopleDeps } from './people-deps.js';
import { checkPassword } from './sign-in.js';
import { openTotpSecret, sealTotpSecret } from './totp-seal.js';

type Deps = Pick<PeopleDeps, 'people' | 'catalog' | 'clock' | 'random'>;
type WithHasher = Deps & Pick<PeopleDeps, 'hasher'>;

export const WRONG_CODE = () => new ManageError('INVALID_CODE');

export interface TwoFactorStatus {
  enabled: boolean;
  /** unused recovery codes (0 while off) */
  recoveryCodesLeft: number;
}

export async function twoFactorStatus(deps: Pick<PeopleDeps, 'people'>, user: User): Promise<TwoFactorStatus> {
  const record = await deps.people.getTwoFactor(user.id);
  return record?.enabledAt ? { enabled: true, recoveryCodesLeft: record.recoveryCodesLeft } : { enabled: false, recoveryCodesLeft: 0 };
}

export async function isTwoFactorOn(deps: Pick<PeopleDeps, 'people'>, userId: string): Promise<boolean> {
  return Boolean((await deps.people.getTwoFactor(userId))?.enabledAt);
}

export interface TwoFactorSetup {
  /** base32, to type into an app that cannot scan */
  secret: string;
  /** otpauth://totp/footfall:<email>?secret=…, what the QR code holds */
  uri: string;
  qr: QrPath;
}

/**
 * A new secret for the person to add to their app; it is not on until they confirm a code from it
 * (enableTwoFactor). Asking again replaces a secret not confirmed yet. CONFLICT when it is on, or the
 * account has no password (turning it on, and off, needs one).
 */
export async function beginTwoFactor(deps: Deps, user: User): Promise<TwoFactorSetup> {
  if (!user.hasPassword)
    throw new ManageError('CONFLICT', 'Choose a password first: turning on two-factor sign-in needs it.', { reason: 'no_password' });
  const secret = newTotpSecret(deps.random);
  try {
    await deps.people.beginTwoFactor({
      userId: user.id,
      secretSealed: await sealTotpSecret(deps, user.id, secret),
      now: deps.clock.now().toISOString(),
    });
  } catch (err) {
    if (err instanceof CatalogError && err.code === 'CONFLICT')
      throw new ManageError('CONFLICT', 'Two-factor sign-in is on already: turn it off first to use another app.', { reason: 'enabled' });
    throw err;
  }
  const uri = otpauthUri(secret, user.email);
  return { secret, uri, qr: qrPath(uri) };
}

function newRecoveryCodes(deps: Pick<PeopleDeps, 'random'>): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => newRecoveryCode(deps.random));
  return { codes, hashes: codes.map((c) => hashSecret(normalizeRecoveryCode(c)!)) };
}

interface Proof {
  password: string;
  code: string;
  clientAddress: string;
}

/** Switches it on with the password and a code of the new secret; answers the recovery codes, shown this once. */
export async function enableTwoFactor(deps: WithHasher, user: User, keepSession: string, input: Proof): Promise<string[]> {
  await checkPassword(deps, { email: user.email, password: input.password, clientAddress: input.clientAddress });
  const record = await deps.people.getTwoFactor(user.id);
  if (!record || record.enabledAt)
    throw new ManageError(
      'CONFLICT',
      record ? 'Two-factor sign-in is on already.' : 'Start again: ask for a new secret (POST /session/two-factor/setup) first.',
      { reason: record ? 'enabled' : 'not_begun' },
    );
  const secret = await openTotpSecret(deps, user.id, record.secretSealed);
  const now = deps.clock.now();
  const step = await guess(
    deps,
    codeKeys(user.id, input.clientAddress),
    now.getTime(),
    async () => matchingStep(secret, input.code, now.getTime()),
    WRONG_CODE,
  );
  const { codes, hashes } = newRecoveryCodes(deps);
  const on = await deps.people.enableTwoFactor({
    userId: user.id,
    secretSealed: record.secretSealed,
    step,
    recoveryCodeHashes: hashes,
    keepSession,
    now: now.toISOString(),
  });
  // another request of the person replaced the secret (or switched it on) meanwhile
  if (!on) throw new ManageError('CONFLICT', 'The secret changed meanwhile: start again.', { reason: 'not_begun' });
  return codes;
}

/**
 * Whether `typed` is a current TOTP code not used before, or an unused recovery code, of the person:
 * one guess behind the throttle (a wrong one counts, and is INVALID_CODE). Using it is part of the
 * check: its step, or the recovery code, is spent by a conditional UPDATE, so of two requests with the
 * same code only one passes.
 */
export async function verifySecondFactor(deps: Deps, userId: string, typed: string, clientAddress: string): Promise<'totp' | 'recovery'> {
  const now = deps.clock.now();
  return guess(
    deps,
    codeKeys(userId, clientAddress),
    now.getTime(),
    async () => {
      const record = await deps.people.getTwoFactor(userId);
      if (!record?.enabledAt) return null;
      if (looksLikeTotpCode(typed)) {
        const step = matchingStep(await openTotpSecret(deps, userId, record.secretSealed), typed, now.getTime());
        // a step at or before the last one used is a code seen already (replayed, or an older one)
        if (step === null || (record.lastStep !== null && step <= record.lastStep)) return null;
        return (await deps.people.useTwoFactorStep(userId, step)) ? 'totp' : null;
      }
      const code = normalizeRecoveryCode(typed);
      if (code === null) return null;
      const want = Buffer.from(hashSecret(code));
      // every unused code compared, in constant time each, before one is used
      const match = (await deps.people.unusedRecoveryCodes(userId)).reduce<string | null>(
        (found, h) => (timingSafeEqual(Buffer.from(h), want) ? h : found),
        null,
      );
      if (match === null) return null;
      return (await deps.people.useRecoveryCode({ userId, codeHash: match, now: now.toISOString() })) ? 'recovery' : null;
    },
    WRONG_CODE,
  );
}

async function proveBoth(deps: WithHasher, user: User, input: Proof): Promise<void> {
  await checkPassword(deps, { email: user.email, password: input.password, clientAddress: input.clientAddress });
  if (!(await isTwoFactorOn(deps, user.id))) throw new ManageError('CONFLICT', 'Two-factor sign-in is off.', { reason: 'disabled' });
  await verifySecondFactor(deps, user.id, input.code, input.clientAddress);
}

/** New recovery codes (the earlier ones stop working), with the password and a code; shown this once. */
export async function regenerateRecoveryCodes(deps: WithHasher, user: User, input: Proof): Promise<string[]> {
  await proveBoth(deps, user, input);
  const { codes, hashes } = newRecoveryCodes(deps);
  if (!(await deps.people.replaceRecoveryCodes({ userId: user.id, codeHashes: hashes, now: deps.clock.now().toISOString() })))
    throw new ManageError('CONFLICT', 'Two-factor sign-in is off.', { reason: 'disabled' });
  return codes;
}

/** Turns it off with the password and a code (TOTP or recovery). */
export async function disableTwoFactor(deps: WithHasher, user: User, input: Proof): Promise<void> {
  await proveBoth(deps, user, input);
  await deps.people.disableTwoFactor(user.id);
}

/** The operator turns it off for a person who lost their app and their codes (`footfall user disable-2fa`). */
export async function operatorDisableTwoFactor(deps: Pick<PeopleDeps, 'people'>, email: string): Promise<{ user: User; wasOn: boolean }> {
  const found = await deps.people.findUserByEmail(email);
  if (!found) throw notFound('user', email);
  return { user: found.user, wasOn: await deps.people.disableTwoFactor(found.user.id) };
}
