// The spec's site registration and ownership codes with the status the management API answers them
// with; the command line exits 1 with any of them.
import type { CatalogError } from '../../ports/catalog-store.js';

export const SITE_REGISTRATION_STATUS = {
  INVALID_SITE_HOSTNAME: 422,
  SITE_SCOPE_NOT_ALLOWED: 422,
  HOSTNAME_PATTERN_OUT_OF_SCOPE: 422,
  SITE_SCOPE_ALREADY_CLAIMED: 409,
  SITE_DNS_VERIFICATION_FAILED: 422,
  SITE_DNS_VERIFICATION_UNAVAILABLE: 422,
} as const satisfies Partial<Record<CatalogError['code'], number>>;

export type SiteRegistrationCode = keyof typeof SITE_REGISTRATION_STATUS;

export function isSiteRegistrationCode(code: string): code is SiteRegistrationCode {
  return Object.hasOwn(SITE_REGISTRATION_STATUS, code);
}
