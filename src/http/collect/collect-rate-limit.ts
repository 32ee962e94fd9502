// The per-address limit of POST /api/event, shared by the routed and the raw path (one count per
// address whichever path answered). It keeps what @fastify/rate-limit's local store did for this
// route: a fixed window opened by an address's first request, IPv6 addresses counted by /64 (an
// IPv4-mapped one as its IPv4 address), the least recently seen of 50,000 keys forgotten first, and
// on refusal X-RateLimit-Limit, X-RateLimit-Remaining and Retry-After.
import { isIPv6 } from 'node:net';

/** addresses remembered at most (each one a few dozen bytes) */
const REMEMBERED = 50_000;

interface Window {
  count: number;
  startMs: number;
}

export interface RateRefusal {
  max: number;
  /** whole seconds until the window ends (at least 1) */
  retryAfterSeconds: number;
  headers: Record<string, string>;
  /** when the window ends, as a person reads it: `1 minute`, `12 seconds` */
  after: string;
}

export class CollectRateLimit {
  /** insertion order is recency order: a hit moves its address to the end */
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts a request of `address`; a refusal once it is past `max` in its window. */
  hit(address: string | undefined): RateRefusal | null {
    const now = this.now();
    const key = limitKey(address ?? '');
    let w = this.windows.get(key);
    if (w === undefined) w = { count: 1, startMs: now };
    else {
      this.windows.delete(key);
      if (w.startMs + this.windowMs <= now) {
        w.count = 1;
        w.startMs = now;
      } else w.count++;
    }
    this.windows.set(key, w);
    if (this.windows.size > REMEMBERED) this.windows.delete(this.windows.keys().next().value!);
    if (w.count <= this.max) return null;
    const seconds = Math.ceil((this.windowMs - (now - w.startMs)) / 1000);
    return {
      max: this.max,
      retryAfterSeconds: Math.max(1, seconds),
      headers: { 'x-ratelimit-limit': String(this.max), 'x-ratelimit-remaining': '0', 'retry-after': String(seconds) },
      after: seconds < 60 ? plural(seconds, 'second') : plural(Math.round(seconds / 60), 'minute'),
    };
  }
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** What an address is counted under: itself (IPv4), its IPv4 address (IPv4-mapped IPv6), its /64 (other IPv6). */
export function limitKey(address: string): string {
  if (!isIPv6(address)) return address.toLowerCase();
  const g = hextets(address);
  if (g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff)
    return `${g[6] >> 8}.${g[6] & 255}.${g[7] >> 8}.${g[7] & 255}`;
  return `${g[0].toString(16)}:${g[1].toString(16)}:${g[2].toString(16)}:${g[3].toString(16)}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (a zone dropped, a dotted IPv4 tail read as two groups). */
function hextets(address: string): number[] {
  let s = address.split('%')[0];
  const last = s.lastIndexOf(':');
  if (s.indexOf('.', last) !== -1) {
    const [a, b, c, d] = s
      .slice(last + 1)
      .split('.')
      .map(Number);
    s = `${s.slice(0, last + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':').map((h) => parseInt(h, 16)) : []);
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  return [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}
