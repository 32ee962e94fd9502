// The one throttle in front of every guess of a secret a person types or holds: a password at sign-in,
// at a password change and at a share link, a second-factor code, and the secret of an invitation,
// reset or sign-in link or of a sign-in's second step;
// and in front of the reset mails anyone may ask for (per address, per email).
// Failures are counted in the control plane (every process counts the same ones) under hashed keys,
// so the table never holds an address or an email someone merely typed. A key past its bound in the
// window refuses every attempt until the window frees a slot; a success resets nothing. An attempt is
// counted from its start, in one step with the check (the store locks the keys), so attempts sent at
// once meet the bound they would meet sent one by one; a right guess then takes its own count back.
import { rateLimited } from '../../domain/manage-errors.js';
import {
  normalizeEmail,
  RESET_MAILS_PER_EMAIL,
  RESET_REQUESTS_PER_ADDRESS,
  SIGN_IN_MAX_FAILURES_PER_ADDRESS,
  SIGN_IN_MAX_FAILURES_PER_PAIR,
  SIGN_IN_MAX_FAILURES_PER_SECRET,
  SIGN_IN_WINDOW_MS,
  throttledUntil,
  TWO_FACTOR_MAX_FAILURES_PER_USER,
} from '../../domain/people.js';
import { hashSecret } from '../../domain/tokens.js';
import type { PeopleStore } from '../../ports/people-store.js';

export interface ThrottleKey {
  /** sha256 of what is counted */
  key: string;
  /** failures allowed in the window */
  max: number;
}

/** Everything one client address guesses at accounts and their links counts under this key. */
const addressKey = (clientAddress: string): ThrottleKey => ({
  key: hashSecret(`sign-in:address:${clientAddress}`),
  max: SIGN_IN_MAX_FAILURES_PER_ADDRESS,
});

/**
 * The keys of a guess at one secret (`what`: e.g. an email's account, a share link) from one address:
 * the pair, the secret from anywhere, the address at anything. `addressScope` keeps the share links'
 * viewers apart from the accounts' people.
 */
function guessKeys(what: string, clientAddress: string, addressScope: 'sign-in' | 'share'): ThrottleKey[] {
  return [
    { key: hashSecret(`${what}:from:${clientAddress}`), max: SIGN_IN_MAX_FAILURES_PER_PAIR },
    { key: hashSecret(what), max: SIGN_IN_MAX_FAILURES_PER_SECRET },
    addressScope === 'sign-in'
      ? addressKey(clientAddress)
      : { key: hashSecret(`share:address:${clientAddress}`), max: SIGN_IN_MAX_FAILURES_PER_ADDRESS },
  ];
}

/** A password for an account's email. */
export function passwordKeys(email: string, clientAddress: string): ThrottleKey[] {
  return guessKeys(`sign-in:email:${normalizeEmail(email) ?? email.trim().toLowerCase()}`, clientAddress, 'sign-in');
}

/**
 * A second-factor code (TOTP or recovery) of an account, at sign-in or on the account page: the
 * account from this address, the account from anywhere (tighter than a password's: see
 * TWO_FACTOR_MAX_FAILURES_PER_USER), and the address at anything, the key every other guess fills.
 */
export function codeKeys(userId: string, clientAddress: string): ThrottleKey[] {
  const what = `two-factor:user:${userId}`;
  return [
    { key: hashSecret(`${what}:from:${clientAddress}`), max: SIGN_IN_MAX_FAILURES_PER_PAIR },
    { key: hashSecret(what), max: TWO_FACTOR_MAX_FAILURES_PER_USER },
    addressKey(clientAddress),
  ];
}

/** A share link's password. */
export function sharePasswordKeys(shareId: string, clientAddress: string): ThrottleKey[] {
  return guessKeys(`share:link:${shareId}`, clientAddress, 'share');
}

/** The secret of an invitation, reset or sign-in link: nothing names the account yet, so the address alone. */
export function linkKeys(clientAddress: string): ThrottleKey[] {
  return [addressKey(clientAddress)];
}

/** Reset requests from one client address, each counted whatever the email (mail sent or not). */
export function resetRequestKeys(clientAddress: string): ThrottleKey[] {
  return [{ key: hashSecret(`reset-request:address:${clientAddress}`), max: RESET_REQUESTS_PER_ADDRESS }];
}

/** Reset mails to one email: counted as each is sent. */
export function resetMailKeys(email: string): ThrottleKey[] {
  return [{ key: hashSecret(`reset-mail:email:${email}`), max: RESET_MAILS_PER_EMAIL }];
}

type ThrottleDeps = { people: Pick<PeopleStore, 'claimSignInAttempt' | 'forgetSignInFailures'> };

/** An attempt admitted (its failures recorded, to forget on success), or refused until `until` (ms). */
type Claim = { ids: string[] } | { until: number };

/**
 * Claims one attempt under every key, atomically against attempts made at the same time (the store
 * locks the keys): refused while any key is past its bound in the window, else counted as a failure
 * of each key from the start, so an attempt still running holds its slot and a burst sent at once
 * meets the same bound as one sent one by one.
 */
async function claim(deps: ThrottleDeps, keys: readonly ThrottleKey[], nowMs: number): Promise<Claim> {
  let until = 0;
  const ids = await deps.people.claimSignInAttempt({
    keyHashes: keys.map((k) => k.key),
    sinceMs: nowMs - SIGN_IN_WINDOW_MS,
    atMs: nowMs,
    admit: (seen) => {
      until = Math.max(0, ...keys.map((k) => throttledUntil(seen.get(k.key) ?? [], k.max, SIGN_IN_WINDOW_MS) ?? 0));
      return until <= nowMs;
    },
  });
  return ids ? { ids } : { until };
}

/** The ids of an admitted attempt's failures; RATE_LIMITED (with Retry-After) past the bound. */
async function claimOrRefuse(deps: ThrottleDeps, keys: readonly ThrottleKey[], nowMs: number): Promise<string[]> {
  const c = await claim(deps, keys, nowMs);
  if ('until' in c) throw rateLimited((c.until - nowMs) / 1000);
  return c.ids;
}

/** Counts one attempt that is a failure whatever happens next (a reset request, a reset mail); RATE_LIMITED (with Retry-After) past the bound. */
export async function countAttempt(deps: ThrottleDeps, keys: readonly ThrottleKey[], nowMs: number): Promise<void> {
  await claimOrRefuse(deps, keys, nowMs);
}

/** countAttempt's quiet form, for work done after the answer: whether the attempt was counted (false: past the bound). */
export async function tryCountAttempt(deps: ThrottleDeps, keys: readonly ThrottleKey[], nowMs: number): Promise<boolean> {
  return 'ids' in (await claim(deps, keys, nowMs));
}

/**
 * One guess behind the throttle: refused while throttled; `attempt` answers the guess's result, or null
 * for a wrong guess, which stays counted as a failure of every key and is answered with `wrong()`. A
 * right guess (or an attempt that throws) takes its count back.
 */
export async function guess<T>(
  deps: ThrottleDeps,
  keys: readonly ThrottleKey[],
  nowMs: number,
  attempt: () => Promise<T | null>,
  wrong: () => Error,
): Promise<T> {
  const ids = await claimOrRefuse(deps, keys, nowMs);
  let result: T | null;
  try {
    result = await attempt();
  } catch (err) {
    await deps.people.forgetSignInFailures(ids);
    throw err;
  }
  if (result === null) throw wrong();
  await deps.people.forgetSignInFailures(ids);
  return result;
}
