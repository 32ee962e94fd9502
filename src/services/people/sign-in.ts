// Signing in with an email and a password. Throttled in the control plane (every process counts the
// same failures): past 10 failures for one email, or 50 from one client address, in 15 minutes, an
// attempt is refused until the window frees a slot; a success does not reset the count. An unknown
// email costs what a wrong password costs (a dummy hash is verified) and gets the same answer.
import { randomBytes } from 'node:crypto';
import { ManageError, rateLimited } from '../../domain/manage-errors.js';
import {
  normalizeEmail,
  SIGN_IN_MAX_FAILURES_PER_ADDRESS,
  SIGN_IN_MAX_FAILURES_PER_EMAIL,
  SIGN_IN_WINDOW_MS,
  throttledUntil,
} from '../../domain/people.js';
import { hashSecret } from '../../domain/tokens.js';
import type { PasswordHasher } from '../../ports/password-hasher.js';
import type { User } from '../../ports/people-store.js';
import type { PeopleDeps } from './people-deps.js';

// One dummy hash per hasher, made with its own parameters, so it costs what a real one costs.
const dummies = new WeakMap<PasswordHasher, Promise<string>>();
export function dummyHash(hasher: PasswordHasher): Promise<string> {
  let h = dummies.get(hasher);
  if (!h) dummies.set(hasher, (h = hasher.hash(randomBytes(16).toString('hex'))));
  return h;
}

function throttleKeys(email: string, clientAddress: string): { email: string; address: string } {
  // Hashed: the table never holds an address or an email someone merely typed.
  return { email: hashSecret(`sign-in:email:${normalizeEmail(email) ?? email.trim().toLowerCase()}`), address: hashSecret(`sign-in:address:${clientAddress}`) };
}

/**
 * RATE_LIMITED while any key is past its failures (`max` of each) in the sign-in window. Share link
 * passwords are throttled the same way under keys of their own.
 */
export async function refuseThrottled(deps: Pick<PeopleDeps, 'people'>, limits: readonly { key: string; max: number }[], nowMs: number): Promise<void> {
  const seen = await deps.people.signInFailuresSince(limits.map((l) => l.key), nowMs - SIGN_IN_WINDOW_MS);
  const until = Math.max(0, ...limits.map((l) => throttledUntil(seen.get(l.key) ?? [], l.max, SIGN_IN_WINDOW_MS) ?? 0));
  if (until > nowMs) throw rateLimited((until - nowMs) / 1000);
}

export const INVALID_CREDENTIALS = () => new ManageError('INVALID_CREDENTIALS');

/** The user whose email and password these are; INVALID_CREDENTIALS or RATE_LIMITED otherwise. */
export async function checkPassword(
  deps: Pick<PeopleDeps, 'people' | 'hasher' | 'clock'>,
  input: { email: string; password: string; clientAddress: string },
): Promise<User> {
  const nowMs = deps.clock.now().getTime();
  const keys = throttleKeys(input.email, input.clientAddress);
  await refuseThrottled(
    deps,
    [
      { key: keys.email, max: SIGN_IN_MAX_FAILURES_PER_EMAIL },
      { key: keys.address, max: SIGN_IN_MAX_FAILURES_PER_ADDRESS },
    ],
    nowMs,
  );
  const found = await deps.people.findUserByEmail(input.email);
  // Always one verification: against the account's hash, or the dummy (unknown email, no password yet).
  let ok = false;
  if (found?.passwordHash) ok = await deps.hasher.verify(found.passwordHash, input.password);
  else await deps.hasher.verify(await dummyHash(deps.hasher), input.password);
  if (!found || !ok) {
    await deps.people.recordSignInFailure([keys.email, keys.address], nowMs);
    throw INVALID_CREDENTIALS();
  }
  return found.user;
}
