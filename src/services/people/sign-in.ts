// Signing in with an email and a password, behind the one throttle of every guess (guess-throttle.ts):
// past 10 failures for one email from one client address, 100 for the email from anywhere, or 50 from
// the address at anything, in 15 minutes, an attempt is refused until the window frees a slot. An
// unknown email costs what a wrong password costs (a dummy hash is verified) and gets the same answer.
import { randomBytes } from 'node:crypto';
import { ManageError } from '../../domain/manage-errors.js';
import type { PasswordHasher } from '../../ports/password-hasher.js';
import type { User } from '../../ports/people-store.js';
import { guess, passwordKeys } from './guess-throttle.js';
import type { PeopleDeps } from './people-deps.js';

// One dummy hash per hasher, made with its own parameters, so it costs what a real one costs.
const dummies = new WeakMap<PasswordHasher, Promise<string>>();
export function dummyHash(hasher: PasswordHasher): Promise<string> {
  let h = dummies.get(hasher);
  if (!h) dummies.set(hasher, (h = hasher.hash(randomBytes(16).toString('hex'))));
  return h;
}

export const INVALID_CREDENTIALS = () => new ManageError('INVALID_CREDENTIALS');

/** The user whose email and password these are; INVALID_CREDENTIALS or RATE_LIMITED otherwise. */
export async function checkPassword(
  deps: Pick<PeopleDeps, 'people' | 'hasher' | 'clock'>,
  input: { email: string; password: string; clientAddress: string },
): Promise<User> {
  return guess(
    deps,
    passwordKeys(input.email, input.clientAddress),
    deps.clock.now().getTime(),
    async () => {
      const found = await deps.people.findUserByEmail(input.email);
      // Always one verification: against the account's hash, or the dummy (unknown email, no password yet).
      let ok = false;
      if (found?.passwordHash) ok = await deps.hasher.verify(found.passwordHash, input.password);
      else await deps.hasher.verify(await dummyHash(deps.hasher), input.password);
      return found && ok ? found.user : null;
    },
    INVALID_CREDENTIALS,
  );
}
