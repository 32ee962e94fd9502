// The scale stack next to the embedded one, in one run on the same events: DuckDB, one ClickHouse
// server and two ClickHouse shards (the FOOTFALL_TEST_CLICKHOUSE_* servers of scripts/services.sh).
// Per size: N events of one site over 90 days (bench/generate.ts) go in through `footfall import`'s
// own pipeline (runImport), then every case runs REQUESTS distinct requests (each a response-cache
// miss: the cache is off) through the real app on each stack in turn, checking that the three
// answer the same payload. Printed per case and stack: p50/p99 ms, the ratio to DuckDB's p50, and
// the engine statements per request, and where a request's time goes (stage-timing.ts: medians of
// authenticate, site access, rate limit, meter, data version + site facts, report reads, other); per stack: import events/s end to end and the store's share
// (the time the pipeline waited on the store's append and commit); across sizes: the 90-day
// overview's p50 growth.
// The stacks: DuckDB, ClickHouse on one server, then on two shards, all on the same SQLite control
// plane and the same rate limiter (the catalog, the ledger and the limiter are not what differs): the
// Redis one when FOOTFALL_TEST_REDIS_URL is set, else the in-process one; each case row names it.
// Run: eval "$(bash scripts/services.sh start)"; npm run bench -- scale   (sizes: BENCH_SCALE_EVENTS,
// default 1000000,10000000), or `npx tsx bench/scale.ts 200000 1000000`. BENCH_SCALE_REQUESTS
// (default 20) sets the requests per case, BENCH_SCALE_CASES (e.g. overview,breakdown) which cases run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { buildContainer, openControlStores, openImportStores, type Container } from '../src/container.js';
import { generateSecret, hashSecret } from '../src/domain/tokens.js';
import type { ImportSink } from '../src/ingest/pipeline/import-lines.js';
import { runImport } from '../src/ingest/pipeline/run-import.js';
import { storeStacks, type StoreStack } from './store-stacks.js';
import { StageClock, stageLine, STAGES, type Stage } from './stage-timing.js';
import { createBenchSite } from './bench-site.js';
import { writeSiteEvents } from './generate.js';
import type { BenchRow } from './run.js';

export const name = 'scale';
const DAY_MS = 86_400_000;
const DAYS = 90;
const REQUESTS = Number(process.env.BENCH_SCALE_REQUESTS ?? 20);
const LIMITER_REDIS_URL = process.env.FOOTFALL_TEST_REDIS_URL || undefined;
const LIMITER = LIMITER_REDIS_URL ? 'Redis' : 'in-process';

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

interface Stack extends StoreStack {
  container?: Container;
  /** the engine itself (the container's is wrapped in timing proxies) */
  engine?: unknown;
  clock?: StageClock;
  app?: FastifyInstance;
  importS?: number;
  storeS?: number;
  imported?: number;
}

/** Statements the stack's engine has sent so far (both engines count them). */
const statements = (s: Stack) => (s.engine as unknown as { statements: number }).statements;

/** Times what the pipeline waits on the store: append, appendEncoded and commit. */
function timedSink(sink: ImportSink, spent: { ms: number }): ImportSink {
  const time = async <T>(p: Promise<T>) => {
    const t = performance.now();
    try {
      return await p;
    } finally {
      spent.ms += performance.now() - t;
    }
  };
  return {
    append: (rows) => time(sink.append(rows)),
    ...(sink.appendEncoded ? { appendEncoded: (ndjson: string, n: number) => time(sink.appendEncoded!(ndjson, n)) } : {}),
    commit: () => time(sink.commit()),
    abort: () => sink.abort(),
  };
}

async function benchSize(events: number, log: (s: string) => void): Promise<BenchRow[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-scale-'));
  const dataDir = path.join(root, 'data');
  const stacks: Stack[] = storeStacks(log);
  try {
    const control = await openControlStores({ dataDir });
    const { workspaceId, siteId, tenants } = await createBenchSite(control.catalog);
    const site = { id: siteId };
    const secret = generateSecret(randomBytes);
    await control.catalog.createToken({ workspaceId, scopes: ['metrics:read'], secretHash: hashSecret(secret) });

    // the 90 days before today, the last event an hour before midnight: every day of the window is
    // whole whenever the bench runs (an hour after midnight, today would be nearly empty)
    const endMs = Math.floor(Date.now() / DAY_MS) * DAY_MS - 3_600_000;
    const nowMs = endMs;
    const file = path.join(root, 'events.ndjson');
    let t = performance.now();
    writeSiteEvents(
      file,
      { siteId: site.id, tenants, days: DAYS, startDayMs: Math.floor(endMs / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS, endMs },
      events,
    );
    log(`${events} events: generated in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    for (const s of stacks) {
      const config = { dataDir, eventsUrl: s.eventsUrl };
      const spent = { ms: 0 };
      t = performance.now();
      const summary = await runImport({
        open: async () => {
          const stores = await openImportStores(config);
          return { ...stores, target: { ...stores.target, begin: async () => timedSink(await stores.target.begin(), spent) } };
        },
        source: file,
        format: { kind: 'events' },
      });
      s.importS = (performance.now() - t) / 1000;
      s.storeS = spent.ms / 1000;
      s.imported = summary.imported;
      log(
        `${events} events, ${s.name}: imported ${summary.imported} in ${s.importS.toFixed(1)} s (${Math.round(summary.imported / s.importS)} ev/s; store ${s.storeS.toFixed(1)} s)`,
      );
      // one limiter for every stack, so that the engines are what differs: Redis when the env names one
      // (as a scale deployment does), else the in-process one
      const redisUrl = LIMITER_REDIS_URL;
      s.container = await buildContainer(loadConfig({ dataDir, logLevel: 'silent', eventsUrl: s.eventsUrl, redisUrl }, {}), { control });
      s.container.analytics!.cache = null; // every request runs its queries: the engine's figures, not the cache's
      s.engine = s.container.analytics!.engine;
      s.clock = new StageClock();
      s.clock.instrument(s.container);
      s.app = await buildApp(s.container, { logger: false });
    }
    fs.rmSync(file);
    if (new Set(stacks.map((s) => s.imported)).size !== 1)
      throw new Error(`stacks imported different counts: ${stacks.map((s) => s.imported).join(', ')}`);

    const today = new Date(nowMs).toISOString().slice(0, 10);
    const day = (n: number) => new Date(Date.parse(`${today}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);
    // 90-day windows (from day 89..85 to day 0..4): distinct per request, as a dashboard's misses are
    const range = (i: number) => `from=${day(89 - (i % 5) - (Math.floor(i / 5) % 4))}&to=${day(i % 5)}`;
    const q = `site_id=${site.id}`;
    const cases: Record<string, (i: number) => string> = {
      overview: (i) => `/v1/reports/overview?${q}&${range(i)}`,
      acquisition: (i) => `/v1/reports/acquisition?${q}&${range(i)}`,
      actions: (i) => `/v1/reports/actions?${q}&${range(i)}`,
      content: (i) => `/v1/reports/content?${q}&${range(i)}&include=full`,
      timeseries: (i) => `/v1/metrics/timeseries?${q}&${range(i)}&metric=${['visitors', 'pageviews', 'sessions', 'events'][i % 4]}`,
      breakdown: (i) =>
        `/v1/metrics/breakdown?${q}&${range(i)}&dimension=${['page', 'referrer', 'country', 'browser', 'entry_page'][i % 5]}&metric=${['visitors', 'sessions', 'pageviews'][i % 3]}`,
    };
    const rows: BenchRow[] = [];
    const only = process.env.BENCH_SCALE_CASES?.split(',').filter(Boolean);
    for (const [label, url] of Object.entries(cases).filter(([label]) => !only || only.includes(label))) {
      const times = new Map(stacks.map((s) => [s.name, [] as number[]]));
      const sent = new Map(stacks.map((s) => [s.name, 0]));
      const staged = new Map(stacks.map((s) => [s.name, [] as { total: number; stages: Record<Stage, number> }[]]));
      let differ = 0;
      for (let i = 0; i < REQUESTS; i++) {
        let first: string | undefined;
        // one stack after the other on the same request, so drift on a shared machine hits all
        for (const s of stacks) {
          const before = statements(s);
          s.clock!.take();
          const t0 = performance.now();
          const res = await s.app!.inject({ method: 'GET', url: url(i), headers: { authorization: `Bearer ${secret}` } });
          const total = performance.now() - t0;
          times.get(s.name)!.push(total);
          staged.get(s.name)!.push({ total, stages: s.clock!.take() });
          sent.set(s.name, sent.get(s.name)! + statements(s) - before);
          if (res.statusCode !== 200) throw new Error(`${s.name} ${url(i)}: ${res.statusCode} ${res.body.slice(0, 300)}`);
          const { meta: _meta, ...data } = res.json() as Record<string, unknown>;
          const body = JSON.stringify(data);
          if (first === undefined) first = body;
          else if (body !== first) differ++;
        }
      }
      const duckP50 = pct(
        [...times.get('DuckDB')!].sort((a, b) => a - b),
        50,
      );
      for (const s of stacks) {
        const sorted = times.get(s.name)!.sort((a, b) => a - b);
        const row: BenchRow = {
          bench: 'scale',
          case: `${label}, ${s.name}`,
          events,
          requests: REQUESTS,
          'p50 ms': +pct(sorted, 50).toFixed(1),
          'p99 ms': +pct(sorted, 99).toFixed(1),
          'x DuckDB p50': +(pct(sorted, 50) / duckP50).toFixed(2),
          'queries/req': +(sent.get(s.name)! / REQUESTS).toFixed(1),
          'same payload': differ === 0 ? 'yes' : `NO (${differ} differ)`,
          limiter: LIMITER,
        };
        const line = stageLine(staged.get(s.name)!);
        // one column, so the table stays readable: ms per stage, medians over the case's requests
        row['stages ms (median): auth/site/limit/meter/version+facts/reads/other'] = [...STAGES, 'other'].map((k) => line[k]).join(' / ');
        rows.push(row);
        log(
          `${events} events, ${label}, ${s.name}: p50 ${row['p50 ms']} ms, p99 ${row['p99 ms']} ms (${row['x DuckDB p50']}x DuckDB), ${row['queries/req']} queries/request; stages ${STAGES.map((k) => `${k} ${line[k]}`).join(', ')}, other ${line.other} ms`,
        );
      }
      if (differ) log(`${label}: ${differ} answers differ between stacks`);
    }
    for (const s of stacks) {
      rows.push({
        bench: 'scale',
        case: `import, ${s.name}`,
        events,
        'import ev/s': Math.round(s.imported! / s.importS!),
        'store ev/s': Math.round(s.imported! / s.storeS!),
        'import s': +s.importS!.toFixed(1),
      });
    }
    await control.close();
    return rows;
  } finally {
    for (const s of stacks) {
      await s.app?.close().catch(() => undefined);
      await s.container?.close().catch(() => undefined);
      await s.scratch?.drop().catch(() => undefined);
    }
    fs.rmSync(root, { recursive: true, force: true });
  }
}

// DuckDB's default 1GB spills a large import to temp files; give it room unless told otherwise
process.env.FOOTFALL_DUCKDB_MEMORY_LIMIT ??= '4GB';

const envSizes = () =>
  (process.env.BENCH_SCALE_EVENTS ?? '1000000,10000000')
    .split(',')
    .map(Number)
    .filter((n) => n > 0);

export async function run(sizes: number[] = envSizes(), log = (s: string) => process.stderr.write(s + '\n')): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const n of sizes) rows.push(...(await benchSize(n, log)));
  // the 90-day overview's p50 from the smallest to the largest size, per stack
  for (const stack of new Set(rows.filter((r) => r.case.startsWith('overview, ')).map((r) => r.case))) {
    const mine = rows.filter((r) => r.case === stack);
    if (mine.length < 2) continue;
    const growth = (mine[mine.length - 1]['p50 ms'] as number) / (mine[0]['p50 ms'] as number);
    log(`${stack}: p50 grows ${growth.toFixed(2)}x from ${mine[0].events} to ${mine[mine.length - 1].events} events`);
    for (const r of mine) r['p50 growth'] = +growth.toFixed(2);
  }
  return rows;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  const rows = await run(sizes.length ? sizes : undefined);
  const { printTable } = await import(pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'run.ts')).href);
  printTable(rows);
}
