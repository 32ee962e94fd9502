// Shared by the rollup tests (rollups.test.ts, live-days.test.ts): random specs over the three days
// of the analytics fixtures, every dimension's specs, rows from draws, and the comparable form of a
// result (a series bucket absent on one side equals zeros).
import fc from 'fast-check';
import { TRAFFIC_FILTERS } from '../../src/domain/events.js';
import type { QuerySpec } from '../../src/domain/query/query-spec.js';
import { DIMENSIONS } from '../../src/domain/query/dimensions.js';
import { METRICS } from '../../src/domain/query/metrics.js';
import type { MetricRow } from '../../src/domain/query/assemble.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { ROLLUP_PAIRS } from '../../src/engines/sql/rollup-tables.js';
import type { StoredSession } from '../../src/domain/events.js';
import { BASE_MS, DAY, SITE, stamp, type EventDraw, type TestEvent } from './analytics-fixtures.js';
import type { RefRow } from './reference-metrics.js';

export function rowsOf(draws: readonly EventDraw[]): EventRow[] {
  const channel = new Map(draws.map((d, i) => [`ev${i}`, d.channel]));
  return stamp(draws, {}).map((e) => ({ ...e, channel: channel.get(e.event_id)!, prop_keys: [], prop_values: [] }));
}

export function plain(spec: QuerySpec, rows: readonly (MetricRow | RefRow)[]) {
  const out = rows.map((r) => ({
    bucketMs: r.bucketMs,
    key: r.key,
    ...(spec.splitBy ? { split: r.split } : {}),
    values: Object.fromEntries(spec.metrics.map((m) => [m, r.values[m]])),
  }));
  if (!spec.interval || spec.dimension) return out;
  // series: a bucket absent on one side equals zeros
  return out.filter((r) => Object.values(r.values).some((v) => v !== 0));
}

const TRAFFIC = Object.values(TRAFFIC_FILTERS) as unknown as QuerySpec['trafficClasses'][];
const KEYS = [
  '/',
  '/a',
  '/café',
  'DE',
  'FR',
  'Direct',
  'Search',
  'Referral',
  'google.com',
  't1',
  't2',
  'desktop',
  'email',
  'Paris',
  'IDF',
  null,
];

export const specArb: fc.Arbitrary<QuerySpec> = fc
  .record({
    tenantIds: fc.constantFrom(null, null, ['t1'], ['t2'], ['t1', 't2'], []),
    startDay: fc.integer({ min: 0, max: 2 }),
    days: fc.integer({ min: 1, max: 3 }),
    // mostly whole days (what the rollups answer); sometimes a partial first day (raw)
    startOffset: fc.constantFrom(0, 0, 0, 0, 13 * 3_600_000),
    traffic: fc.constantFrom(...TRAFFIC, ['human', 'bot'] as QuerySpec['trafficClasses']),
    filters: fc.oneof(
      { arbitrary: fc.constant({}), weight: 4 },
      { arbitrary: fc.dictionary(fc.constantFrom(...DIMENSIONS), fc.constantFrom(...KEYS), { maxKeys: 1 }), weight: 3 },
      {
        arbitrary: fc.constantFrom<QuerySpec['filters']>(
          { channel: 'Direct' },
          { channel: 'Search' },
          { country: 'DE' },
          { country: 'FR', tenant: 't1' },
          { tenant: 't2' },
          { tenant: null },
          { channel: 'Referral', entry_page: '/a' },
          { country: 'DE', city: 'Paris' },
          { country: 'FR', region: 'IDF' },
          { channel: 'Search', referrer: 'google.com' },
          { page: '/a', country: 'DE' },
        ),
        weight: 3,
      },
    ),
    metrics: fc.shuffledSubarray([...METRICS], { minLength: 1, maxLength: 5 }),
    shape: fc.constantFrom('total', 'series', 'breakdown', 'breakdown', 'trend'),
    interval: fc.constantFrom('day', 'day', 'day', 'hour'),
    dimension: fc.constantFrom(...DIMENSIONS, 'page', 'entry_page', 'city', 'referrer', 'tenant'),
    limit: fc.option(fc.integer({ min: 1, max: 4 })),
    // a second grouping: the stored pairs (entry_page or referrer by channel, region or city by country) and others
    splitBy: fc.option(fc.constantFrom('channel', 'country', 'entry_page', 'device'), { freq: 3 }),
    keyIn: fc.option(fc.subarray(KEYS)),
  })
  .map((r) => {
    const spec: QuerySpec = {
      siteId: SITE,
      tenantIds: r.tenantIds,
      startMs: BASE_MS + r.startDay * DAY + r.startOffset,
      endMs: BASE_MS + (r.startDay + r.days) * DAY - 1,
      trafficClasses: r.traffic,
      filters: r.filters,
      metrics: r.metrics,
    };
    if (r.shape === 'series' || r.shape === 'trend') spec.interval = r.interval as 'day' | 'hour';
    if (r.shape === 'breakdown' || r.shape === 'trend') {
      spec.dimension = r.dimension as QuerySpec['dimension'];
      if (r.keyIn !== null) spec.keyIn = r.keyIn;
    }
    if (r.shape === 'breakdown' && r.splitBy !== null && r.splitBy !== r.dimension) spec.splitBy = r.splitBy as QuerySpec['splitBy'];
    if (r.shape === 'breakdown' && r.limit !== null) spec.limit = r.limit;
    return spec;
  });

/** Every dimension with every metric, as breakdown and as daily trend, for three scopes. */
export function everyDimension(): QuerySpec[] {
  const out: QuerySpec[] = [];
  for (const [tenantIds, trafficClasses] of [
    [null, TRAFFIC_FILTERS.all],
    [['t1'], TRAFFIC_FILTERS.humans],
    // visitors over two tenants: a key seen in both counts once, so these stay raw
    [['t1', 't2'], TRAFFIC_FILTERS.humans_including_ai],
  ] as const) {
    const base = {
      siteId: SITE,
      tenantIds,
      startMs: BASE_MS,
      endMs: BASE_MS + 3 * DAY - 1,
      trafficClasses,
      filters: {},
      metrics: [...METRICS],
    };
    out.push(base, { ...base, interval: 'day' });
    for (const dimension of DIMENSIONS) out.push({ ...base, dimension }, { ...base, dimension, interval: 'day' });
    // the stored pairs, either way round
    for (const [dimension, splitBy] of ROLLUP_PAIRS)
      out.push({ ...base, dimension, splitBy }, { ...base, dimension: splitBy, splitBy: dimension });
  }
  return out;
}

// Several datasets in one store: a commit's large fixed cost (sessions, rollups) is paid once for all
// of them, so a property checks many datasets per run. Dataset j's sites are `<site>_j` and its ids
// (events, sessions) begin with `dj_`, so the datasets never meet; a spec reads dataset j through specIn.

/** A site of dataset j. */
export const siteIn = (site: string, j: number) => `${site}_${j}`;

/** Rows (events as imported, or as the reference reads them) of dataset j. */
export function rowsIn<T extends { site_id: string; event_id: string; session_id?: string }>(rows: readonly T[], j: number): T[] {
  return rows.map((r) => ({
    ...r,
    site_id: siteIn(r.site_id, j),
    event_id: `d${j}_${r.event_id}`,
    ...(r.session_id === undefined ? {} : { session_id: `d${j}_${r.session_id}` }),
  }));
}

/** Sessions of dataset j, as the reference reads them. */
export function sessionsIn(sessions: readonly StoredSession[], j: number): StoredSession[] {
  return sessions.map((s) => ({ ...s, site_id: siteIn(s.site_id, j), session_id: `d${j}_${s.session_id}` }));
}

/** `spec` over dataset j. */
export function specIn<T extends { siteId: string }>(spec: T, j: number): T {
  return { ...spec, siteId: siteIn(spec.siteId, j) };
}

/** The reference's view of datasets, each as `dataset` (analytics-fixtures.ts) gives it, in one. */
export function referenceOf(sets: readonly { events: readonly TestEvent[]; sessions: readonly StoredSession[] }[]): {
  events: TestEvent[];
  sessions: StoredSession[];
} {
  return { events: sets.flatMap((d, j) => rowsIn(d.events, j)), sessions: sets.flatMap((d, j) => sessionsIn(d.sessions, j)) };
}
