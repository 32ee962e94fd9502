// Input rules of domain scopes and hostname patterns. Pure; every failure is a CatalogError with the
// spec's registration code and details naming the field and the value.
import net from 'node:net';
import { CatalogError } from '../ports/catalog-store.js';
import { isSpecialUse, registrableDomain } from '../domain/site-ownership.js';

const LABEL_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_NAME = 253;

/** Why a dotted name is malformed, or null when it is well formed (one label is enough here). */
function malformation(name: string): string | null {
  if (name.length === 0) return 'it is empty';
  if (name.length > MAX_NAME) return `longer than ${MAX_NAME} characters`;
  for (const label of name.split('.')) {
    if (label.length === 0) return 'empty label';
    if (label.length > 63) return 'a label is longer than 63 characters';
    if (!LABEL_RE.test(label)) return 'labels are letters, digits and inner hyphens only';
  }
  return null;
}

/**
 * A domain scope: a registrable domain (one label below a public suffix), lower-cased.
 * INVALID_SITE_HOSTNAME when malformed; SITE_SCOPE_NOT_ALLOWED for an IP address, localhost, a public
 * suffix or a subdomain; SITE_DNS_VERIFICATION_UNAVAILABLE under a special-use name.
 */
export function checkDomainScope(input: unknown): string {
  const field = { field: 'domain_scope', value: input };
  if (typeof input !== 'string') throw new CatalogError('INVALID_SITE_HOSTNAME', 'domain scope must be a string', field);
  const scope = input.trim().toLowerCase();
  const notAllowed = (why: string, extra: Record<string, unknown> = {}): never => {
    throw new CatalogError('SITE_SCOPE_NOT_ALLOWED', `domain scope "${input}" is not allowed: ${why}`, { ...field, ...extra });
  };
  if (net.isIP(scope.replace(/^\[(.*)\]$/, '$1')) !== 0)
    notAllowed('it is an IP address; a scope is a registrable domain such as example.com');
  if (scope === 'localhost') notAllowed("localhost is nobody's domain; register it as an exact hostname instead");
  const bad = malformation(scope);
  if (bad) throw new CatalogError('INVALID_SITE_HOSTNAME', `domain scope "${input}" is malformed: ${bad}`, field);
  if (/^\d+$/.test(scope.slice(scope.lastIndexOf('.') + 1))) notAllowed('the last label is all digits, as in an IP address');
  if (isSpecialUse(scope))
    throw new CatalogError(
      'SITE_DNS_VERIFICATION_UNAVAILABLE',
      `domain scope "${input}" lies under a special-use name that public DNS cannot prove; register its hostnames as exact hostnames instead`,
      { ...field, reason: 'special_use_name' },
    );
  const domain = registrableDomain(scope);
  if (domain === null)
    notAllowed('it is a public suffix, shared by every domain registered under it; ask for your own domain, e.g. example.co.uk');
  if (domain !== scope)
    notAllowed(
      `it is a subdomain; ask for the registrable domain "${domain}" (it covers every subdomain) or use a hostname pattern inside it`,
      {
        registrable_domain: domain,
      },
    );
  return scope;
}

/**
 * Hostname patterns `*.<suffix>`: one leading `*.` label, then a well-formed name. Lower-cased and
 * de-duplicated (first occurrence keeps its place); returned as their suffixes. INVALID_SITE_HOSTNAME.
 */
export function normalizePatterns(input: unknown): string[] {
  if (!Array.isArray(input))
    throw new CatalogError('INVALID_SITE_HOSTNAME', 'hostname patterns must be a list', { field: 'hostname_patterns' });
  const suffixes = input.map((p: unknown) => {
    const field = { field: 'hostname_patterns', value: p };
    if (typeof p !== 'string') throw new CatalogError('INVALID_SITE_HOSTNAME', 'a hostname pattern must be a string', field);
    const pattern = p.trim().toLowerCase();
    const bad = (why: string): never => {
      throw new CatalogError('INVALID_SITE_HOSTNAME', `hostname pattern "${p}" is malformed: ${why}`, field);
    };
    if (!pattern.startsWith('*.')) bad('a pattern is "*." followed by a domain name, e.g. *.shop.example.com');
    const suffix = pattern.slice(2);
    if (suffix.includes('*')) bad('only one leading "*." label may be a wildcard');
    const why = malformation(suffix);
    if (why) bad(why);
    if (suffix.length + 2 > MAX_NAME) bad(`longer than ${MAX_NAME} characters`);
    return suffix;
  });
  return [...new Set(suffixes)];
}

/**
 * The registrable domain each pattern lies in; HOSTNAME_PATTERN_OUT_OF_SCOPE when that is not one of
 * `asked` (the domains the site's workspace has asked for) or there is none (a pattern over a public suffix).
 */
export function patternDomains(suffixes: string[], asked: ReadonlySet<string>): string[] {
  return suffixes.map((suffix) => {
    const domain = isSpecialUse(suffix) ? null : registrableDomain(suffix);
    if (domain === null || !asked.has(domain)) {
      const fix =
        domain === null
          ? 'a pattern must lie inside a registrable domain, e.g. *.shop.example.com'
          : `ask for the domain scope "${domain}" on a site of this workspace first`;
      throw new CatalogError(
        'HOSTNAME_PATTERN_OUT_OF_SCOPE',
        `hostname pattern "*.${suffix}" lies outside every domain this workspace has asked for: ${fix}`,
        {
          field: 'hostname_patterns',
          value: `*.${suffix}`,
          ...(domain === null ? {} : { required_domain_scope: domain }),
        },
      );
    }
    return domain;
  });
}
