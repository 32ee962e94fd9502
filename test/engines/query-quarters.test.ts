// The query API's reads from the quarter-hour rollup rows (compile-query-quarters.ts) against its reads
// from the events, on random data imported through the DuckDB store in parts (a general import, then
// late and appended events: every way the rows are moved), and random totals and time series in zones
// whose days do not start at 00:00 UTC, windows cut at quarters and elsewhere, tenants and traffic
// filters. The events' answers are held to the reference by query-api-engines.test.ts; here the two
// reads must be equal, and most of the planned shapes must be served by the quarter rows. The store's
// clock makes its last days live (counted from the events at read time): reads across them add both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { DuckDbAnalyticsEngine } from '../../src/engines/duckdb/duckdb-analytics-engine.js';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { duckdbDialect } from '../../src/engines/sql/dialect.js';
import { planQuarterRead } from '../../src/engines/sql/read/compile-query-quarters.js';
import { bucketAt, bucketSql } from '../../src/engines/sql/read/query-buckets.js';
import { TRAFFIC_FILTERS } from '../../src/domain/events.js';
import { QUERY_ATOMS, type QueryAtom } from '../../src/domain/query-api/query-metrics.js';
import { zonedBucketing } from '../../src/domain/query-api/zone-buckets.js';
import { addDays } from '../../src/domain/report-range.js';
import { dayStart } from '../../src/domain/zoned-time.js';
import type { QueryRow, QueryRowsRequest } from '../../src/ports/analytics-engine.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { DAY, SITE, eventDrawArb, type EventDraw } from './analytics-fixtures.js';
import { rowsOf } from './rollup-specs.js';
import { withStoreInParts } from './store-in-parts.js';
import { openScratch, skipReason } from './clickhouse-scratch.js';
import { runs, seeded } from '../helpers/property-runs.js';

const HOUR = 3_600_000;
const QUARTER = 900_000;
// New York's fall-back is Sun 2025-11-02 06:00 UTC; Kolkata +05:30, Kathmandu +05:45, Chatham +13:45/+12:45
const FIRST = Date.UTC(2025, 9, 30);
const DAYS = 5;
const ZONES = ['Asia/Kathmandu', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham', 'UTC'] as const;
const UNITS = [null, 'day', 'day', 'week', 'week', 'month', 'hour'] as const;
const options = { timeoutMs: 20_000 };
const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;

/** Draws on the span's days at any minute, most near the zones' local midnights. */
const drawsArb = fc.array(
  fc.record({
    draw: eventDrawArb([SITE, SITE, SITE, 'site_b']),
    day: fc.integer({ min: 0, max: DAYS - 1 }),
    hour: fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom(4, 5, 6, 10, 11, 18, 19) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 23 }) },
    ),
    minute: fc.integer({ min: 0, max: 59 }),
  }),
  { minLength: 20, maxLength: 250, size: 'max' },
);

const requestArb = fc
  .record({
    zone: fc.constantFrom(...ZONES),
    fromDay: fc.integer({ min: -1, max: DAYS - 1 }),
    days: fc.integer({ min: 1, max: DAYS + 1 }),
    // cuts at quarters (the rows answer), or at any minute (the events do). The weights here and in
    // UNITS keep the planned share near 0.45 (0.37 at the least over 400 seeds of 300 requests), clear
    // of the one third the test asks for; at 0.37 a seed in twenty fell under it
    cut: fc.option(
      fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 }), fc.constantFrom(QUARTER, QUARTER, QUARTER, 60_000)),
      {
        freq: 2,
      },
    ),
    unit: fc.constantFrom(...UNITS),
    tenantIds: fc.constantFrom<readonly string[] | null>(null, null, ['t1'], ['t2'], ['t1', 't2']),
    traffic: fc.constantFrom(...Object.values(TRAFFIC_FILTERS), ['human', 'bot'] as const),
    atoms: fc.shuffledSubarray<QueryAtom>([...QUERY_ATOMS], { minLength: 1 }),
  })
  .map((r): QueryRowsRequest => {
    const from = addDays(new Date(FIRST).toISOString().slice(0, 10), r.fromDay);
    const to = addDays(from, r.days - 1);
    let window = { startMs: dayStart(r.zone, from), endMs: dayStart(r.zone, addDays(to, 1)) };
    if (r.cut) {
      const [a, b, unit] = r.cut;
      if (window.startMs + a * unit < window.endMs - b * unit)
        window = { startMs: window.startMs + a * unit, endMs: window.endMs - b * unit };
    }
    return {
      scope: { siteId: SITE, tenantIds: r.tenantIds, trafficClasses: r.traffic },
      window,
      groups: [],
      bucketing: r.unit ? zonedBucketing(r.zone, from, to, r.unit, window).bucketing : null,
      filters: [],
      goals: [],
      atoms: r.atoms,
    };
  });

const sorted = (rows: readonly QueryRow[]) => rows.map((r) => JSON.stringify([r.bucket, r.atoms])).sort();

test('query API reads from the quarter-hour rollups equal its reads from the events, through imports in parts', async () => {
  let planned = 0;
  let checked = 0;
  let counted = 0;
  await fc.assert(
    fc.asyncProperty(
      drawsArb,
      fc.integer({ min: 0, max: 100 }),
      fc.array(requestArb, { minLength: 12, maxLength: 12 }),
      async (drawn, splitPct, requests) => {
        const draws: EventDraw[] = drawn.map((x) => ({
          ...x.draw,
          ts: FIRST + x.day * DAY + x.hour * HOUR + x.minute * 60_000 + (x.draw.ts % 60_000),
        }));
        const rows = rowsOf(draws);
        await withStoreInParts(rows, splitPct, FIRST + 3 * DAY + 12 * HOUR, async ({ fromRollups, events }) => {
          for (const request of requests) {
            checked++;
            if (planQuarterRead(request)) planned++;
            const [got, want] = await Promise.all([fromRollups.queryRows(request, options), events.queryRows(request, options)]);
            assert.deepEqual(sorted(got), sorted(want), JSON.stringify({ ...request, bucketing: request.bucketing?.by ?? null }));
            if (want.some((r) => Object.values(r.atoms).some((v) => v !== 0))) counted++;
          }
        });
      },
    ),
    { numRuns: runs(25), endOnFailure: true },
  );
  // the generators reach both reads, and data
  assert.ok(planned * 3 > checked, `only ${planned} of ${checked} requests were planned on the quarter rows`);
  assert.ok(planned < checked, 'every request was planned: the events were never read');
  assert.ok(counted * 3 > checked, `only ${counted} of ${checked} requests counted anything`);
});

test('the planner cuts a Kathmandu day once at 18:15 UTC, and refuses hours and a window inside one day', () => {
  const window = { startMs: dayStart('Asia/Kathmandu', '2025-11-01'), endMs: dayStart('Asia/Kathmandu', '2025-11-04') };
  const base: QueryRowsRequest = {
    scope: { siteId: SITE, tenantIds: null, trafficClasses: TRAFFIC_FILTERS.humans },
    window,
    groups: [],
    bucketing: zonedBucketing('Asia/Kathmandu', '2025-11-01', '2025-11-03', 'day', window).bucketing,
    filters: [],
    goals: [],
    atoms: ['visitors'],
  };
  // 00:00 in Kathmandu is 18:15 UTC, the 73rd quarter of the UTC day
  assert.deepEqual(planQuarterRead(base)?.cuts, [{ fromMs: Date.UTC(2025, 9, 31), cut: 73 }]);
  const hours = { ...base, bucketing: zonedBucketing('Asia/Kathmandu', '2025-11-01', '2025-11-03', 'hour', window).bucketing };
  assert.equal(planQuarterRead(hours), null);
  const inside = { ...base, bucketing: null, window: { startMs: Date.UTC(2025, 10, 1, 6), endMs: Date.UTC(2025, 10, 1, 9) } };
  assert.equal(planQuarterRead(inside), null);
  assert.equal(planQuarterRead({ ...base, scope: { ...base.scope, tenantIds: ['t1', 't2'] } }), null);
  assert.equal(planQuarterRead({ ...base, scope: { ...base.scope, trafficClasses: ['human', 'bot'] } }), null);
  assert.equal(planQuarterRead({ ...base, groups: [{ kind: 'page' }] }), null);
});

test('bucketAt is the key bucketSql gives on DuckDB, for every unit in zones with offset changes', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-buckets-'));
  const store = await openDuckDbEventStore({ file: ':memory:', threads: 1, tempDir: dir });
  const c = await store.instance.connect();
  try {
    for (const zone of ZONES)
      for (const unit of ['hour', 'day', 'week', 'month'] as const) {
        const window = { startMs: dayStart(zone, '2025-10-01'), endMs: dayStart(zone, '2025-12-01') };
        const b = zonedBucketing(zone, '2025-10-01', '2025-11-30', unit, window).bucketing;
        const instants = Array.from(
          { length: 400 },
          (_, i) => window.startMs + Math.floor(((window.endMs - window.startMs) * i) / 400) + (i % 7) * 61_000,
        );
        const sql = `SELECT ${instants.map((ts, i) => `${bucketSql(duckdbDialect, b, String(ts))} AS k${i}`).join(', ')}`;
        const row = (await c.runAndReadAll(sql)).getRowsJS()[0].map(Number);
        assert.deepEqual(
          row,
          instants.map((ts) => bucketAt(b, ts)),
          `${zone} ${unit}`,
        );
      }
  } finally {
    c.closeSync();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const chSkip = skipReason('single') || skipReason('cluster');

test('on one ClickHouse server and on two shards, the quarter-hour reads equal DuckDB reading the events', { skip: chSkip }, async () => {
  const drawn = await seeded(async (seed) => fc.sample(drawsArb, { seed, numRuns: 1 })[0]);
  const draws: EventDraw[] = drawn.map((x) => ({
    ...x.draw,
    ts: FIRST + x.day * DAY + x.hour * HOUR + x.minute * 60_000 + (x.draw.ts % 60_000),
  }));
  const rows = rowsOf(draws);
  const half = Math.floor(rows.length / 2);
  const duck = await openDuckDbEventStore({ file: ':memory:' });
  const single = await openScratch('single');
  const cluster = await openScratch('cluster');
  try {
    // two imports into the same days: the second rewrites days the first wrote
    for (const store of [duck, single.store, cluster.store]) {
      await store.importBatch(rows.slice(0, half), { reidentify });
      await store.importBatch(rows.slice(half), { reidentify });
    }
    const events = new DuckDbAnalyticsEngine({ connect: () => duck.instance.connect(), release: (c) => c.closeSync(), rollups: false });
    let planned = 0;
    for (const request of fc.sample(requestArb, { seed: 7, numRuns: runs(60) })) {
      if (planQuarterRead(request)) planned++;
      const [want, s, x2] = await Promise.all(
        [events, single.engine, cluster.engine].map((e) => e.queryRows(request, options).then(sorted)),
      );
      const label = JSON.stringify({ ...request, bucketing: request.bucketing?.by ?? null });
      assert.deepEqual(s, want, `one server: ${label}`);
      assert.deepEqual(x2, want, `two shards: ${label}`);
    }
    assert.ok(planned > 0, 'no request was planned on the quarter rows');
  } finally {
    await duck.close();
    await single.close();
    await cluster.close();
  }
});
