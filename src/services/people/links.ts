// Single-use links for a person who cannot sign in with a password: a password reset (the operator's
// `footfall user reset-password`, or a request mailed when the server sends mail) and a
// one-time sign-in (the demo owner of `npm start`). Both live an hour, are stored hashed, and are
// used once; a new password ends every session of the person.
import { invalidField, ManageError } from '../../domain/manage-errors.js';
import { normalizeEmail, passwordProblem, RESET_LINK_LIFETIME_MS, SIGN_IN_LINK_LIFETIME_MS } from '../../domain/people.js';
import { hashSecret } from '../../domain/tokens.js';
import type { LinkPurpose, User } from '../../ports/people-store.js';
import { notFound } from '../manage/access.js';
import { linkUrl, looksLikeLinkSecret, newSecret, type PeopleDeps } from './people-deps.js';
import { countAttempt, guess, linkKeys, resetMailKeys, resetRequestKeys, tryCountAttempt } from './guess-throttle.js';
import { resetMessage } from './people-mail.js';
import { checkPassword } from './sign-in.js';
import type { IssuedLink } from './invitations.js';

const PAGE: Record<LinkPurpose, 'reset' | 'sign-in'> = { reset: 'reset', sign_in: 'sign-in' };
const LIFETIME: Record<LinkPurpose, number> = { reset: RESET_LINK_LIFETIME_MS, sign_in: SIGN_IN_LINK_LIFETIME_MS };

export async function issueLink(
  deps: Pick<PeopleDeps, 'people' | 'clock' | 'publicUrl' | 'random'>,
  user: User,
  purpose: LinkPurpose,
): Promise<IssuedLink> {
  const now = deps.clock.now();
  const secret = newSecret(deps);
  const expiresAt = new Date(now.getTime() + LIFETIME[purpose]).toISOString();
  await deps.people.createLink({ secretHash: hashSecret(secret), userId: user.id, purpose, expiresAt, now: now.toISOString() });
  return { url: linkUrl(deps.publicUrl, PAGE[purpose], secret), expiresAt };
}

/** The operator's link for an email (the command line may say that no account has it). */
export async function issueLinkFor(
  deps: Pick<PeopleDeps, 'people' | 'clock' | 'publicUrl' | 'random'>,
  email: string,
  purpose: LinkPurpose,
): Promise<IssuedLink & { user: User }> {
  const found = await deps.people.findUserByEmail(email);
  if (!found) throw notFound('user', email);
  return { ...(await issueLink(deps, found.user, purpose)), user: found.user };
}

/** The answer to a reset request: the same for every email, so it tells nothing about accounts. */
export interface ResetRequested {
  /** whether this server sends mail: false, nothing was sent (the operator gives reset links) */
  mailConfigured: boolean;
}

/**
 * A reset asked for by email. The look-up, the link and the mail run after the answer, so neither
 * the answer nor the time it took says whether an account has the email. A mail that is not sent is
 * reported to `onFailure` (the server's log) in words that hold neither the link nor the address.
 * Throttled (docs/decisions/mail.md): a client address past its requests in the window is answered
 * 429 before anything else; an email past its mails gets none, and its request is answered as any other.
 */
export async function requestReset(
  deps: Pick<PeopleDeps, 'people' | 'clock' | 'publicUrl' | 'random' | 'mailer'>,
  input: { email: string; clientAddress: string },
  onFailure: (reason: string) => void,
): Promise<ResetRequested> {
  const mailer = deps.mailer;
  if (!mailer) return { mailConfigured: false };
  const now = deps.clock.now().getTime();
  await countAttempt(deps, resetRequestKeys(input.clientAddress), now);
  const email = normalizeEmail(input.email);
  if (email === null) return { mailConfigured: true };
  // the look-up, the link and the mail, after the answer (the mailer's close waits for them)
  mailer.later(async () => {
    try {
      const found = await deps.people.findUserByEmail(email);
      if (!found) return;
      // counted before it is made, so reset requests answered at once cannot all pass the bound
      if (!(await tryCountAttempt(deps, resetMailKeys(email), now)))
        return onFailure('this email was sent the most reset mails the window allows');
      const link = await issueLink(deps, found.user, 'reset');
      const outcome = await mailer.send(resetMessage({ to: found.user.email, url: link.url, expiresAt: link.expiresAt }));
      if (!outcome.sent) onFailure(outcome.reason);
    } catch (err) {
      onFailure(`the reset link could not be made (${err instanceof Error ? err.name : 'error'})`);
    }
  });
  return { mailConfigured: true };
}

const UNUSABLE = (what: string) => new ManageError('NOT_FOUND', `This ${what} link is unknown, used or expired: ask for a new one.`);

/**
 * Sets the new password from a reset link; every session of the person ends. The link is looked up
 * before anything is hashed, behind the throttle of link guesses (per client address), so a made-up
 * link costs one indexed read, not an argon2 hash.
 */
export async function acceptReset(
  deps: Pick<PeopleDeps, 'people' | 'hasher' | 'clock'>,
  input: { secret: string; password: string; clientAddress: string },
): Promise<User> {
  const now = deps.clock.now();
  const secretHash = looksLikeLinkSecret(input.secret) ? hashSecret(input.secret) : null;
  await guess(
    deps,
    linkKeys(input.clientAddress),
    now.getTime(),
    async () =>
      secretHash !== null && (await deps.people.findOpenLink({ secretHash, purpose: 'reset', now: now.toISOString() })) ? true : null,
    () => UNUSABLE('reset'),
  );
  const problem = passwordProblem(input.password);
  if (problem) throw invalidField('password', problem);
  const newPasswordHash = await deps.hasher.hash(input.password);
  const user = await deps.people.redeemLink({
    secretHash: secretHash!,
    purpose: 'reset',
    now: deps.clock.now().toISOString(),
    newPasswordHash,
  });
  // used by a request that was quicker, between the look-up and now
  if (!user) throw UNUSABLE('reset');
  return user;
}

export async function acceptSignInLink(
  deps: Pick<PeopleDeps, 'people' | 'clock'>,
  input: { secret: string; clientAddress: string },
): Promise<User> {
  const now = deps.clock.now();
  return guess(
    deps,
    linkKeys(input.clientAddress),
    now.getTime(),
    async () =>
      looksLikeLinkSecret(input.secret)
        ? deps.people.redeemLink({ secretHash: hashSecret(input.secret), purpose: 'sign_in', now: now.toISOString() })
        : null,
    () => UNUSABLE('sign-in'),
  );
}

/** A signed-in person's new password (the current one confirms it is them); every session ends. */
export async function changePassword(
  deps: Pick<PeopleDeps, 'people' | 'hasher' | 'clock'>,
  user: User,
  input: { currentPassword: string; newPassword: string; clientAddress: string },
): Promise<void> {
  const problem = passwordProblem(input.newPassword);
  if (problem) throw invalidField('new_password', problem);
  // A person who signed in by link and never chose a password has none to confirm.
  if (user.hasPassword)
    await checkPassword(deps, { email: user.email, password: input.currentPassword, clientAddress: input.clientAddress });
  await deps.people.setPassword(user.id, await deps.hasher.hash(input.newPassword));
}
