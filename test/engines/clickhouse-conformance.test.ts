// One fixed event set, imported the same way into DuckDB, one ClickHouse server and a Distributed
// table over two ClickHouse shards: import results, coverage and every query's rows must be IDENTICAL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DuckDbAnalyticsEngine } from '../../src/engines/duckdb/analytics-engine.js';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import type { EventRow, EventStore } from '../../src/ports/event-store.js';
import type { AnalyticsEngine } from '../../src/ports/analytics-engine.js';
import type { QuerySpec } from '../../src/domain/query/query-spec.js';
import { DIMENSIONS } from '../../src/domain/query/dimensions.js';
import { METRICS } from '../../src/domain/query/metrics.js';
import { BASE_MS, DAY, SITE, eventDrawArb, stamp } from './analytics-fixtures.js';
import { openScratch, skipReason } from './clickhouse-scratch.js';
import { specArb } from './clickhouse-specs.js';

const skip = skipReason('single') || skipReason('cluster');

/** 600 events over three days and two sites, a profile switch mid-range; fixed by the seed. */
function fixedEvents(): EventRow[] {
  const draws = fc.sample(eventDrawArb([SITE, 'site_b']), { seed: 20250301, numRuns: 600 });
  const events = stamp(draws, { [SITE]: { profile: 'extended', effectiveAtMs: Date.UTC(2025, 2, 2, 12) } });
  const channel = new Map(draws.map((d, i) => [`ev${i}`, d.channel]));
  return events.map((e) => ({ ...e, channel: channel.get(e.event_id)! }));
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
  const base = { siteId: SITE, tenantIds: null, startMs: BASE_MS, endMs: BASE_MS + 3 * DAY - 1, trafficClasses: ['human', 'ai_agent'], filters: {} } as const;
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
      const edges = await Promise.all(engines.map(async ([, , e]) => [(await e.firstEventAt(site))?.getTime(), (await e.newestEventAt(site))?.getTime()]));
      for (const e of edges.slice(1)) assert.deepEqual(e, edges[0]);
    }
    let nonEmpty = 0;
    for (const spec of specs) {
      const [d, s, c] = await Promise.all(engines.map(([, , e]) => e.run(spec, { timeoutMs: 20_000 })));
      assert.deepEqual(s, d, `one server: ${JSON.stringify(spec)}`);
      assert.deepEqual(c, d, `two shards: ${JSON.stringify(spec)}`);
      if (d.some((r) => Object.values(r.values).some((v) => v !== 0))) nonEmpty++;
    }
    assert.ok(nonEmpty >= plain.length, `only ${nonEmpty} of ${specs.length} queries found data`);
  } finally {
    await duck.close();
    await single.close();
    await cluster.close();
  }
});
