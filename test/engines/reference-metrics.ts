// An independent, deliberately naive computation of the metric rules (docs/product.md §4 and §8,
// docs/metrics.md) over in-memory rows. It shares no code with the SQL compiler or the assemble
// stage: the engine tests compare the two on random data.
import type { StoredSession } from '../../src/domain/events.js';
import type { TestEvent } from './analytics-fixtures.js';

export interface RefSpec {
  siteId: string;
  tenantIds: readonly string[] | null;
  startMs: number;
  endMs: number;
  trafficClasses: readonly string[];
  filters: Record<string, string | null>;
  metrics: readonly string[];
  dimension?: string;
  /** a second grouping by a session attribute (rows per key and split key) */
  splitBy?: string;
  interval?: 'day' | 'hour';
  keyIn?: readonly (string | null)[];
  limit?: number;
  orderBy?: string;
}

export interface RefRow {
  bucketMs: number | null;
  key: string | null;
  /** only with splitBy */
  split?: string | null;
  values: Record<string, number>;
}

const SESSION_COLUMN: Record<string, keyof StoredSession> = {
  entry_page: 'entry_page',
  exit_page: 'exit_page',
  referrer: 'referrer_host',
  channel: 'channel',
  source: 'utm_source',
  medium: 'utm_medium',
  campaign: 'utm_campaign',
  country: 'country',
  region: 'region',
  city: 'city',
  device: 'device_type',
  browser: 'browser_family',
  os: 'os_family',
};

const HOUR = 3_600_000;
const DAY = 86_400_000;

function utf8Compare(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function referenceQuery(spec: RefSpec, events: readonly TestEvent[], sessions: readonly StoredSession[]): RefRow[] {
  const sessionById = new Map(sessions.map((s) => [s.session_id, s]));
  const inScope = (site: string, ts: number, traffic: string, tenant: string | null) =>
    site === spec.siteId &&
    ts >= spec.startMs &&
    ts <= spec.endMs &&
    spec.trafficClasses.includes(traffic) &&
    (spec.tenantIds === null || (tenant !== null && spec.tenantIds.includes(tenant)));
  const pageFilter = 'page' in spec.filters ? spec.filters.page : undefined;
  const bucketOf = (ts: number) =>
    spec.interval === 'day' ? Math.floor(ts / DAY) * DAY : spec.interval === 'hour' ? Math.floor(ts / HOUR) * HOUR : null;
  const keyAllowed = (k: string | null) => spec.keyIn === undefined || spec.keyIn.includes(k);
  const sessionAttrsPass = (s: StoredSession | undefined, tenant: string | null) => {
    for (const [dim, value] of Object.entries(spec.filters)) {
      if (dim === 'page') continue;
      if (dim === 'tenant') {
        if (tenant !== value) return false;
      } else if (!s || s[SESSION_COLUMN[dim]] !== value) return false;
    }
    return true;
  };

  type Acc = Record<string, number>;
  const groups = new Map<
    string,
    { bucketMs: number | null; key: string | null; split: string | null; acc: Acc; visitorSet: Set<string> }
  >();
  const group = (bucketMs: number | null, key: string | null, split: string | null) => {
    const id = JSON.stringify([bucketMs, key, split]);
    let g = groups.get(id);
    if (!g) {
      g = { bucketMs, key, split, acc: {}, visitorSet: new Set() };
      groups.set(id, g);
    }
    return g;
  };
  /** the split key of a session (null without one, or without a splitBy) */
  const splitOf = (s: StoredSession | undefined) => (spec.splitBy && s ? (s[SESSION_COLUMN[spec.splitBy]] as string | null) : null);
  const add = (g: { acc: Acc }, name: string, n = 1) => {
    g.acc[name] = (g.acc[name] ?? 0) + n;
  };

  // events
  for (const e of events) {
    if (!inScope(e.site_id, e.ts_ms, e.traffic_class, e.tenant_id)) continue;
    const s = sessionById.get(e.session_id);
    if (!sessionAttrsPass(s, e.tenant_id)) continue;
    let key: string | null = null;
    if (spec.dimension === 'page') key = e.path_canon;
    else if (spec.dimension === 'tenant') key = e.tenant_id;
    else if (spec.dimension) key = s ? (s[SESSION_COLUMN[spec.dimension]] as string | null) : null;
    if (!keyAllowed(key)) continue;
    const onPage = pageFilter === undefined || e.path_canon === pageFilter;
    const g = group(bucketOf(e.ts_ms), key, splitOf(s));
    if (onPage) {
      add(g, 'events');
      if (e.type === 'pageview') {
        add(g, 'pageviews');
        add(g, 'pv_eng_ms', e.engagement_time_ms);
      }
    }
    const pageScoped = spec.dimension === 'page' || pageFilter !== undefined;
    if (onPage && (!pageScoped || e.type === 'pageview')) {
      const unit = spec.interval === 'hour' ? Math.floor(e.ts_ms / HOUR) : Math.floor(e.ts_ms / DAY);
      g.visitorSet.add(`${unit}|${e.visitor_key}`);
    }
  }

  // sessions
  const viewed = new Map<string, Set<string | null>>();
  for (const e of events) {
    if (e.type !== 'pageview') continue;
    if (!viewed.has(e.session_id)) viewed.set(e.session_id, new Set());
    viewed.get(e.session_id)!.add(e.path_canon);
  }
  for (const s of sessions) {
    if (!inScope(s.site_id, s.start_ms, s.traffic_class, s.tenant_id)) continue;
    if (!sessionAttrsPass(s, s.tenant_id)) continue;
    const pages = [...(viewed.get(s.session_id) ?? [])];
    const b = bucketOf(s.start_ms);
    const count = (g: { acc: Acc }, withLanding: boolean) => {
      add(g, 'sessions');
      if (s.is_bounce) add(g, 'bounces');
      if (s.is_engaged) add(g, 'engaged');
      add(g, 'session_eng_ms', s.engagement_ms);
      if (withLanding) {
        if (pageFilter === undefined ? s.entry_page !== null : s.entry_page === pageFilter) add(g, 'entries');
        if (pageFilter === undefined ? s.exit_page !== null : s.exit_page === pageFilter) add(g, 'exits');
      }
    };
    if (spec.dimension === 'page') {
      for (const p of pages) {
        if (pageFilter !== undefined && p !== pageFilter) continue;
        if (keyAllowed(p)) count(group(b, p, splitOf(s)), false);
      }
      for (const [atom, page] of [
        ['entries', s.entry_page],
        ['exits', s.exit_page],
      ] as const) {
        if (page === null || (pageFilter !== undefined && page !== pageFilter) || !keyAllowed(page)) continue;
        add(group(b, page, splitOf(s)), atom);
      }
    } else {
      if (pageFilter !== undefined && !pages.includes(pageFilter)) continue;
      const key =
        spec.dimension === undefined
          ? null
          : spec.dimension === 'tenant'
            ? s.tenant_id
            : (s[SESSION_COLUMN[spec.dimension]] as string | null);
      if (!keyAllowed(key)) continue;
      count(group(b, key, splitOf(s)), true);
    }
  }

  const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);
  const valueFor = (acc: Acc, visitors: number, m: string): number => {
    const x = (n: string) => acc[n] ?? 0;
    switch (m) {
      case 'visitors':
        return visitors;
      case 'bounce_rate':
        return ratio(x('bounces'), x('sessions'));
      case 'engagement_rate':
        return ratio(x('engaged'), x('sessions'));
      case 'avg_session_eng_time_ms':
        return ratio(x('session_eng_ms'), x('sessions'));
      case 'avg_page_eng_time_ms':
        return ratio(x('pv_eng_ms'), x('pageviews'));
      case 'avg_pages_per_session':
        return ratio(x('pageviews'), x('sessions'));
      default:
        return x(m);
    }
  };
  const hasData = (acc: Acc, visitors: number, m: string): boolean => {
    const den: Record<string, string> = {
      bounce_rate: 'sessions',
      engagement_rate: 'sessions',
      avg_session_eng_time_ms: 'sessions',
      avg_pages_per_session: 'sessions',
      avg_page_eng_time_ms: 'pageviews',
    };
    if (m === 'visitors') return visitors > 0;
    return (acc[den[m] ?? m] ?? 0) > 0;
  };

  let rows = [...groups.values()].map((g) => ({
    bucketMs: g.bucketMs,
    key: g.key,
    split: g.split,
    present: hasData(g.acc, g.visitorSet.size, spec.orderBy ?? spec.metrics[0]),
    values: Object.fromEntries(spec.metrics.map((m) => [m, valueFor(g.acc, g.visitorSet.size, m)])),
  }));
  const order = spec.orderBy ?? spec.metrics[0];
  if (!spec.dimension && !spec.interval) {
    return [{ bucketMs: null, key: null, values: rows[0]?.values ?? Object.fromEntries(spec.metrics.map((m) => [m, 0])) }];
  }
  if (spec.dimension) rows = rows.filter((r) => r.present);
  rows.sort((a, b) => {
    if (spec.interval && a.bucketMs !== b.bucketMs) return a.bucketMs! - b.bucketMs!;
    if (a.values[order] !== b.values[order]) return b.values[order] - a.values[order];
    return utf8Compare(a.key, b.key) || utf8Compare(a.split, b.split);
  });
  if (spec.limit !== undefined) rows = rows.slice(0, spec.limit);
  return rows.map(({ bucketMs, key, split, values }) => ({ bucketMs, key, ...(spec.splitBy ? { split } : {}), values }));
}
