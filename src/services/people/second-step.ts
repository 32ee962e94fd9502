// The second step of signing in, for a person who turned two-factor sign-in on: a right password (or a
// reset or sign-in link) opens no session but a challenge, a random secret given to the browser only,
// stored as its sha256, bound to the person, open five minutes and used once. The session comes when
// the challenge comes back with a current code or a recovery code (two-factor.ts checks it, behind the
// throttle). An unknown or spent challenge is a guess of a secret like a made-up link (linkKeys).
import { ManageError } from '../../domain/manage-errors.js';
import { hashSecret } from '../../domain/tokens.js';
import { TWO_FACTOR_CHALLENGE_LIFETIME_MS } from '../../domain/two-factor.js';
import type { User } from '../../ports/people-store.js';
import { guess, linkKeys } from './guess-throttle.js';
import { newSecret, SESSION_SECRET_LENGTH, type PeopleDeps } from './people-deps.js';
import { isTwoFactorOn, verifySecondFactor } from './two-factor.js';

const CHALLENGE_RE = new RegExp(`^[0-9A-Za-z]{${SESSION_SECRET_LENGTH}}$`);

export interface SecondStep {
  /** given to the browser only, never stored or logged */
  challenge: string;
  expiresAt: string;
}

const SPENT = () => new ManageError('UNAUTHORIZED', 'This sign-in has expired or was finished already: sign in again with your password.');

/** The second step a person with two-factor on must take before a session; null when it is off. */
export async function secondStepFor(deps: Pick<PeopleDeps, 'people' | 'clock' | 'random'>, user: User): Promise<SecondStep | null> {
  if (!(await isTwoFactorOn(deps, user.id))) return null;
  const now = deps.clock.now();
  const challenge = newSecret(deps, SESSION_SECRET_LENGTH);
  const expiresAt = new Date(now.getTime() + TWO_FACTOR_CHALLENGE_LIFETIME_MS).toISOString();
  await deps.people.createTwoFactorChallenge({ challengeHash: hashSecret(challenge), userId: user.id, now: now.toISOString(), expiresAt });
  return { challenge, expiresAt };
}

/** The person the challenge was made for, once it came back with a right code; it is then spent. */
export async function finishSecondStep(
  deps: Pick<PeopleDeps, 'people' | 'catalog' | 'clock' | 'random'>,
  input: { challenge: string; code: string; clientAddress: string },
): Promise<User> {
  const now = deps.clock.now();
  const challengeHash = CHALLENGE_RE.test(input.challenge) ? hashSecret(input.challenge) : null;
  const userId = await guess(
    deps,
    linkKeys(input.clientAddress),
    now.getTime(),
    async () => (challengeHash === null ? null : deps.people.findTwoFactorChallenge(challengeHash, now.toISOString())),
    SPENT,
  );
  await verifySecondFactor(deps, userId, input.code, input.clientAddress);
  // spent by a quicker request meanwhile (the same challenge with another right code)
  if (!(await deps.people.useTwoFactorChallenge(challengeHash!, deps.clock.now().toISOString()))) throw SPENT();
  const user = await deps.people.getUser(userId);
  if (!user) throw SPENT();
  return user;
}
