// A deterministic event set for the metrics HTTP tests and reference counts computed from the
// import lines alone (docs/product.md §4 and §8 definitions, written out plainly, independent of the engine).

export interface Line {
  ts: string;
  type: 'pageview' | 'action';
  site_id: string;
  visitor_key: string;
  path?: string;
  action_name?: string;
  referrer?: string;
  country?: string;
  tenant_id?: string;
  traffic_class?: string;
  utm_source?: string;
}

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const PAGES = ['/', '/pricing', '/blog/a', '/café'];
const REFERRERS = [
  undefined,
  undefined,
  'https://news.example.org/item?id=1',
  'https://www.Search.example.com/q',
  'https://blog.example.net/',
];
const COUNTRIES = [undefined, 'DE', 'FR'];
const SOURCES = [undefined, 'newsletter', 'partner'];
const DAY = 86_400_000;
const MIN = 60_000;

/**
 * Visits of `visitors` keys over [firstDay, lastDay]: per key and day 0-2 bursts; a burst is 1-4
 * events 1-20 minutes apart; bursts are 45-240 minutes apart (new sessions), times kept inside
 * the day. Some bot traffic from its own keys, and optional tenants.
 */
export function generate(opts: {
  site: string;
  firstDay: string;
  lastDay: string;
  seed?: number;
  visitors?: number;
  tenants?: string[];
}): Line[] {
  const rand = prng(opts.seed ?? 7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const lines: Line[] = [];
  const start = Date.parse(`${opts.firstDay}T00:00:00Z`);
  const end = Date.parse(`${opts.lastDay}T00:00:00Z`);
  for (let day = start; day <= end; day += DAY) {
    for (let v = 0; v < (opts.visitors ?? 8); v++) {
      const bursts = Math.floor(rand() * 3);
      let t = day + Math.floor(rand() * 6 * 60) * MIN;
      const tenant = opts.tenants ? pick([...opts.tenants, undefined]) : undefined;
      for (let b = 0; b < bursts; b++) {
        const n = 1 + Math.floor(rand() * 4);
        const referrer = pick(REFERRERS);
        const country = pick(COUNTRIES);
        const source = pick(SOURCES);
        for (let i = 0; i < n && t < day + DAY - MIN; i++) {
          const action = i > 0 && rand() < 0.2;
          const line: Line = {
            ts: new Date(t).toISOString(),
            type: action ? 'action' : 'pageview',
            site_id: opts.site,
            visitor_key: `v${v}`,
          };
          if (action) line.action_name = 'ui.click';
          else line.path = pick(PAGES);
          if (i === 0 && referrer) line.referrer = referrer;
          if (i === 0 && source) line.utm_source = source;
          if (country) line.country = country;
          if (tenant) line.tenant_id = tenant;
          lines.push(line);
          t += (1 + Math.floor(rand() * 20)) * MIN;
        }
        t += (45 + Math.floor(rand() * 195)) * MIN;
        if (t >= day + DAY) break;
      }
    }
    // a crawler: its own key, never counted under the default traffic (humans)
    lines.push({
      ts: new Date(day + 3 * 3_600_000).toISOString(),
      type: 'pageview',
      site_id: opts.site,
      visitor_key: 'crawler',
      path: '/',
      traffic_class: 'bot',
    });
  }
  return lines;
}

export interface RefSession {
  start: number;
  tenant: string | null;
  referrerHost: string | null;
  country: string | null;
  /** utm_source as sent (the store keeps it only under extended collection) */
  source: string | null;
  traffic: string;
  pages: Set<string>;
}

/** docs/product.md §8.3 sessions: per (tenant, key), split after 30 minutes or at 00:00 UTC; pageview first on ties. */
export function sessions(lines: readonly Line[]): RefSession[] {
  const groups = new Map<string, Line[]>();
  for (const l of lines) {
    const k = `${l.tenant_id ?? ''}\u0000${l.visitor_key}`;
    (groups.get(k) ?? groups.set(k, []).get(k)!).push(l);
  }
  const out: RefSession[] = [];
  for (const list of groups.values()) {
    list.sort((a, b) => Date.parse(a.ts) - Date.parse(b.ts) || (a.type === b.type ? 0 : a.type === 'pageview' ? -1 : 1));
    let cur: RefSession | null = null;
    let last = 0;
    for (const l of list) {
      const t = Date.parse(l.ts);
      if (!cur || t - last > 30 * MIN || Math.floor(t / DAY) !== Math.floor(last / DAY)) {
        cur = {
          start: t,
          tenant: l.tenant_id ?? null,
          referrerHost: l.referrer ? new URL(l.referrer).hostname.toLowerCase().replace(/^www\./, '') : null,
          country: l.country ?? null,
          source: l.utm_source ?? null,
          traffic: l.traffic_class ?? 'human',
          pages: new Set(),
        };
        out.push(cur);
      }
      if (l.type === 'pageview') cur.pages.add(l.path!);
      last = t;
    }
  }
  return out;
}

export const isHuman = (l: { traffic_class?: string }) => (l.traffic_class ?? 'human') === 'human';

/** Per UTC day (or hour) bucket start ms -> value, for the four public metrics (humans only). */
export function seriesOf(
  lines: readonly Line[],
  metric: 'pageviews' | 'visitors' | 'sessions' | 'events',
  size: number,
): Map<number, number> {
  const out = new Map<number, number>();
  const add = (t: number, n = 1) => {
    const b = Math.floor(t / size) * size;
    out.set(b, (out.get(b) ?? 0) + n);
  };
  const human = lines.filter(isHuman);
  if (metric === 'pageviews') for (const l of human) if (l.type === 'pageview') add(Date.parse(l.ts));
  if (metric === 'events') for (const l of human) add(Date.parse(l.ts));
  if (metric === 'sessions') for (const s of sessions(lines)) if (s.traffic === 'human') add(s.start);
  if (metric === 'visitors') {
    const seen = new Set<string>();
    for (const l of human) {
      const b = Math.floor(Date.parse(l.ts) / size) * size;
      const k = `${b}\u0000${l.visitor_key}`;
      if (!seen.has(k)) {
        seen.add(k);
        add(b);
      }
    }
  }
  return out;
}

export function inRange(lines: readonly Line[], from: string, to: string): Line[] {
  const a = Date.parse(`${from}T00:00:00Z`);
  const b = Date.parse(`${to}T00:00:00Z`) + DAY;
  return lines.filter((l) => Date.parse(l.ts) >= a && Date.parse(l.ts) < b);
}

/** Rows as the API sorts them: value descending, then key by code points, null last. */
export function sortRows(m: Map<string | null, number>): { key: string | null; value: number }[] {
  const cmp = (a: string | null, b: string | null) => {
    if (a === b) return 0;
    if (a === null) return 1;
    if (b === null) return -1;
    const x = [...a].map((c) => c.codePointAt(0)!);
    const y = [...b].map((c) => c.codePointAt(0)!);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  };
  return [...m.entries()]
    .filter(([, v]) => v > 0)
    .map(([key, value]) => ({ key, value }))
    .sort((p, q) => q.value - p.value || cmp(p.key, q.key));
}

export function countBy<T>(xs: readonly T[], key: (x: T) => string | null): Map<string | null, number> {
  const m = new Map<string | null, number>();
  for (const x of xs) m.set(key(x), (m.get(key(x)) ?? 0) + 1);
  return m;
}
