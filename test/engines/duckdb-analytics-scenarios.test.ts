// Hand-counted scenarios: every expected number below was counted by hand from the event list.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDbAnalyticsEngine } from '../../src/engines/duckdb/duckdb-analytics-engine.js';
import { buildAvailability } from '../../src/domain/availability.js';
import type { AnalyticsEngine } from '../../src/ports/analytics-engine.js';
import { denseSeries } from '../../src/domain/query/assemble.js';
import type { QuerySpec } from '../../src/domain/query/query-spec.js';
import { dataset, load, openTestDb, type EventDraw, type TestDb } from './analytics-fixtures.js';

const D = Date.UTC(2025, 2, 1);
const H = 3_600_000;
const M = 60_000;
const EFFECTIVE = D + 12 * H;

const base: EventDraw = {
  site: 'shop',
  visitor: 'k1',
  tenant: 't1',
  ts: D,
  type: 'pageview',
  page: '/home',
  referrer: null,
  channel: 'Direct',
  utm: [null, null, null],
  country: 'DE',
  region: 'BY',
  city: 'München',
  device: 'desktop',
  browser: 'Firefox',
  os: 'Linux',
  traffic: 'human',
  eng: 0,
  action: 'form.submit',
  family: 'forms',
};
const draws: EventDraw[] = [
  { ...base, ts: D + 9 * H, referrer: 'google.com', channel: 'Search', eng: 3000, utm: ['nl', null, null] }, // 1 session A
  { ...base, ts: D + 9 * H + 10 * M, page: '/pricing', eng: 12000 }, // 2 A
  { ...base, ts: D + 9 * H + 11 * M, type: 'action', page: '/pricing' }, // 3 A (meaningful)
  { ...base, ts: D + 13 * H, channel: 'Email', utm: ['nl', 'email', null] }, // 4 session B
  { ...base, visitor: 'k2', ts: D + 13 * H + 5 * M, page: '/pricing', channel: 'Social', utm: ['tw', null, null] }, // 5 C
  { ...base, visitor: 'k2', ts: D + 23 * H + 50 * M }, // 6 D
  { ...base, visitor: 'k2', ts: D + 24 * H + 5 * M }, // 7 E (split at midnight)
  { ...base, visitor: 'k3', ts: D + 14 * H, traffic: 'bot' }, // 8 F
  { ...base, visitor: 'k4', tenant: 't2', ts: D + 15 * H }, // 9 G
  { ...base, visitor: 'k1', tenant: 't2', ts: D + 15 * H, page: '/pricing' }, // 10 H
];

let db: TestDb;
let engine: AnalyticsEngine;
before(async () => {
  db = await openTestDb();
  await load(db, dataset(draws, { shop: { profile: 'extended', effectiveAtMs: EFFECTIVE } }));
  engine = new DuckDbAnalyticsEngine({ connect: async () => db.conn });
});
after(() => db.close());

const range: QuerySpec = {
  siteId: 'shop',
  tenantIds: null,
  startMs: D,
  endMs: D + 2 * 24 * H - 1,
  trafficClasses: ['human'],
  filters: {},
  metrics: ['pageviews'],
};
const run = (over: Partial<QuerySpec>) => engine.run({ ...range, ...over }, { timeoutMs: 10_000 });
const total = async (over: Partial<QuerySpec>) => (await run(over))[0].values;
const rows = async (over: Partial<QuerySpec>) => (await run(over)).map((r) => [r.key, ...Object.values(r.values)]);

test('totals over two days of humans', async () => {
  assert.deepEqual(
    await total({
      metrics: [
        'pageviews',
        'events',
        'sessions',
        'visitors',
        'bounce_rate',
        'engagement_rate',
        'avg_pages_per_session',
        'avg_session_eng_time_ms',
        'avg_page_eng_time_ms',
        'entries',
        'exits',
      ],
    }),
    {
      pageviews: 8,
      events: 9,
      sessions: 7,
      visitors: 4, // day 1: k1, k2, k4 (k1 in two tenants is one key); day 2: k2
      bounce_rate: 6 / 7,
      engagement_rate: 1 / 7,
      avg_pages_per_session: 8 / 7,
      avg_session_eng_time_ms: 15000 / 7,
      avg_page_eng_time_ms: 15000 / 8,
      entries: 7,
      exits: 7,
    },
  );
});

test('by page: sessions and visitors that viewed it, entries and exits by landing page', async () => {
  assert.deepEqual(await rows({ dimension: 'page', metrics: ['sessions', 'visitors', 'pageviews', 'entries', 'exits'] }), [
    ['/home', 5, 4, 5, 5, 4],
    ['/pricing', 3, 2, 3, 2, 3],
  ]);
  assert.deepEqual(await total({ filters: { page: '/pricing' }, metrics: ['pageviews', 'events', 'sessions', 'entries', 'visitors'] }), {
    pageviews: 3,
    events: 4,
    sessions: 3,
    entries: 2,
    visitors: 2,
  });
});

test('tenants, tenant scope, traffic classes and a session attribute filter', async () => {
  assert.deepEqual(await rows({ dimension: 'tenant', metrics: ['pageviews', 'sessions'] }), [
    ['t1', 6, 5],
    ['t2', 2, 2],
  ]);
  assert.deepEqual(await total({ tenantIds: ['t2'], metrics: ['pageviews'] }), { pageviews: 2 });
  assert.deepEqual(await total({ filters: { tenant: 't1' }, metrics: ['pageviews'] }), { pageviews: 6 });
  assert.deepEqual(await total({ tenantIds: [], metrics: ['pageviews'] }), { pageviews: 0 });
  assert.deepEqual(await total({ trafficClasses: ['bot', 'ai_bot'], metrics: ['pageviews', 'sessions'] }), { pageviews: 1, sessions: 1 });
  assert.deepEqual(await total({ filters: { channel: 'Search' }, metrics: ['pageviews', 'events', 'sessions'] }), {
    pageviews: 2,
    events: 3,
    sessions: 1,
  });
  assert.deepEqual(await total({ filters: { referrer: null }, metrics: ['sessions'] }), { sessions: 6 });
});

test('hourly series: sessions in their start hour, visitors distinct per hour, total of the range', async () => {
  const day1 = { startMs: D, endMs: D + 24 * H - 1 };
  const series = await run({ ...day1, interval: 'hour', metrics: ['sessions', 'visitors'] });
  const dense = denseSeries(series, { ...day1, interval: 'hour', metrics: ['sessions', 'visitors'] });
  assert.equal(dense.length, 24);
  const nonzero = dense
    .filter((p) => p.values.sessions || p.values.visitors)
    .map((p) => [(p.bucketMs! - D) / H, p.values.sessions, p.values.visitors]);
  assert.deepEqual(nonzero, [
    [9, 1, 1],
    [13, 2, 2],
    [15, 2, 2],
    [23, 1, 1],
  ]);
  assert.deepEqual(await total({ ...day1, metrics: ['visitors'] }), { visitors: 3 });
  const daily = await run({ interval: 'day', metrics: ['visitors', 'sessions'] });
  assert.deepEqual(
    daily.map((p) => [p.bucketMs, p.values.visitors, p.values.sessions]),
    [
      [D, 3, 6],
      [D + 24 * H, 1, 1],
    ],
  );
});

test('a site switched to extended mid-range: the source breakdown counts only from effective_at', async () => {
  const decision = buildAvailability({
    route: 'breakdown',
    dimensions: ['source'],
    profile: 'extended',
    effectiveAt: new Date(EFFECTIVE).toISOString(),
    current: { startMs: range.startMs, endMs: range.endMs },
    compare: null,
    firstEventAtMs: (await engine.firstEventAt('shop'))!.getTime(),
  });
  assert.equal(decision.availability.current.status, 'partially_available_after_effective_at');
  const window = decision.count.current!;
  assert.deepEqual(await rows({ ...window, dimension: 'source', metrics: ['sessions'] }), [
    [null, 4],
    ['nl', 1],
    ['tw', 1],
  ]);
  // the strict morning session A had utm_source=nl in its URL, but strict collection did not store it
  assert.deepEqual(await rows({ dimension: 'source', metrics: ['sessions'] }), [
    [null, 5],
    ['nl', 1],
    ['tw', 1],
  ]);
});

test('first and newest event of a site; null for a site without data', async () => {
  assert.equal((await engine.firstEventAt('shop'))?.toISOString(), '2025-03-01T09:00:00.000Z');
  assert.equal((await engine.newestEventAt('shop'))?.toISOString(), '2025-03-02T00:05:00.000Z');
  assert.equal(await engine.newestEventAt('nope'), null);
  assert.equal(await engine.firstEventAt('nope'), null);
});

test('limit keeps the top rows after ordering', async () => {
  assert.deepEqual(await rows({ dimension: 'page', metrics: ['exits'], limit: 1 }), [['/home', 4]]);
  assert.deepEqual(await rows({ dimension: 'country', metrics: ['sessions'], keyIn: ['FR'] }), []);
});
