// One fixed event set, imported the same way into DuckDB, one ClickHouse server and two ClickHouse
// shards: import results, coverage, the daily rollup rows, and every read of the port (QuerySpecs,
// action rows and totals, goal matches, page titles) must be IDENTICAL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DuckDbAnalyticsEngine } from '../../src/engines/duckdb/duckdb-analytics-engine.js';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import type { EventRow, EventStore } from '../../src/ports/event-store.js';
import type { ActionGroupKey, ActionSelection, AnalyticsEngine, GoalMatcher, ReadScope } from '../../src/ports/analytics-engine.js';
import { ROLLUP_COLUMNS } from '../../src/engines/sql/rollup-tables.js';
import type { OpenedClickHouse } from '../../src/engines/clickhouse/open-clickhouse.js';
import type { QuerySpec } from '../../src/domain/query/query-spec.js';
import { DIMENSIONS } from '../../src/domain/query/dimensions.js';
import { METRICS } from '../../src/domain/query/metrics.js';
import { BASE_MS, DAY, SITE, eventDrawArb, stamp } from './analytics-fixtures.js';
import { committedRows, openScratch, skipReason } from './clickhouse-scratch.js';
import { specArb } from './clickhouse-specs.js';

const skip = skipReason('single') || skipReason('cluster');

/** 600 events over three days and two sites, a profile switch mid-range; fixed by the seed. */
function fixedEvents(): EventRow[] {
  const draws = fc.sample(eventDrawArb([SITE, 'site_b']), { seed: 20250301, numRuns: 600 });
  const events = stamp(draws, { [SITE]: { profile: 'extended', effectiveAtMs: Date.UTC(2025, 2, 2, 12) } });
  const channel = new Map(draws.map((d, i) => [`ev${i}`, d.channel]));
  return events.map((e) => ({ ...e, channel: channel.get(e.event_id)!, prop_keys: [], prop_values: [] }));
}

const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;

/** Two imports: the second repeats 40 rows of the first (ev5 among them, three times: two become new twins) into the same days. */
async function importAll(store: EventStore, rows: EventRow[]) {
  const first = rows.filter((_, i) => i % 3 !== 0);
  const second = [...rows.filter((_, i) => i % 3 === 0), ...first.slice(0, 40), rows[5], { ...rows[5] }];
  const a = await store.importBatch(first, { reidentify });
  const session = await store.beginImport({ reidentify });
  await session.append(second.slice(0, 100));
  await session.append(second.slice(100));
  const b = await session.commit();
  return [a, b];
}

test('DuckDB, one ClickHouse server and two ClickHouse shards give identical answers on the same imports', { skip }, async () => {
  const rows = fixedEvents();
  const base = {
    siteId: SITE,
    tenantIds: null,
    startMs: BASE_MS,
    endMs: BASE_MS + 3 * DAY - 1,
    trafficClasses: ['human', 'ai_agent'],
    filters: {},
  } as const;
  const plain: QuerySpec[] = [
    { ...base, metrics: [...METRICS] },
    { ...base, metrics: ['visitors', 'sessions', 'pageviews'], interval: 'hour' },
    ...DIMENSIONS.flatMap((dimension): QuerySpec[] => [
      { ...base, metrics: ['sessions', 'pageviews', 'visitors', 'bounce_rate', 'entries', 'exits'], dimension },
      { ...base, metrics: ['avg_session_eng_time_ms', 'sessions'], dimension, interval: 'day' },
    ]),
  ];
  const specs = [...plain, ...fc.sample(specArb, { seed: 7, numRuns: 150 })];
  const duck = await openDuckDbEventStore({ file: ':memory:' });
  const single = await openScratch('single');
  const cluster = await openScratch('cluster');
  try {
    const engines: [string, EventStore, AnalyticsEngine][] = [
      ['duckdb', duck, new DuckDbAnalyticsEngine({ connect: () => duck.instance.connect(), release: (c) => c.closeSync() })],
      ['clickhouse', single.store, single.engine],
      ['clickhouse x2', cluster.store, cluster.engine],
    ];
    const results = [];
    for (const [, store] of engines) results.push(await importAll(store, rows));
    assert.ok(results[0][1].days.length > 0 && results[0][1].duplicates === 40, JSON.stringify(results[0][1]));
    assert.deepEqual(results[1], results[0], 'import results, one server');
    assert.deepEqual(results[2], results[0], 'import results, two shards');

    for (const site of [SITE, 'site_b', 'nope']) {
      const [d, ...chs] = await Promise.all(engines.map(([, s]) => s.siteCoverage(site)));
      for (const c of chs) assert.deepEqual(c, d, site);
      const edges = await Promise.all(
        engines.map(async ([, , e]) => [(await e.firstEventAt(site))?.getTime(), (await e.newestEventAt(site))?.getTime()]),
      );
      for (const e of edges.slice(1)) assert.deepEqual(e, edges[0]);
    }
    // the rollups ClickHouse built with the shared build SQL are DuckDB's rows
    const duckRollups = await rollupRows(async (sql) => {
      const c = await duck.instance.connect();
      try {
        return (await c.runAndReadAll(sql)).getRowObjectsJS();
      } finally {
        c.closeSync();
      }
    }, 'daily_rollups');
    assert.ok(duckRollups.length > 100);
    for (const ch of [single, cluster])
      assert.deepEqual(await committedRollups(ch), duckRollups, ch === single ? 'rollups, one server' : 'rollups, two shards');

    const same = async (what: string, read: (e: AnalyticsEngine) => Promise<unknown>) => {
      const [d, ...chs] = await Promise.all(engines.map(([, , e]) => read(e)));
      for (const c of chs) assert.deepEqual(c, d, what);
      return d;
    };
    const options = { timeoutMs: 20_000 };
    const scopes: ReadScope[] = [
      { siteId: SITE, tenantIds: null, trafficClasses: ['human', 'ai_agent'] },
      { siteId: SITE, tenantIds: ['t1'], trafficClasses: ['human'] },
    ];
    const whole = { startMs: BASE_MS, endMs: BASE_MS + 3 * DAY - 1 };
    const partial = { startMs: BASE_MS + 13 * 3_600_000, endMs: BASE_MS + 2 * DAY - 1 };
    const groupings: ActionGroupKey[][] = [
      [],
      ['family'],
      ['day', 'family'],
      ['action'],
      ['action', 'page'],
      ['action', 'channel'],
      ['page'],
      ['channel'],
      ['device'],
      ['country'],
      ['browser'],
    ];
    const goals: GoalMatcher[] = [
      { type: 'PAGEVIEW_MATCH', pattern: '/a*', filters: null },
      { type: 'PAGEVIEW_MATCH', pattern: '/caf_', filters: null },
      { type: 'EVENT_MATCH', pattern: 'signup', filters: null },
      { type: 'EVENT_MATCH', pattern: 'outbound.click', filters: { action_target_host: 'partner.example' } },
    ];
    let found = 0;
    for (const scope of scopes) {
      for (const window of [whole, partial]) {
        for (const advanced of [null, { startMs: BASE_MS + DAY, endMs: BASE_MS + 2 * DAY - 1 }]) {
          const selection: ActionSelection = { scope, window, advanced };
          for (const groupBy of groupings) {
            const rows = (await same(`action rows ${groupBy}`, (e) =>
              e.actionRows({ selection, groupBy }, options).then(sortRows),
            )) as unknown[];
            found += rows.length;
          }
          for (const sel of [selection, { ...selection, family: 'custom' as const }])
            for (const byDay of [false, true])
              await same(`action totals ${byDay}`, (e) => e.actionTotals({ selection: sel, byDay }, options).then(sortRows));
        }
        await same('goal matches', (e) => e.goalMatches({ scope, window, goals }, options));
        const titles = (await same('page titles', (e) =>
          e.pageTitles({ scope, window, paths: ['/', '/a', '/b', '/café', '/😀', '/nope'] }, options).then((m) => [...m].sort()),
        )) as unknown[];
        found += titles.length;
      }
    }
    assert.ok(found > 50, `only ${found} rows found`);

    let nonEmpty = 0;
    const answers = [];
    for (const spec of specs) {
      const [d, s, c] = await Promise.all(engines.map(([, , e]) => e.run(spec, { timeoutMs: 20_000 })));
      assert.deepEqual(s, d, `one server: ${JSON.stringify(spec)}`);
      assert.deepEqual(c, d, `two shards: ${JSON.stringify(spec)}`);
      if (d.some((r) => Object.values(r.values).some((v) => v !== 0))) nonEmpty++;
      answers.push(d);
    }
    // reads started together share statements on ClickHouse (one per server): the same answers
    for (const [name, , e] of engines.slice(1)) {
      const before = (e as unknown as { statements: number }).statements;
      const together = await Promise.all([
        ...specs.map((spec) => e.run(spec, { timeoutMs: 20_000 })),
        e.pageTitles({ scope: scopes[0], window: whole, paths: ['/', '/a'] }, options),
      ]);
      assert.deepEqual(together.slice(0, specs.length), answers, `${name}, batched`);
      const sent = (e as unknown as { statements: number }).statements - before;
      assert.ok(sent * 10 < specs.length, `${name}: ${specs.length + 1} reads took ${sent} statements`);
    }
    assert.ok(nonEmpty >= plain.length, `only ${nonEmpty} of ${specs.length} queries found data`);
  } finally {
    await duck.close();
    await single.close();
    await cluster.close();
  }
});

test('after a purge and an undo, DuckDB, one ClickHouse server and two shards still answer alike', { skip }, async () => {
  const rows = fixedEvents();
  const base = {
    siteId: SITE,
    tenantIds: null,
    startMs: BASE_MS,
    endMs: BASE_MS + 3 * DAY - 1,
    trafficClasses: ['human', 'ai_agent'],
    filters: {},
  } as const;
  const specs: QuerySpec[] = [
    { ...base, metrics: [...METRICS] },
    { ...base, metrics: [...METRICS], interval: 'day' },
    { ...base, metrics: ['visitors', 'sessions', 'pageviews'], interval: 'hour' },
    ...DIMENSIONS.map(
      (dimension): QuerySpec => ({ ...base, metrics: ['sessions', 'pageviews', 'visitors', 'entries', 'exits'], dimension }),
    ),
    ...fc.sample(specArb, { seed: 11, numRuns: 40 }),
  ];
  const duck = await openDuckDbEventStore({ file: ':memory:' });
  const single = await openScratch('single');
  const cluster = await openScratch('cluster');
  try {
    const engines: [string, EventStore, AnalyticsEngine][] = [
      ['duckdb', duck, new DuckDbAnalyticsEngine({ connect: () => duck.instance.connect(), release: (c) => c.closeSync() })],
      ['clickhouse', single.store, single.engine],
      ['clickhouse x2', cluster.store, cluster.engine],
    ];
    const horizon = new Date(BASE_MS + DAY).toISOString().slice(0, 10);
    const results = [];
    for (const [, store] of engines) {
      await store.importBatch(
        rows.filter((_, i) => i % 3 !== 0),
        { reidentify, importId: 'imp_one' },
      );
      await store.importBatch(
        rows.filter((_, i) => i % 3 === 0),
        { reidentify, importId: 'imp_two' },
      );
      const purged = await store.purgeDays(SITE, horizon);
      const undone = await store.undoImport('imp_two');
      results.push([
        purged,
        undone,
        await store.siteCoverage(SITE),
        await store.eventCounts({ siteIds: [SITE, 'site_b'], months: ['2025-03'] }),
      ]);
    }
    assert.ok(
      (results[0][0] as { events: number }).events > 0 && (results[0][1] as { events: number }).events > 0,
      JSON.stringify(results[0]),
    );
    assert.deepEqual(results[1], results[0], 'figures, one server');
    assert.deepEqual(results[2], results[0], 'figures, two shards');
    const duckRollups = await rollupRows(async (sql) => {
      const c = await duck.instance.connect();
      try {
        return (await c.runAndReadAll(sql)).getRowObjectsJS();
      } finally {
        c.closeSync();
      }
    }, 'daily_rollups');
    for (const ch of [single, cluster])
      assert.deepEqual(await committedRollups(ch), duckRollups, ch === single ? 'rollups, one server' : 'rollups, two shards');
    for (const spec of specs) {
      const [d, s, c] = await Promise.all(engines.map(([, , e]) => e.run(spec, { timeoutMs: 20_000 })));
      assert.deepEqual(s, d, `one server: ${JSON.stringify(spec)}`);
      assert.deepEqual(c, d, `two shards: ${JSON.stringify(spec)}`);
    }
  } finally {
    await duck.close();
    await single.close();
    await cluster.close();
  }
});

const sortRows = <T>(rows: T[]) => rows.map((r) => JSON.stringify(r)).sort();

type Row = Record<string, unknown>;
const plainRollup = (r: Row) =>
  JSON.stringify(
    ROLLUP_COLUMNS.map((c) =>
      r[c] === null || r[c] === undefined
        ? null
        : typeof r[c] === 'boolean'
          ? Number(r[c])
          : typeof r[c] === 'string'
            ? r[c]
            : Number(r[c]),
    ),
  );

async function rollupRows(query: (sql: string) => Promise<Row[]>, from: string): Promise<string[]> {
  return (await query(`SELECT ${ROLLUP_COLUMNS.join(', ')} FROM ${from}`)).map(plainRollup).sort();
}

/**
 * Every server's rollup rows of the generation its log shows as current, the servers' rows of one
 * key added up (each server counts its own visitors: every atom is a sum over servers).
 */
async function committedRollups(ch: OpenedClickHouse): Promise<string[]> {
  const byKey = new Map<string, number[]>();
  for (const r of await committedRows<Row>(ch, ch.layout.rollups, ROLLUP_COLUMNS.join(', '))) {
    const row = JSON.parse(plainRollup(r)) as unknown[];
    const key = JSON.stringify(row.slice(0, 9));
    const atoms = row.slice(9) as number[];
    const sum = byKey.get(key);
    byKey.set(key, sum ? sum.map((v, i) => v + atoms[i]) : atoms);
  }
  return [...byKey].map(([key, atoms]) => JSON.stringify([...JSON.parse(key), ...atoms])).sort();
}
