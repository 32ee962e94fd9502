// The TOTP secret at rest: AES-256-GCM under a key derived from the control-plane secret
// `totp-secret-key` (made on first use, like the CSRF key), with the user id as associated data, so a
// sealed secret copied to another person's row does not open. The column alone (a query's output, a row
// pasted into a ticket, a log of statements) gives nothing; whoever holds the whole control plane holds
// the key too (docs/decisions/people.md, "Two-factor sign-in", says what that leaves).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { CatalogStore } from '../../ports/catalog-store.js';
import { controlSecret } from '../control-secret.js';

/** the name of the control-plane secret the sealing key is derived from */
export const TOTP_KEY_NAME = 'totp-secret-key';
const VERSION = 'v1';

async function keyOf(catalog: CatalogStore): Promise<Buffer> {
  return Buffer.from(hkdfSync('sha256', await controlSecret(catalog, TOTP_KEY_NAME), '', 'footfall totp secret seal v1', 32));
}

export async function sealTotpSecret(deps: { catalog: CatalogStore }, userId: string, base32: string): Promise<string> {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', await keyOf(deps.catalog), iv).setAAD(Buffer.from(userId));
  const sealed = Buffer.concat([cipher.update(base32, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
}

/** The base32 secret; throws when the sealed value was not sealed for this user under this key. */
export async function openTotpSecret(deps: { catalog: CatalogStore }, userId: string, sealed: string): Promise<string> {
  const [version, iv, body] = sealed.split('.');
  if (version !== VERSION || !iv || !body) throw new Error('a sealed TOTP secret of an unknown form');
  const bytes = Buffer.from(body, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', await keyOf(deps.catalog), Buffer.from(iv, 'base64url'))
    .setAAD(Buffer.from(userId))
    .setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
}
