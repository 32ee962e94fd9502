// The ClickHouse store and engine alone, next to DuckDB on the same events in the same run (the
// baseline of every figure): N synthetic events (BENCH_CLICKHOUSE_EVENTS, default 200,000; 3 sites,
// 7 days) imported into a scratch database, one day re-imported in two halves (the rewrite path),
// then report-shaped queries, each answer checked against DuckDB's (a store that answers less, or
// nothing, stops the bench). One server, then two shards, when the FOOTFALL_TEST_CLICKHOUSE_*
// servers are set (scripts/services.sh start prints them); without them only DuckDB's rows, and the
// log says why. `npm run bench -- clickhouse`, or `npx tsx bench/clickhouse.ts [N]`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { QuerySpec } from '../src/domain/query/query-spec.js';
import type { MetricRow } from '../src/domain/query/assemble.js';
import type { AnalyticsEngine } from '../src/ports/analytics-engine.js';
import type { EventRow, EventStore } from '../src/ports/event-store.js';
import { DuckDbAnalyticsEngine } from '../src/engines/duckdb/duckdb-analytics-engine.js';
import { openDuckDbEventStore } from '../src/engines/duckdb/duckdb-event-store.js';
import { clickHouseMissing, openScratch, type Topology } from '../test/engines/clickhouse-scratch.js';
import { makeRow } from '../test/contract/event-store.contract.js';
import type { BenchRow } from './run.js';

export const name = 'clickhouse';
const DAY = 86_400_000;
const BASE = Date.UTC(2025, 2, 1);
const QUERY_RUNS = 5;

/** A count from the environment or the command line: a positive integer, or the bench stops saying so. */
function positiveInt(what: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${what} must be a positive integer, not ${JSON.stringify(raw)}`);
  return n;
}

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

const base: QuerySpec = {
  siteId: 'site_0',
  tenantIds: null,
  startMs: BASE,
  endMs: BASE + 7 * DAY - 1,
  trafficClasses: ['human'],
  filters: {},
  metrics: ['pageviews'],
};
const QUERIES: [string, QuerySpec][] = [
  ['overview total', { ...base, metrics: ['pageviews', 'visitors', 'sessions', 'bounce_rate', 'avg_session_eng_time_ms'] }],
  ['daily series', { ...base, metrics: ['visitors', 'sessions'], interval: 'day' }],
  ['hourly series', { ...base, metrics: ['pageviews', 'visitors'], interval: 'hour' }],
  ['top pages', { ...base, metrics: ['pageviews', 'visitors', 'sessions', 'entries', 'exits'], dimension: 'page', limit: 10 }],
  ['by country', { ...base, metrics: ['sessions', 'pageviews'], dimension: 'country' }],
  ['channel filter', { ...base, metrics: ['visitors'], filters: { channel: 'Search' }, dimension: 'page', limit: 10 }],
];

interface Opened {
  store: EventStore;
  engine: AnalyticsEngine;
  close(): Promise<void>;
}

async function openDuckDb(): Promise<Opened> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-clickhouse-'));
  const store = await openDuckDbEventStore({ file: path.join(dir, 'events.duckdb'), tempDir: dir });
  const engine = new DuckDbAnalyticsEngine({ connect: () => store.instance.connect(), release: (c) => c.closeSync() });
  return {
    store,
    engine,
    close: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Rows in one order (engines may give ties in either), for comparing answers. */
const canonical = (rows: readonly MetricRow[]) => rows.map((r) => JSON.stringify(r)).sort();

interface Figures {
  importS: number;
  reimportS: number;
  queries: Map<string, { medianMs: number; answer: string[] }>;
}

async function measure(label: string, open: () => Promise<Opened>, rows: EventRow[], log: (s: string) => void): Promise<Figures> {
  const s = await open();
  try {
    let t = performance.now();
    const session = await s.store.beginImport();
    for (let i = 0; i < rows.length; i += 50_000) await session.append(rows.slice(i, i + 50_000));
    const r = await session.commit();
    const importS = (performance.now() - t) / 1000;
    if (r.imported !== rows.length) throw new Error(`${label}: imported ${r.imported} of ${rows.length} events`);
    log(
      `${label}: import ${r.imported} events in ${importS.toFixed(1)} s (${Math.round(r.imported / importS)} ev/s), ${r.days.length} days`,
    );
    const day0 = rows.filter((x) => x.ts_ms < BASE + DAY).map((x) => ({ ...x, event_id: `${x.event_id}r` }));
    t = performance.now();
    const halves = [await s.store.importBatch(day0.slice(0, day0.length / 2)), await s.store.importBatch(day0.slice(day0.length / 2))];
    const reimportS = (performance.now() - t) / 1000;
    if (halves[0].imported + halves[1].imported !== day0.length)
      throw new Error(`${label}: the re-import stored ${halves[0].imported + halves[1].imported} of ${day0.length} events`);
    log(`${label}: re-import of day 1 in two halves (${day0.length} events, day rewritten twice) ${reimportS.toFixed(1)} s`);
    const queries = new Map<string, { medianMs: number; answer: string[] }>();
    for (const [q, spec] of QUERIES) {
      const answer = canonical(await s.engine.run(spec, { timeoutMs: 30_000 }));
      if (answer.length === 0) throw new Error(`${label}: ${q} answered no rows`);
      const times: number[] = [];
      for (let i = 0; i < QUERY_RUNS; i++) {
        const started = performance.now();
        await s.engine.run(spec, { timeoutMs: 30_000 });
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      queries.set(q, { medianMs: times[Math.floor(QUERY_RUNS / 2)], answer });
      log(`${label}:   ${q.padEnd(16)} median ${times[Math.floor(QUERY_RUNS / 2)].toFixed(0)} ms`);
    }
    return { importS, reimportS, queries };
  } finally {
    await s.close();
  }
}

export async function run(
  n = positiveInt('BENCH_CLICKHOUSE_EVENTS', process.env.BENCH_CLICKHOUSE_EVENTS ?? '200000'),
  log = (s: string) => process.stderr.write(s + '\n'),
): Promise<BenchRow[]> {
  const rows = synthetic(n);
  const stacks: [string, () => Promise<Opened>][] = [['DuckDB', openDuckDb]];
  for (const t of ['single', 'cluster'] as Topology[]) {
    const missing = clickHouseMissing(t);
    if (missing) log(`ClickHouse ${t}: skipped (${missing})`);
    else stacks.push([t === 'single' ? 'ClickHouse' : 'ClickHouse x2', () => openScratch(t)]);
  }
  const figures = new Map<string, Figures>();
  for (const [label, open] of stacks) figures.set(label, await measure(label, open, rows, log));
  const duck = figures.get('DuckDB')!;
  const out: BenchRow[] = [];
  for (const [label, f] of figures) {
    out.push({
      bench: name,
      case: `import, ${label}`,
      events: n,
      seconds: +f.importS.toFixed(2),
      'ev/s': Math.round(n / f.importS),
      'x DuckDB time': +(f.importS / duck.importS).toFixed(2),
    });
    out.push({
      bench: name,
      case: `day 1 again in two halves, ${label}`,
      events: n,
      seconds: +f.reimportS.toFixed(2),
      'x DuckDB time': +(f.reimportS / duck.reimportS).toFixed(2),
    });
    for (const [q, { medianMs, answer }] of f.queries) {
      const same = JSON.stringify(answer) === JSON.stringify(duck.queries.get(q)!.answer);
      if (!same) throw new Error(`${label}: ${q} answers otherwise than DuckDB on the same events`);
      out.push({
        bench: name,
        case: `${q}, ${label}`,
        events: n,
        'median ms': +medianMs.toFixed(1),
        'x DuckDB time': +(medianMs / duck.queries.get(q)!.medianMs).toFixed(2),
        'same answer as DuckDB': 'yes',
      });
    }
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { printTable } = await import(pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'run.ts')).href);
  printTable(await run(process.argv[2] ? positiveInt('the number of events', process.argv[2]) : undefined));
}
