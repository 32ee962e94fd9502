// Daily rollups against the raw tables and the reference model: random data imported through the
// store in two batches, random specs (ranges, filters, tenants, traffic filters); the rollup answer,
// the raw answer and the reference answer must be identical.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbAnalyticsEngine } from '../../src/engines/duckdb/duckdb-analytics-engine.js';
import { openDuckDbEventStore, type DuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { TRAFFIC_FILTERS, type StoredSession } from '../../src/domain/events.js';
import { normalizeSpec, type QuerySpec } from '../../src/domain/query/query-spec.js';
import { DIMENSIONS } from '../../src/domain/query/dimensions.js';
import { METRICS } from '../../src/domain/query/metrics.js';
import type { MetricRow } from '../../src/domain/query/assemble.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { planRollup } from '../../src/engines/sql/read/rollup-plan.js';
import { ROLLUP_PAIRS, ROLLUP_TABLE } from '../../src/engines/sql/rollup-tables.js';
import { BASE_MS, DAY, SITE, eventDrawArb, stamp, type EventDraw, type TestEvent } from './analytics-fixtures.js';
import { referenceQuery, type RefRow } from './reference-metrics.js';

const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;

function rowsOf(draws: readonly EventDraw[]): EventRow[] {
  const channel = new Map(draws.map((d, i) => [`ev${i}`, d.channel]));
  return stamp(draws, {}).map((e) => ({ ...e, channel: channel.get(e.event_id)! }));
}

const num = (v: unknown) => (typeof v === 'bigint' ? Number(v) : (v as number));

/** The store's own events and sessions, as the reference model reads them. */
async function storedRows(store: DuckDbEventStore): Promise<{ events: TestEvent[]; sessions: StoredSession[] }> {
  const c = await store.instance.connect();
  try {
    const events = (await c.runAndReadAll('SELECT * EXCLUDE (day) FROM events')).getRowObjectsJS().map(
      (r) => ({ ...r, ts_ms: num(r.ts_ms), engagement_time_ms: num(r.engagement_time_ms) }) as unknown as TestEvent,
    );
    const sessions = (await c.runAndReadAll('SELECT * EXCLUDE (day), day::VARCHAR AS day FROM sessions')).getRowObjectsJS().map(
      (r) =>
        ({
          ...r,
          start_ms: num(r.start_ms),
          end_ms: num(r.end_ms),
          pageviews: num(r.pageviews),
          events: num(r.events),
          engagement_ms: num(r.engagement_ms),
          meaningful_actions: num(r.meaningful_actions),
        }) as unknown as StoredSession,
    );
    return { events, sessions };
  } finally {
    c.closeSync();
  }
}

/** Rollup rows in a canonical order, for "nothing changed" comparisons. */
async function rollupSnapshot(store: DuckDbEventStore, table = ROLLUP_TABLE): Promise<string> {
  const c = await store.instance.connect();
  try {
    const rows = (await c.runAndReadAll(`SELECT * FROM ${table} ORDER BY ALL`)).getRowsJS();
    return JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
  } finally {
    c.closeSync();
  }
}

function plain(spec: QuerySpec, rows: readonly (MetricRow | RefRow)[]) {
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
const KEYS = ['/', '/a', '/café', 'DE', 'FR', 'Direct', 'Search', 'Referral', 'google.com', 't1', 't2', 'desktop', 'email', 'Paris', 'IDF', null];

const specArb: fc.Arbitrary<QuerySpec> = fc
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
function everyDimension(): QuerySpec[] {
  const out: QuerySpec[] = [];
  for (const [tenantIds, trafficClasses] of [
    [null, TRAFFIC_FILTERS.all],
    [['t1'], TRAFFIC_FILTERS.humans],
    // visitors over two tenants: a key seen in both counts once, so these stay raw
    [['t1', 't2'], TRAFFIC_FILTERS.humans_including_ai],
  ] as const) {
    const base = { siteId: SITE, tenantIds, startMs: BASE_MS, endMs: BASE_MS + 3 * DAY - 1, trafficClasses, filters: {}, metrics: [...METRICS] };
    out.push(base, { ...base, interval: 'day' });
    for (const dimension of DIMENSIONS) out.push({ ...base, dimension }, { ...base, dimension, interval: 'day' });
    // the stored pairs, either way round
    for (const [dimension, splitBy] of ROLLUP_PAIRS) out.push({ ...base, dimension, splitBy }, { ...base, dimension: splitBy, splitBy: dimension });
  }
  return out;
}

async function withStore<T>(fn: (store: DuckDbEventStore, dir: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-rollups-'));
  const store = await openDuckDbEventStore({ file: ':memory:', threads: 2, tempDir: dir });
  try {
    return await fn(store, dir);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('rollup answers equal raw answers and the reference model on random data, ranges, filters, tenants and traffic', async () => {
  let viaRollup = 0;
  let checked = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(eventDrawArb([SITE, 'site_b']), { minLength: 1, maxLength: 300, size: 'max' }),
      fc.integer({ min: 0, max: 100 }),
      fc.array(specArb, { minLength: 40, maxLength: 40 }),
      async (draws, splitPct, specs) =>
        withStore(async (store) => {
          const rows = rowsOf(draws);
          // two imports into the same days: the second rebuilds days the first already built
          const cut = Math.floor((rows.length * splitPct) / 100);
          await store.importBatch(rows.slice(0, cut), { reidentify });
          await store.importBatch(rows.slice(cut), { reidentify });
          const rollup = new DuckDbAnalyticsEngine({ connect: () => store.instance.connect(), release: (c) => c.closeSync() });
          const raw = new DuckDbAnalyticsEngine({ connect: () => store.instance.connect(), release: (c) => c.closeSync(), rollups: false });
          const data = await storedRows(store);
          for (const spec of [...everyDimension(), ...specs]) {
            if (planRollup(normalizeSpec(spec)).use === 'rollup') viaRollup++;
            checked++;
            const [r, w] = await Promise.all([rollup.run(spec, { timeoutMs: 20_000 }), raw.run(spec, { timeoutMs: 20_000 })]);
            const ref = referenceQuery(spec, data.events, data.sessions);
            const label = JSON.stringify(spec);
            assert.deepEqual(plain(spec, r), plain(spec, w), `rollup vs raw: ${label}`);
            assert.deepEqual(plain(spec, r), plain(spec, ref), `rollup vs reference: ${label}`);
          }
        }),
    ),
    { numRuns: 10, seed: 4242, endOnFailure: true },
  );
  assert.ok(viaRollup >= checked / 3, `only ${viaRollup} of ${checked} specs were answered from the rollups`);
});
