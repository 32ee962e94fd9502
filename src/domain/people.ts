// Rules about people that every entry point shares: emails, passwords, the lifetimes of sessions and
// links, the sign-in throttle. Pure.

export const MIN_PASSWORD_LENGTH = 10;
/** argon2 takes any length; a bound keeps one request from hashing megabytes */
export const MAX_PASSWORD_LENGTH = 1024;
export const MAX_EMAIL_LENGTH = 254;

const DAY_MS = 86_400_000;
export const SESSION_LIFETIME_MS = 14 * DAY_MS;
/** a session's expiry moves at most this often (a write per request would cost every request) */
export const SESSION_SLIDE_EVERY_MS = 60_000;
export const INVITATION_LIFETIME_MS = 2 * DAY_MS;
export const RESET_LINK_LIFETIME_MS = 60 * 60_000;
export const SIGN_IN_LINK_LIFETIME_MS = 60 * 60_000;

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/**
 * Failures allowed in any SIGN_IN_WINDOW_MS: per secret and client address together (an account's
 * email, a share link), per secret from every address, and per client address whatever it guessed.
 * The pair's bound is the tight one, so a guesser elsewhere cannot lock the owner out of their own
 * account with ten wrong passwords; the secret's own bound caps guessers spread over many addresses.
 */
export const SIGN_IN_MAX_FAILURES_PER_PAIR = 10;
export const SIGN_IN_MAX_FAILURES_PER_SECRET = 100;
export const SIGN_IN_MAX_FAILURES_PER_ADDRESS = 50;
/**
 * Wrong second-factor codes (TOTP or recovery) allowed in any SIGN_IN_WINDOW_MS for one account from
 * anywhere. Whoever types them holds the password already; a code has 3 right answers in 10^6 (the
 * window of steps), so this caps such a guesser at about 0.6% a day, while the pair's bound (10 from
 * one address) and the address's (50, shared with every other guess) still hold.
 */
export const TWO_FACTOR_MAX_FAILURES_PER_USER = 20;
/**
 * Reset mails asked for in any SIGN_IN_WINDOW_MS: per client address (an address asking for more is
 * answered 429, which says nothing of any account), and per email (past it the request is answered as
 * any other and no mail goes out), so that nobody can fill a mailbox with resets or send footfall's
 * mail to a list of addresses.
 */
export const RESET_REQUESTS_PER_ADDRESS = 10;
export const RESET_MAILS_PER_EMAIL = 3;

// One @, no spaces or control characters, a dot in the domain: what a mailbox needs, no more.
const EMAIL_RE = /^[^\s@\u0000-\u001f\u007f]+@[^\s@\u0000-\u001f\u007f]+\.[^\s@\u0000-\u001f\u007f.]+$/;

/** The email as stored and compared: trimmed and lower case; null when it is not an email address. */
export function normalizeEmail(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const email = input.trim().toLowerCase();
  if (email.length === 0 || email.length > MAX_EMAIL_LENGTH || !EMAIL_RE.test(email)) return null;
  return email;
}

/** What is wrong with a new password, or null when it is acceptable. */
export function passwordProblem(password: unknown): string | null {
  if (typeof password !== 'string') return 'password must be a string';
  if ([...password].length < MIN_PASSWORD_LENGTH) return `password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `password must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}

/**
 * When a throttled key may try again: with `times` its failures inside the window (ascending), the
 * epoch ms at which the window holds fewer than `max` of them; null when it holds fewer already.
 */
export function throttledUntil(times: readonly number[], max: number, windowMs: number): number | null {
  if (times.length < max) return null;
  return times[times.length - max] + windowMs;
}
