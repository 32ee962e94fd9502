// Sessions of people signed in to the dashboard: an opaque random id in a cookie, stored as its
// sha256, living 14 days from the last request (the expiry moves at most once a minute). The CSRF
// token is derived, not stored: an HMAC of the stored hash under a control-plane secret, so it is
// fixed for the session, unknowable without the secret, and checked without a lookup.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SESSION_LIFETIME_MS, SESSION_SLIDE_EVERY_MS } from '../../domain/people.js';
import { hashSecret } from '../../domain/tokens.js';
import type { CatalogStore } from '../../ports/catalog-store.js';
import { controlSecret } from '../control-secret.js';
import type { User } from '../../ports/people-store.js';
import { newSecret, SESSION_SECRET_LENGTH, type PeopleDeps } from './people-deps.js';

const SESSION_SECRET_RE = new RegExp(`^[0-9A-Za-z]{${SESSION_SECRET_LENGTH}}$`);
/** the name of the control-plane secret that keys CSRF tokens */
export const CSRF_KEY_NAME = 'csrf-token-key';

export interface NewSession {
  /** the cookie's value: shown to the browser only, never stored or logged */
  secret: string;
  idHash: string;
  expiresAt: Date;
}

export interface ActiveSession {
  user: User;
  idHash: string;
  expiresAt: Date;
  /** the expiry moved with this request: the cookie is sent again with it */
  renewed: boolean;
}

export async function startSession(deps: Pick<PeopleDeps, 'people' | 'clock' | 'random'>, userId: string): Promise<NewSession> {
  const now = deps.clock.now();
  const secret = newSecret(deps, SESSION_SECRET_LENGTH);
  const idHash = hashSecret(secret);
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  await deps.people.createSession({ idHash, userId, now: now.toISOString(), expiresAt: expiresAt.toISOString() });
  return { secret, idHash, expiresAt };
}

/** The live session of a cookie value, its expiry slid forward; null for anything else. */
export async function resolveSession(
  deps: Pick<PeopleDeps, 'people' | 'clock'>,
  secret: string | undefined,
): Promise<ActiveSession | null> {
  if (secret === undefined || !SESSION_SECRET_RE.test(secret)) return null;
  const idHash = hashSecret(secret);
  const now = deps.clock.now();
  const found = await deps.people.findSession(idHash, now.toISOString());
  if (!found) return null;
  if (now.getTime() - Date.parse(found.lastSeenAt) < SESSION_SLIDE_EVERY_MS)
    return { user: found.user, idHash, expiresAt: new Date(found.expiresAt), renewed: false };
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  await deps.people.touchSession(idHash, now.toISOString(), expiresAt.toISOString());
  return { user: found.user, idHash, expiresAt, renewed: true };
}

export async function endSession(deps: Pick<PeopleDeps, 'people'>, idHash: string): Promise<void> {
  await deps.people.deleteSession(idHash);
}

const csrfKey = (catalog: CatalogStore) => controlSecret(catalog, CSRF_KEY_NAME);

export async function csrfTokenFor(deps: Pick<PeopleDeps, 'catalog'>, idHash: string): Promise<string> {
  return createHmac('sha256', await csrfKey(deps.catalog))
    .update(idHash)
    .digest('base64url');
}

export async function csrfTokenMatches(deps: Pick<PeopleDeps, 'catalog'>, idHash: string, sent: string | undefined): Promise<boolean> {
  if (typeof sent !== 'string' || sent.length === 0 || sent.length > 100) return false;
  const want = Buffer.from(await csrfTokenFor(deps, idHash));
  const got = Buffer.from(sent);
  return got.length === want.length && timingSafeEqual(got, want);
}
