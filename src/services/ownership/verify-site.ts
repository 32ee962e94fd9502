// `footfall site verify` and the dashboard's verify button: looks the site's TXT record up now and,
// when it holds the workspace's code, records the proof of the domain (for every site of the workspace).
import { CatalogError, type CatalogStore } from '../../ports/catalog-store.js';
import type { DnsTxtResolver } from '../../ports/dns-txt-resolver.js';

export interface VerifySiteDeps {
  catalog: Pick<CatalogStore, 'getSiteOwnership' | 'markDomainVerified'>;
  dns: DnsTxtResolver;
}

export interface SiteVerification {
  siteId: string;
  domain: string;
  verified: true;
  verifiedAt: string;
}

/**
 * NOT_FOUND; SITE_DNS_VERIFICATION_UNAVAILABLE (no domain scope); SITE_SCOPE_ALREADY_CLAIMED (another
 * workspace proved the domain); SITE_DNS_VERIFICATION_FAILED (no TXT record equal to the expected
 * value, or no resolver answered: `retryable`). A domain already proven answers at once.
 */
export async function verifySite(deps: VerifySiteDeps, siteId: string): Promise<SiteVerification> {
  const site = await deps.catalog.getSiteOwnership(siteId);
  if (!site) throw new CatalogError('NOT_FOUND', `unknown site "${String(siteId)}"`);
  const proof = site.domainScope === null ? undefined : site.domains.find((d) => d.domain === site.domainScope);
  if (!proof)
    throw new CatalogError(
      'SITE_DNS_VERIFICATION_UNAVAILABLE',
      `site ${site.siteId} has no domain scope, so there is no domain to verify; give it one with site update --domain-scope (exact hostnames need no proof)`,
      { site_id: site.siteId, reason: 'no_domain_scope' },
    );
  const done = (verifiedAt: string): SiteVerification => ({ siteId: site.siteId, domain: proof.domain, verified: true, verifiedAt });
  if (proof.verifiedAt !== null) return done(proof.verifiedAt);
  if (proof.claimedElsewhere)
    throw new CatalogError('SITE_SCOPE_ALREADY_CLAIMED', `${proof.domain} is already verified by another workspace`, {
      domain: proof.domain,
    });

  const lookup = await deps.dns.resolveTxt(proof.recordName);
  const found = lookup.answered ? lookup.records.map((chunks) => chunks.join('')) : [];
  if (!found.includes(proof.recordValue)) {
    const details = { record_name: proof.recordName, expected_value: proof.recordValue, found, retryable: !lookup.answered };
    const message = lookup.answered
      ? `no TXT record ${proof.recordName} with the value ${proof.recordValue} yet (${found.length ? `found: ${found.map((f) => JSON.stringify(f)).join(', ')}` : 'none found'}); publish it at your DNS provider, then verify again (DNS changes can take a while to show)`
      : `no DNS resolver answered for ${proof.recordName} (${lookup.reason}); try again shortly, or name reachable resolvers with FOOTFALL_DNS_SERVERS`;
    throw new CatalogError('SITE_DNS_VERIFICATION_FAILED', message, details);
  }
  return done((await deps.catalog.markDomainVerified(site.workspaceId, proof.domain)).verifiedAt);
}
