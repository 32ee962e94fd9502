// What a domain scope, a hostname pattern and their DNS proof are (docs/decisions/site-ownership.md).
// Pure: the Public Suffix List comes compiled into tldts, so nothing here asks the network.
import { createRequire } from 'node:module';
import type { parse as Parse } from 'tldts';

/**
 * Names public DNS cannot prove (RFC 6761 and its successors): nobody can publish a record under
 * them that a resolver of ours would trust.
 */
export const SPECIAL_USE_SUFFIXES = ['localhost', 'local', 'test', 'example', 'invalid', 'internal', 'home.arpa'] as const;

export const VERIFICATION_LABEL = '_footfall';
export const VERIFICATION_VALUE_PREFIX = 'footfall-verification=';
/** base62 characters of a verification code */
export const VERIFICATION_CODE_LENGTH = 32;

/** The TXT record that proves `domain` for the workspace whose code this is. */
export function verificationRecord(domain: string, code: string): { name: string; type: 'TXT'; value: string } {
  return { name: `${VERIFICATION_LABEL}.${domain}`, type: 'TXT', value: `${VERIFICATION_VALUE_PREFIX}${code}` };
}

/** Whether `name` is, or lies under, a special-use name. Expects a lower-case name. */
export function isSpecialUse(name: string): boolean {
  return SPECIAL_USE_SUFFIXES.some((s) => name === s || name.endsWith(`.${s}`));
}

// The private section counts: `me.github.io` is registrable and `github.io` is a suffix nobody owns
// alone, as the browsers' cookie rules have it.
const PSL = { allowPrivateDomains: true, extractHostname: false, validateHostname: false } as const;

/**
 * tldts is CommonJS: imported, Node scans its 200 kB for named exports at every start of the control
 * plane (60-130 ms); required at the first look-up it costs about 10 ms, and a command that looks up
 * no domain (site list) not even that.
 */
let tldtsParse: typeof Parse | undefined;
function parse(host: string, opts: typeof PSL): ReturnType<typeof Parse> {
  tldtsParse ??= (createRequire(import.meta.url)('tldts') as { parse: typeof Parse }).parse;
  return tldtsParse(host, opts);
}

/**
 * The registrable domain of a lower-case host name (one label below its public suffix), or null
 * when there is none: a public suffix itself, an IP address, a single label such as `localhost`.
 */
export function registrableDomain(host: string): string | null {
  if (host === '' || host.startsWith('.') || host.endsWith('.')) return null;
  const p = parse(host, PSL);
  return p.isIp ? null : p.domain;
}

/**
 * The suffixes a pattern `*.<suffix>` would need to match `host` (a pattern matches one or more
 * labels in front of its suffix), kept inside `domain`, longest first. `host` must lie inside `domain`.
 */
export function patternSuffixesOf(host: string, domain: string): string[] {
  const out: string[] = [];
  let rest = host;
  while (rest.length > domain.length) {
    rest = rest.slice(rest.indexOf('.') + 1);
    out.push(rest);
  }
  return out;
}

/** Whether `name` is `domain` or one of its subdomains. */
export function liesInside(name: string, domain: string): boolean {
  return name === domain || name.endsWith(`.${domain}`);
}
