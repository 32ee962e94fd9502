// The two links a report subscriber gets. Confirming an outside address: a random secret, mailed once
// and stored only as its hash, like an invitation's. Unsubscribing: in every report, so it cannot be
// a secret stored hashed (each mail must carry it again); it is an HMAC of the subscription id under a
// control-plane key instead, checked in constant time, and it only ever ends the subscription.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CatalogStore } from '../../ports/catalog-store.js';
import { controlSecret } from '../control-secret.js';

const UNSUBSCRIBE_KEY = 'report-unsubscribe';
const MAC_LENGTH = 43;
const TOKEN_RE = /^(rep_[0-9A-Za-z]{1,64})\.([0-9A-Za-z_-]{43})$/;

/** How long a confirmation link works: a week, as people read mail late. */
export const CONFIRM_LIFETIME_MS = 7 * 86_400_000;

async function macOf(catalog: CatalogStore, subscriptionId: string): Promise<string> {
  const key = await controlSecret(catalog, UNSUBSCRIBE_KEY);
  return createHmac('sha256', key).update(`unsubscribe:${subscriptionId}`).digest('base64url').slice(0, MAC_LENGTH);
}

export function reportLinkOrigin(publicUrl: string): string {
  return new URL(publicUrl).origin;
}

/** The one-click unsubscribe URL of a subscription (RFC 8058): the same in every mail to it. */
export async function unsubscribeUrl(catalog: CatalogStore, publicUrl: string, subscriptionId: string): Promise<string> {
  return `${reportLinkOrigin(publicUrl)}/app/reports/unsubscribe/${subscriptionId}.${await macOf(catalog, subscriptionId)}`;
}

/** The subscription an unsubscribe token names, when its MAC is right; null for anything else. */
export async function subscriptionOfToken(catalog: CatalogStore, token: unknown): Promise<string | null> {
  if (typeof token !== 'string') return null;
  const m = TOKEN_RE.exec(token);
  if (!m) return null;
  const want = Buffer.from(await macOf(catalog, m[1]));
  const got = Buffer.from(m[2]);
  return got.length === want.length && timingSafeEqual(got, want) ? m[1] : null;
}

export function confirmUrl(publicUrl: string, secret: string): string {
  return `${reportLinkOrigin(publicUrl)}/app/reports/confirm/${secret}`;
}
