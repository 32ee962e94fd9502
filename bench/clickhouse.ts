// ClickHouse store and engine figures on the live servers the test env names: import N synthetic
// events (default 200,000; 3 sites, 7 days) into a scratch database, re-import one day in halves
// (the rewrite path), then time a set of report-shaped queries. One server, then two shards.
// Run: `FOOTFALL_TEST_CLICKHOUSE_URL=... [FOOTFALL_TEST_CLICKHOUSE_SHARD2_URL=... FOOTFALL_TEST_CLICKHOUSE_CLUSTER=...] npx tsx bench/clickhouse.ts [N]`
import type { QuerySpec } from '../src/domain/query/query-spec.js';
import type { EventRow } from '../src/ports/event-store.js';
import { openScratch, skipReason, type Topology } from '../test/engines/clickhouse-scratch.js';
import { makeRow } from '../test/contract/event-store.contract.js';

const DAY = 86_400_000;
const BASE = Date.UTC(2025, 2, 1);

function synthetic(n: number): EventRow[] {
  let seed = 42;
  const rnd = (k: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % k;
  };
  const rows: EventRow[] = [];
  for (let i = 0; i < n; i++) {
    rows.push(
      makeRow({
        event_id: `b${i}`,
        site_id: `site_${rnd(3)}`,
        visitor_key: `v${rnd(20_000)}`,
        ts_ms: BASE + rnd(7) * DAY + rnd(DAY),
        type: rnd(4) === 0 ? 'action' : 'pageview',
        path_canon: `/p${rnd(200)}`,
        country: ['DE', 'FR', 'US', null][rnd(4)],
        channel: (['Direct', 'Search', 'Social'] as const)[rnd(3)],
        engagement_time_ms: rnd(20_000),
      }),
    );
  }
  return rows;
}

const base: QuerySpec = { siteId: 'site_0', tenantIds: null, startMs: BASE, endMs: BASE + 7 * DAY - 1, trafficClasses: ['human'], filters: {}, metrics: ['pageviews'] };
const QUERIES: [string, QuerySpec][] = [
  ['overview total', { ...base, metrics: ['pageviews', 'visitors', 'sessions', 'bounce_rate', 'avg_session_eng_time_ms'] }],
  ['daily series', { ...base, metrics: ['visitors', 'sessions'], interval: 'day' }],
  ['hourly series', { ...base, metrics: ['pageviews', 'visitors'], interval: 'hour' }],
  ['top pages', { ...base, metrics: ['pageviews', 'visitors', 'sessions', 'entries', 'exits'], dimension: 'page', limit: 10 }],
  ['by country', { ...base, metrics: ['sessions', 'pageviews'], dimension: 'country' }],
  ['channel filter', { ...base, metrics: ['visitors'], filters: { channel: 'Search' }, dimension: 'page', limit: 10 }],
];

async function bench(topology: Topology, rows: EventRow[]) {
  const ch = await openScratch(topology);
  try {
    let t = performance.now();
    const s = await ch.store.beginImport();
    for (let i = 0; i < rows.length; i += 50_000) await s.append(rows.slice(i, i + 50_000));
    const r = await s.commit();
    const importS = (performance.now() - t) / 1000;
    console.log(`${topology}: import ${r.imported} events in ${importS.toFixed(1)} s (${Math.round(r.imported / importS)} ev/s), ${r.days.length} days`);
    const day0 = rows.filter((x) => x.ts_ms < BASE + DAY).map((x) => ({ ...x, event_id: `${x.event_id}r` }));
    t = performance.now();
    await ch.store.importBatch(day0.slice(0, day0.length / 2));
    await ch.store.importBatch(day0.slice(day0.length / 2));
    console.log(`${topology}: re-import of day 1 in two halves (${day0.length} events, day rewritten twice) ${((performance.now() - t) / 1000).toFixed(1)} s`);
    for (const [name, spec] of QUERIES) {
      await ch.engine.run(spec, { timeoutMs: 30_000 });
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const q = performance.now();
        await ch.engine.run(spec, { timeoutMs: 30_000 });
        times.push(performance.now() - q);
      }
      times.sort((a, b) => a - b);
      console.log(`${topology}:   ${name.padEnd(16)} median ${times[2].toFixed(0)} ms`);
    }
  } finally {
    await ch.close();
  }
}

const n = Number(process.argv[2] ?? 200_000);
const rows = synthetic(n);
for (const t of ['single', 'cluster'] as Topology[]) {
  const skip = skipReason(t);
  if (skip) console.log(`${t}: skipped (${skip})`);
  else await bench(t, rows);
}
