// What the people use-cases need, and the secrets they hand out: session ids and the secrets of
// invitation, reset and sign-in links. Each is random, given to its holder once, and stored only as
// its sha256 (like token secrets).
import { randomBytes } from 'node:crypto';
import { randomBase62, type RandomBytes } from '../../domain/tokens.js';
import type { Mailer } from '../../ports/mailer.js';
import type { PasswordHasher } from '../../ports/password-hasher.js';
import type { ManageDeps } from '../manage/access.js';

export interface PeopleDeps extends ManageDeps {
  hasher: PasswordHasher;
  /** the origin of the links handed out (FOOTFALL_PUBLIC_URL) */
  publicUrl: string;
  random?: RandomBytes;
  /** outgoing mail (invitations, reset links); absent: none is sent */
  mailer?: Mailer;
}

/** ~190 bits: the secret of a link, in its URL path. */
const LINK_SECRET_LENGTH = 32;
/** ~256 bits: a session id, in its cookie. */
export const SESSION_SECRET_LENGTH = 43;
const LINK_SECRET_RE = /^[0-9A-Za-z]{32}$/;

export type LinkKind = 'invite' | 'reset' | 'sign-in';

export function newSecret(deps: Pick<PeopleDeps, 'random'>, length = LINK_SECRET_LENGTH): string {
  return randomBase62(deps.random ?? randomBytes, length);
}

/** Whether a string can be a link secret at all (anything else is refused without a lookup). */
export function looksLikeLinkSecret(s: unknown): s is string {
  return typeof s === 'string' && LINK_SECRET_RE.test(s);
}

/** The page a link opens: /app/invite/<secret>, /app/reset/<secret> or /app/sign-in/<secret>. */
export function linkUrl(publicUrl: string, kind: LinkKind, secret: string): string {
  return `${new URL(publicUrl).origin}/app/${kind}/${secret}`;
}
