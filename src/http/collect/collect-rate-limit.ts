// The per-address limit of POST /api/event, shared by the routed and the raw path (one count per
// address whichever path answered). It keeps what @fastify/rate-limit's local store did for this
// route: a fixed window opened by an address's first request, the least recently seen of 50,000
// addresses forgotten first, and on refusal X-RateLimit-Limit, X-RateLimit-Remaining and Retry-After.

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
  hit(address: string): RateRefusal | null {
    const now = this.now();
    let w = this.windows.get(address);
    if (w === undefined) w = { count: 1, startMs: now };
    else {
      this.windows.delete(address);
      if (w.startMs + this.windowMs <= now) {
        w.count = 1;
        w.startMs = now;
      } else w.count++;
    }
    this.windows.set(address, w);
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
