// Apache/Nginx access logs (Common and Combined Log Format) to import lines. Only requests a
// person's browser makes to show a page become pageviews; bots stay, classed by user agent.
import net from 'node:net';
import { parseIsoInstant } from './timestamp.js';
import { percentDecode, rawPathOf } from './url.js';

export type AccessLogFormat = 'combined' | 'common';

export interface AccessLogOptions {
  /**
   * The client is the left-most address of the line's last quoted field after the format's own
   * fields (nginx's `main` format ends with "$http_x_forwarded_for"); `-`, empty or not an address:
   * the line's own. Only when asked: anyone can send the header, so only a log written behind a
   * proxy that sets it says who the client was.
   */
  forwardedFor?: boolean;
}

export interface AccessLogEntry {
  ip: string;
  ts_ms: number;
  /** the timestamp rewritten as ISO 8601 with its offset, for validateEventLine */
  ts: string;
  /** the request line as logged, e.g. `GET /a HTTP/1.1` */
  request: string;
  /** null when the request line is not `METHOD target [HTTP/x]` (e.g. `-` or binary junk) */
  method: string | null;
  target: string | null;
  status: number;
  /** null for `-` */
  bytes: number | null;
  /** combined only; null for `-` or empty */
  referrer: string | null;
  /** combined only: '' for `-` or empty; null in the common format, which does not log it */
  user_agent: string | null;
}

const QUOTED = '"((?:[^"\\\\]|\\\\.)*)"';
const COMMON = `^(\\S+) \\S+ \\S+ \\[([^\\]]+)\\] ${QUOTED} (\\d{3}) (\\S+)`;
// Trailing fields after the user agent (Nginx's $http_x_forwarded_for, response times) are ignored
// unless --forwarded-for reads them; so is whatever follows the common fields when reading as common,
// so combined lines read as common. The last group is that tail.
const COMBINED_RE = new RegExp(`${COMMON} ${QUOTED} ${QUOTED}(?:\\s(.*))?$`);
const COMMON_RE = new RegExp(`${COMMON}(?:\\s(.*))?$`);
const QUOTED_G = new RegExp(QUOTED, 'g');
const COMMON_ONLY_RE = new RegExp(`${COMMON}\\s*$`);
const TIMESTAMP = /^(\d{2})\/([A-Z][a-z]{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-]\d{4})$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const REQUEST = /^([A-Z]+) (\S+)(?: HTTP\/\d(?:\.\d)?)?$/;

/** Apache writes `\"` and `\\`; Nginx writes `\xHH`. Non-ASCII `\xHH` bytes stay as written. */
function unescapeField(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{2}|.)/g, (all, e: string) => {
    if (e.length === 1) return e;
    const code = parseInt(e.slice(1), 16);
    return code < 0x80 ? String.fromCharCode(code) : all;
  });
}

function isoOf(stamp: string): string | null {
  const m = TIMESTAMP.exec(stamp);
  if (!m) return null;
  const month = MONTHS.indexOf(m[2]) + 1;
  if (month === 0) return null;
  const mm = String(month).padStart(2, '0');
  return `${m[3]}-${mm}-${m[1]}T${m[4]}:${m[5]}:${m[6]}${m[7].slice(0, 3)}:${m[7].slice(3)}`;
}

/**
 * The client address a forwarded-for value names: its left-most entry, without the port or the
 * brackets some proxies add; null for `-`, empty, or anything that is not an address (`unknown`).
 */
export function forwardedClient(value: string): string | null {
  let first = value.split(',', 1)[0].trim();
  if (first.startsWith('[')) {
    const end = first.indexOf(']');
    first = first.slice(1, end < 0 ? undefined : end);
  } else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(first)) first = first.slice(0, first.indexOf(':'));
  return net.isIP(first) ? first : null;
}

/** Parse one log line; `{ error }` names what is wrong. */
export function parseAccessLogLine(line: string, format: AccessLogFormat, opts: AccessLogOptions = {}): AccessLogEntry | { error: string } {
  const trimmed = line.replace(/\r$/, '');
  const m = (format === 'combined' ? COMBINED_RE : COMMON_RE).exec(trimmed);
  if (!m) {
    if (format === 'combined' && COMMON_ONLY_RE.test(trimmed))
      return { error: 'not a combined log line (no referrer and user agent: for a common log use --format common)' };
    return { error: `not a ${format} log line` };
  }
  const ts = isoOf(m[2]);
  const tsMs = ts === null ? null : parseIsoInstant(ts);
  if (ts === null || tsMs === null) return { error: `invalid timestamp [${m[2]}]` };
  const request = unescapeField(m[3]);
  const req = REQUEST.exec(request);
  const dash = (v: string | undefined) => (v === undefined || v === '-' || v === '' ? null : unescapeField(v));
  let ip = m[1];
  if (opts.forwardedFor) {
    const tail = m[format === 'combined' ? 8 : 6] ?? '';
    let last: string | undefined;
    for (const q of tail.matchAll(QUOTED_G)) last = q[1];
    if (last === undefined)
      return {
        error: `no quoted X-Forwarded-For field after the ${format === 'combined' ? 'user agent' : 'request, status and size'} (--forwarded-for reads it where nginx's main format logs "$http_x_forwarded_for": last)`,
      };
    ip = forwardedClient(unescapeField(last)) ?? ip;
  }
  return {
    ip,
    ts_ms: tsMs,
    ts,
    request,
    method: req ? req[1] : null,
    target: req ? req[2] : null,
    status: Number(m[4]),
    bytes: m[5] === '-' ? null : Number(m[5]),
    referrer: format === 'combined' ? dash(m[6]) : null,
    user_agent: format === 'combined' ? (dash(m[7]) ?? '') : null,
  };
}

/** Extensions of files that are not pages: assets, feeds and data, downloads. */
export const NON_PAGE_EXTENSIONS: ReadonlySet<string> = new Set([
  // styles, scripts
  'css',
  'js',
  'mjs',
  'cjs',
  'map',
  'wasm',
  // images
  'png',
  'jpg',
  'jpeg',
  'gif',
  'svg',
  'svgz',
  'ico',
  'cur',
  'webp',
  'avif',
  'bmp',
  'tif',
  'tiff',
  'apng',
  'heic',
  // fonts
  'woff',
  'woff2',
  'ttf',
  'otf',
  'eot',
  // audio, video, plugins
  'mp4',
  'webm',
  'ogv',
  'mov',
  'avi',
  'mkv',
  'm4v',
  'mp3',
  'm4a',
  'ogg',
  'oga',
  'wav',
  'flac',
  'aac',
  'opus',
  'swf',
  'flv',
  // feeds, machine-readable and plain-text files (robots.txt, sitemap.xml, manifests)
  'xml',
  'rss',
  'atom',
  'rdf',
  'json',
  'jsonld',
  'webmanifest',
  'txt',
  'csv',
  'xsl',
  'xslt',
  'ics',
  'vcf',
  // downloads
  'pdf',
  'zip',
  'gz',
  'tgz',
  'tar',
  'bz2',
  'xz',
  '7z',
  'rar',
  'jar',
  'war',
  'exe',
  'msi',
  'dmg',
  'pkg',
  'deb',
  'rpm',
  'apk',
  'iso',
  'img',
  'bin',
  'doc',
  'docx',
  'xls',
  'xlsx',
  'ppt',
  'pptx',
  'odt',
  'ods',
  'odp',
  'epub',
  'rtf',
  'gem',
  'whl',
  'patch',
  'diff',
  'pcap',
]);

/** Methods named in skip reasons; any other is `method other` (the reasons stay a short, stable list). */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'CONNECT',
  'TRACE',
  'PROPFIND',
  'PROPPATCH',
  'MKCOL',
  'COPY',
  'MOVE',
  'LOCK',
  'UNLOCK',
  'SEARCH',
  'REPORT',
]);

/**
 * Why a parsed line is not a pageview, or null when it is one. The reasons are the keys of the
 * import summary's skipped_by_reason: `malformed request line`, `method HEAD` (and the other
 * methods of KNOWN_METHODS, else `method other`), `status NNN`, `request target is not a path`,
 * `well-known file`, `static file`.
 */
export function notPageviewReason(entry: AccessLogEntry): string | null {
  if (entry.method === null || entry.target === null) return 'malformed request line';
  // HEAD shows nothing to anyone; POST is a form sending, its result page is logged as a GET.
  if (entry.method !== 'GET') return KNOWN_METHODS.has(entry.method) ? `method ${entry.method}` : 'method other';
  const s = entry.status;
  // 204 has no page and 206 is a range request (media, resumed downloads); 304 is a revisit served from cache.
  const shown = (s >= 200 && s <= 299 && s !== 204 && s !== 206) || s === 304;
  if (!shown) return `status ${s}`;
  if (!entry.target.startsWith('/') && !/^https?:\/\//i.test(entry.target)) return 'request target is not a path';
  const path = percentDecode(rawPathOf(entry.target));
  if (path.startsWith('/.well-known/')) return 'well-known file';
  const last = path.slice(path.lastIndexOf('/') + 1);
  const dot = last.lastIndexOf('.');
  if (dot > 0 || (dot === 0 && last.length > 1)) {
    const ext = last.slice(dot + 1).toLowerCase();
    if (NON_PAGE_EXTENSIONS.has(ext)) return 'static file';
  }
  return null;
}

export type AccessLogResult = { kind: 'pageview'; line: Record<string, unknown> } | { kind: 'skipped'; reason: string };

/**
 * Turn a parsed entry into an import line for validateEventLine (then normalizeEvent), or say why
 * it is skipped. The visitor key comes from ip + user agent; the common format logs no user
 * agent, so its lines carry an empty one for the key and count as human (no evidence otherwise).
 */
export function accessLogToRawEvent(entry: AccessLogEntry, site: { id: string }): AccessLogResult {
  const reason = notPageviewReason(entry);
  if (reason !== null) return { kind: 'skipped', reason };
  const target = entry.target as string;
  const line: Record<string, unknown> = {
    ts: entry.ts,
    type: 'pageview',
    site_id: site.id,
    [target.startsWith('/') ? 'path' : 'url']: target,
    ip: entry.ip,
    user_agent: entry.user_agent ?? '',
  };
  if (entry.referrer !== null) line.referrer = entry.referrer;
  if (entry.user_agent === null) line.traffic_class = 'human';
  return { kind: 'pageview', line };
}
