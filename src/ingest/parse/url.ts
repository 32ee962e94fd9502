// Page paths, query values and referrer hosts (docs/product.md §3, §4.3, §8.6). No URL object
// for paths: WHATWG URL parsing re-encodes, resolves dot segments and turns `\` into `/`, and
// docs/product.md §4.3 says nothing but the query, the fragment and the percent-encoding changes.
import { BoundedMemo } from './memo.js';

const SCHEME_AND_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;
const PERCENT_RUN = /(?:%[0-9a-fA-F]{2})+/g;

/** The path of a URL or of a path, without query or fragment, still percent-encoded. */
export function rawPathOf(urlOrPath: string): string {
  // The two shapes of nearly every line, without regexes: a path, or a lower-case http(s) URL.
  const c0 = urlOrPath.charCodeAt(0);
  if (c0 === 47 /* / */) return urlOrPath.slice(0, queryOrFragmentAt(urlOrPath, 1));
  if (c0 === 104 /* h */) {
    const from = urlOrPath.startsWith('https://') ? 8 : urlOrPath.startsWith('http://') ? 7 : 0;
    if (from > 0) {
      let at = from;
      for (; at < urlOrPath.length; at++) {
        const c = urlOrPath.charCodeAt(at);
        if (c === 47 || c === 63 || c === 35) break;
      }
      if (urlOrPath.charCodeAt(at) !== 47) return '/';
      return urlOrPath.slice(at, queryOrFragmentAt(urlOrPath, at));
    }
  }
  return rawPathOfGeneral(urlOrPath);
}

/** Index of the first `?` or `#` at or after `from`, else the length. */
function queryOrFragmentAt(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 63 || c === 35) return i;
  }
  return s.length;
}

/** rawPathOf for any input: the rule itself. */
export function rawPathOfGeneral(urlOrPath: string): string {
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
  return s.indexOf('%') === -1 ? s : s.replace(PERCENT_RUN, decodeRun);
}

/**
 * `path_canon` of docs/product.md §4.3: the path of a URL (or of a path), percent-decoded as UTF-8, without
 * query or fragment. Nothing else changes: case, trailing slashes, `//` and dot segments stay.
 */
export function pathCanon(urlOrPath: string): string {
  // validate and normalize both need the page of the same line: the second call is a lookup.
  if (urlOrPath === lastPageIn) return lastPageOut;
  const out = percentDecode(rawPathOf(urlOrPath));
  lastPageIn = urlOrPath;
  lastPageOut = out;
  return out;
}
let lastPageIn: string | undefined;
let lastPageOut = '';

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
  return {
    utm_source: nonBlank(params.get('utm_source')),
    utm_medium: nonBlank(params.get('utm_medium')),
    utm_campaign: nonBlank(params.get('utm_campaign')),
  };
}

function nonBlank(v: string | undefined): string | null {
  const t = v?.trim();
  return t ? t : null;
}

/** What the query of a URL says for the channel (docs/product.md §4.6): utmOf and hasClickId together. */
export interface QueryFacts extends UtmValues {
  has_click_id: boolean;
}

const NO_QUERY: QueryFacts = Object.freeze({ utm_source: null, utm_medium: null, utm_campaign: null, has_click_id: false });

function queryFactsOf(urlOrPath: string): QueryFacts {
  const params = queryParams(urlOrPath);
  return Object.freeze({
    utm_source: nonBlank(params.get('utm_source')),
    utm_medium: nonBlank(params.get('utm_medium')),
    utm_campaign: nonBlank(params.get('utm_campaign')),
    has_click_id: params.has('gclid') || params.has('msclkid'),
  });
}
const queryFactsMemo = new BoundedMemo(queryFactsOf);

/** utmOf and hasClickId of one URL or path, parsed once (and memoized); the object is frozen. */
export function queryFacts(urlOrPath: string): QueryFacts {
  return urlOrPath.indexOf('?') === -1 ? NO_QUERY : queryFactsMemo.get(urlOrPath);
}

/** A `gclid` or `msclkid` parameter is present (any value, names case-sensitive as the ad networks send them). */
export function hasClickId(urlOrPath: string): boolean {
  const params = queryParams(urlOrPath);
  return params.has('gclid') || params.has('msclkid');
}

/** Lower-case host without port, trailing dot or one leading `www.`; null when unparseable. */
export function normalizeHost(host: string): string | null {
  return ownHostMemo.get(host);
}
const ownHostMemo = new BoundedMemo(normalizeHostOf, 1024);

function normalizeHostOf(host: string): string | null {
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
 * Referrer host per docs/product.md §8.6: lower case, without `www.`; null when the referrer is empty,
 * unparseable, has no host, or is the site itself (port and `www.` ignored).
 */
export function referrerHost(referrer: string | null | undefined, siteHostnames: readonly string[]): string | null {
  if (referrer == null) return null;
  const host = referrerHostMemo.get(referrer);
  if (host === null) return null;
  for (const own of siteHostnames) if (normalizeHost(own) === host) return null;
  return host;
}

/** The host part of referrerHost, before the self-referral check: it depends on the referrer alone. */
function bareReferrerHost(referrer: string): string | null {
  const trimmed = referrer.trim();
  if (trimmed === '' || trimmed === '-') return null;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  return bareHost(url.hostname);
}
const referrerHostMemo = new BoundedMemo(bareReferrerHost);
