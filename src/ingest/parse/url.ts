// Page paths, query values and referrer hosts (DESIGN 3, 4 "Pages", 8 "Hosts"). No URL object
// for paths: WHATWG URL parsing re-encodes, resolves dot segments and turns `\` into `/`, and
// DESIGN 4 says nothing but the query, the fragment and the percent-encoding changes.

const SCHEME_AND_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;
const PERCENT_RUN = /(?:%[0-9a-fA-F]{2})+/g;

/** The path of a URL or of a path, without query or fragment, still percent-encoded. */
export function rawPathOf(urlOrPath: string): string {
  const rest = urlOrPath.replace(SCHEME_AND_AUTHORITY, '');
  const end = rest.search(/[?#]/);
  const path = end === -1 ? rest : rest.slice(0, end);
  // An absolute URL without a path ("https://example.com?x") is the root page.
  if (path === '' && rest !== urlOrPath) return '/';
  return path;
}

/** The query string of a URL or path (without `?` and fragment), '' when none. */
export function queryOf(urlOrPath: string): string {
  const hashAt = urlOrPath.indexOf('#');
  const head = hashAt === -1 ? urlOrPath : urlOrPath.slice(0, hashAt);
  const q = head.indexOf('?');
  return q === -1 ? '' : head.slice(q + 1);
}

/** Length in bytes of the UTF-8 sequence a lead byte starts, 0 for a byte that cannot lead. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * Decode one run of `%XX` escapes. Each well-formed UTF-8 sequence becomes its character; every
 * byte that does not start one stays as its original `%XX` text, so `%C3%A9%FF` is `é%FF`.
 * Control characters (U+0000 to U+001F and U+007F) also stay encoded: decoded they would be
 * invisible in reports and unsafe in exports.
 */
function decodeRun(run: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < run.length; i += 3) bytes.push(parseInt(run.slice(i + 1, i + 3), 16));
  const original = (i: number) => run.slice(i * 3, i * 3 + 3);
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const len = sequenceLength(bytes[i]);
    if (len === 0 || i + len > bytes.length) {
      out += original(i);
      i += 1;
      continue;
    }
    let cp = len === 1 ? bytes[i] : bytes[i] & (0xff >> (len + 1));
    let valid = true;
    for (let k = 1; k < len; k++) {
      const b = bytes[i + k];
      if ((b & 0xc0) !== 0x80) {
        valid = false;
        break;
      }
      cp = (cp << 6) | (b & 0x3f);
    }
    // Overlong three/four-byte forms, UTF-16 surrogates and code points past U+10FFFF are malformed.
    if (valid && len === 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) valid = false;
    if (valid && len === 4 && (cp < 0x10000 || cp > 0x10ffff)) valid = false;
    if (valid && (cp < 0x20 || cp === 0x7f)) valid = false;
    if (!valid) {
      out += original(i);
      i += 1;
      continue;
    }
    out += String.fromCodePoint(cp);
    i += len;
  }
  return out;
}

/** Percent-decode as UTF-8, sequence by sequence; malformed sequences stay as sent. */
export function percentDecode(s: string): string {
  return s.replace(PERCENT_RUN, decodeRun);
}

/**
 * `path_canon` of DESIGN 4: the path of a URL (or of a path), percent-decoded as UTF-8, without
 * query or fragment. Nothing else changes: case, trailing slashes, `//` and dot segments stay.
 */
export function pathCanon(urlOrPath: string): string {
  return percentDecode(rawPathOf(urlOrPath));
}

/** Query parameters as sent, `+` read as a space (form encoding), values decoded leniently. */
export function queryParams(urlOrPath: string): Map<string, string> {
  const params = new Map<string, string>();
  const query = queryOf(urlOrPath);
  if (query === '') return params;
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = percentDecode((eq === -1 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
    const value = eq === -1 ? '' : percentDecode(pair.slice(eq + 1).replace(/\+/g, ' '));
    // The first occurrence wins, as in URLSearchParams.get.
    if (!params.has(name)) params.set(name, value);
  }
  return params;
}

export interface UtmValues {
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
}

/** utm_source, utm_medium and utm_campaign of a URL; an empty value counts as absent. */
export function utmOf(urlOrPath: string): UtmValues {
  const params = queryParams(urlOrPath);
  const pick = (name: string) => {
    const v = params.get(name)?.trim();
    return v ? v : null;
  };
  return { utm_source: pick('utm_source'), utm_medium: pick('utm_medium'), utm_campaign: pick('utm_campaign') };
}

/** A `gclid` or `msclkid` parameter is present (any value, names case-sensitive as the ad networks send them). */
export function hasClickId(urlOrPath: string): boolean {
  const params = queryParams(urlOrPath);
  return params.has('gclid') || params.has('msclkid');
}

/** Lower-case host without port, trailing dot or one leading `www.`; null when unparseable. */
export function normalizeHost(host: string): string | null {
  let url: URL;
  try {
    url = new URL(`http://${host.trim()}`);
  } catch {
    return null;
  }
  return bareHost(url.hostname);
}

function bareHost(hostname: string): string | null {
  let h = hostname.toLowerCase().replace(/\.$/, '');
  if (h.startsWith('www.')) h = h.slice(4);
  return h === '' ? null : h;
}

/**
 * Referrer host per DESIGN 3 and 8: lower case, without `www.`; null when the referrer is empty,
 * unparseable, has no host, or is the site itself (port and `www.` ignored).
 */
export function referrerHost(referrer: string | null | undefined, siteHostnames: readonly string[]): string | null {
  if (referrer == null) return null;
  const trimmed = referrer.trim();
  if (trimmed === '' || trimmed === '-') return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  const host = bareHost(url.hostname);
  if (host === null) return null;
  for (const own of siteHostnames) if (normalizeHost(own) === host) return null;
  return host;
}
