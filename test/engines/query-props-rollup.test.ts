// The query API's breakdowns by a custom property read from the property rollup rows
// (compile-query-props.ts) against its reads from the events, on random events with random properties
// imported through the DuckDB store in parts (a general import, then late and appended events: every way
// the rows are moved), with random keys (one every event of some visitors carries, one that is rare, one
// no event has), tenants, traffic filters and windows. The events' answers are held to the reference by
// query-api-engines.test.ts; here the two reads must be equal, the none group ("(none)": events without
// the key) included, and most of the planned shapes must be served by the rows. The store's clock makes
// its last days live (counted from the events at read time): reads across them add both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DuckDbAnalyticsEngine } from '../../src/engines/duckdb/duckdb-analytics-engine.js';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { planPropRead } from '../../src/engines/sql/read/compile-query-props.js';
import { TRAFFIC_FILTERS } from '../../src/domain/events.js';
import type { QueryAtom } from '../../src/domain/query-api/query-metrics.js';
import type { QueryRow, QueryRowsRequest } from '../../src/ports/analytics-engine.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { DAY, SITE, eventDrawArb, type EventDraw } from './analytics-fixtures.js';
import { rowsOf } from './rollup-specs.js';
import { withStoreInParts } from './store-in-parts.js';
import { committedRows, openScratch, skipReason } from './clickhouse-scratch.js';
import { openClickHouse } from '../../src/engines/clickhouse/open-clickhouse.js';
import { ident } from '../../src/engines/clickhouse/schema.js';
import { SCHEMA_TABLE } from '../../src/engines/clickhouse/schema-version.js';
import { PROP_GROUPINGS } from '../../src/engines/sql/rollup-tables.js';
import { runs, seeded } from '../helpers/property-runs.js';

const HOUR = 3_600_000;
const FIRST = Date.UTC(2025, 9, 30);
const DAYS = 5;
const KEYS = ['plan', 'lang', 'never'] as const;
const options = { timeoutMs: 20_000 };
const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;

/** Draws on the span's days, each with properties: `plan` on most events, `lang` on few, '' a value too. */
const drawsArb = fc.array(
  fc.record({
    draw: eventDrawArb([SITE, SITE, SITE, 'site_b']),
    day: fc.integer({ min: 0, max: DAYS - 1 }),
    hour: fc.integer({ min: 0, max: 23 }),
    plan: fc.option(fc.constantFrom('free', 'pro', ''), { freq: 5 }),
    lang: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom('en', 'fr') }),
  }),
  { minLength: 20, maxLength: 250, size: 'max' },
);

type Drawn = fc.Arbitrary<typeof drawsArb extends fc.Arbitrary<infer T> ? T : never>;

/** The draws as stored rows, each with its properties (keys in a random order per event). */
function rowsWithProps(drawn: Drawn extends fc.Arbitrary<infer T> ? T : never): EventRow[] {
  const draws: EventDraw[] = drawn.map((x) => ({ ...x.draw, ts: FIRST + x.day * DAY + x.hour * HOUR + (x.draw.ts % HOUR) }));
  const props = new Map(draws.map((d, i) => [d, drawn[i]]));
  return rowsOf(draws).map((row, i) => {
    const x = props.get(draws[i]) ?? drawn[i];
    const pairs: [string, string][] = [];
    if (x.plan !== null) pairs.push(['plan', x.plan]);
    if (x.lang !== null) pairs.push(['lang', x.lang]);
    if (i % 2) pairs.reverse();
    return { ...row, prop_keys: pairs.map(([k]) => k), prop_values: pairs.map(([, v]) => v) };
  });
}

const requestArb = fc
  .record({
    key: fc.constantFrom(...KEYS),
    fromDay: fc.integer({ min: -1, max: DAYS - 1 }),
    days: fc.integer({ min: 1, max: DAYS + 1 }),
    // whole UTC days (the rows answer), or cut at an hour at either end, as a local day off UTC is (the rows
    // answer the whole UTC days inside, the events the parts at the edges; a window inside one day, the events)
    cut: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 23 }) }),
    cutEnd: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 23 }) }),
    tenantIds: fc.constantFrom<readonly string[] | null>(null, null, ['t1'], ['t2'], ['t1', 't2']),
    traffic: fc.constantFrom(...Object.values(TRAFFIC_FILTERS), ['human', 'bot'] as const),
    atoms: fc.oneof(
      { weight: 5, arbitrary: fc.shuffledSubarray<QueryAtom>(['visitors', 'events', 'pageviews'], { minLength: 1 }) },
      { weight: 1, arbitrary: fc.constant<QueryAtom[]>(['visitors', 'visits']) },
    ),
  })
  .map((r): QueryRowsRequest => {
    const startMs = FIRST + r.fromDay * DAY + (r.cut ?? 0) * HOUR;
    return {
      scope: { siteId: SITE, tenantIds: r.tenantIds, trafficClasses: r.traffic },
      window: { startMs, endMs: Math.max(startMs + HOUR, FIRST + (r.fromDay + r.days) * DAY - r.cutEnd * HOUR) },
      groups: [{ kind: 'prop', key: r.key }],
      bucketing: null,
      filters: [],
      goals: [],
      atoms: r.atoms,
    };
  });

const sorted = (rows: readonly QueryRow[]) => rows.map((r) => JSON.stringify([r.keys, r.atoms])).sort();

test('query API breakdowns by a custom property from the rollup rows equal its reads from the events, through imports in parts', async () => {
  let planned = 0;
  let checked = 0;
  let none = 0;
  await fc.assert(
    fc.asyncProperty(
      drawsArb,
      fc.integer({ min: 0, max: 100 }),
      fc.array(requestArb, { minLength: 12, maxLength: 12 }),
      async (drawn, splitPct, requests) => {
        const rows = rowsWithProps(drawn);
        await withStoreInParts(rows, splitPct, FIRST + 3 * DAY + 12 * HOUR, async ({ fromRollups, events }) => {
          for (const request of requests) {
            checked++;
            if (planPropRead(request)) planned++;
            const [got, want] = await Promise.all([fromRollups.queryRows(request, options), events.queryRows(request, options)]);
            assert.deepEqual(sorted(got), sorted(want), JSON.stringify(request));
            if (want.some((r) => r.keys[0] === null) && want.length > 1) none++;
          }
        });
      },
    ),
    { numRuns: runs(20), endOnFailure: true },
  );
  // the generators reach both reads, and answers with values and the none group
  assert.ok(planned * 3 > checked, `only ${planned} of ${checked} requests were planned on the property rows`);
  assert.ok(planned < checked, 'every request was planned: the events were never read');
  assert.ok(none * 5 > checked, `only ${none} of ${checked} requests had values and a none group`);
});

test('the planner takes one property key over the whole UTC days of a window, its edges left to the events, no filter, and visitors, events or pageviews only', () => {
  const base: QueryRowsRequest = {
    scope: { siteId: SITE, tenantIds: null, trafficClasses: TRAFFIC_FILTERS.humans },
    window: { startMs: FIRST, endMs: FIRST + 3 * DAY },
    groups: [{ kind: 'prop', key: 'plan' }],
    bucketing: null,
    filters: [],
    goals: [],
    atoms: ['visitors', 'events'],
  };
  const days = { startMs: FIRST, endMs: FIRST + 3 * DAY };
  assert.deepEqual(planPropRead(base), { traffic: 'humans', tenant: null, key: 'plan', days, edges: [] });
  // Kathmandu's days: from 18:15 UTC to 18:15 UTC
  const kathmandu = { startMs: FIRST - 5 * HOUR - 45 * 60_000, endMs: FIRST + 3 * DAY - 5 * HOUR - 45 * 60_000 };
  assert.deepEqual(planPropRead({ ...base, window: kathmandu })?.edges, [
    { startMs: kathmandu.startMs, endMs: FIRST },
    { startMs: FIRST + 2 * DAY, endMs: kathmandu.endMs },
  ]);
  assert.deepEqual(planPropRead({ ...base, window: kathmandu })?.days, { startMs: FIRST, endMs: FIRST + 2 * DAY });
  assert.equal(planPropRead({ ...base, window: { startMs: FIRST + HOUR, endMs: FIRST + DAY + HOUR } }), null);
  assert.equal(planPropRead({ ...base, atoms: ['visits'] }), null);
  assert.equal(planPropRead({ ...base, groups: [{ kind: 'prop', key: 'plan' }, { kind: 'page' }] }), null);
  assert.equal(planPropRead({ ...base, filters: [{ op: 'is', dimension: 'event:page', clauses: ['/'], caseSensitive: true }] }), null);
  assert.equal(planPropRead({ ...base, scope: { ...base.scope, tenantIds: ['t1', 't2'] } }), null);
});

const chSkip = skipReason('single') || skipReason('cluster');

test('on one ClickHouse server and on two shards, the property rows equal DuckDB reading the events', { skip: chSkip }, async () => {
  const drawn = await seeded(async (seed) => fc.sample(drawsArb, { seed, numRuns: 1 })[0]);
  const rows = rowsWithProps(drawn);
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
    for (const request of fc.sample(requestArb, { seed: 7, numRuns: runs(40) })) {
      if (planPropRead(request)) planned++;
      const [want, s, x2] = await Promise.all(
        [events, single.engine, cluster.engine].map((e) => e.queryRows(request, options).then(sorted)),
      );
      assert.deepEqual(s, want, `one server: ${JSON.stringify(request)}`);
      assert.deepEqual(x2, want, `two shards: ${JSON.stringify(request)}`);
    }
    assert.ok(planned > 0, 'no request was planned on the property rows');

    // A database of the release before the property rows (ff_schema 3, none of them stored): the next
    // open builds them on every server, under each day's generation, and the reads are the same again.
    const propDims = `(${Object.values(PROP_GROUPINGS)
      .map((d) => `'${d}'`)
      .join(', ')})`;
    for (const ch of [single, cluster]) {
      for (const n of ch.nodes) {
        await n.command(`ALTER TABLE ${ident(ch.layout.rollups)} DELETE WHERE dim IN ${propDims}`);
        await n.command(`ALTER TABLE ${ident(SCHEMA_TABLE)} DELETE WHERE version > 3`);
        await n.command(`INSERT INTO ${ident(SCHEMA_TABLE)} VALUES (3, 0)`);
        for (;;) {
          const [r] = await n.query<{ n: number }>(
            'SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND is_done = 0',
          );
          if (Number(r?.n ?? 0) === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    }
    const stored = async (ch: typeof single) =>
      (await committedRows(ch, ch.layout.rollups, 'count() AS n', `dim IN ${propDims}`)).reduce(
        (a, r) => a + Number((r as { n: number }).n),
        0,
      );
    assert.equal(await stored(single), 0);
    const reopened = [await openClickHouse(single.scratch.url), await openClickHouse(cluster.scratch.url)];
    try {
      for (const ch of reopened) assert.ok((await stored(ch as typeof single)) > 0, 'the open built the property rows again');
      for (const request of fc.sample(requestArb, { seed: 8, numRuns: runs(20) })) {
        const [want, s, x2] = await Promise.all(
          [events, ...reopened.map((ch) => ch.engine)].map((e) => e.queryRows(request, options).then(sorted)),
        );
        assert.deepEqual(s, want, `one server, upgraded: ${JSON.stringify(request)}`);
        assert.deepEqual(x2, want, `two shards, upgraded: ${JSON.stringify(request)}`);
      }
    } finally {
      for (const ch of reopened) await ch.close();
    }
  } finally {
    await duck.close();
    await single.close();
    await cluster.close();
  }
});
