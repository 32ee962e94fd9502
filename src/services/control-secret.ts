// A named control-plane secret (the CSRF key, the share cookie key, the embed key master): made once
// by whichever process asks first, fixed from then on, so each process reads each one once.
import type { CatalogStore } from '../ports/catalog-store.js';

const secrets = new WeakMap<CatalogStore, Map<string, Promise<string>>>();

export function controlSecret(catalog: CatalogStore, name: string): Promise<string> {
  const byName = secrets.get(catalog) ?? new Map<string, Promise<string>>();
  secrets.set(catalog, byName);
  let secret = byName.get(name);
  if (!secret) {
    secret = catalog.getOrCreateSecret(name);
    // a failed read is asked again next time
    secret.catch(() => byName.delete(name));
    byName.set(name, secret);
  }
  return secret;
}
