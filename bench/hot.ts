// The hot path: a cached 90-day overview (a response-cache hit) at 50 connections, next to a bare
// node:http server sending the same bytes in the same run, both driven by wrk (bench/wrk.ts: the
// client's own CPU is printed, so a saturated client shows), on each stack in turn:
// - embedded: SQLite control plane, in-process rate limiter, DuckDB;
// - scale (when FOOTFALL_TEST_POSTGRES_URL, FOOTFALL_TEST_REDIS_URL and FOOTFALL_TEST_CLICKHOUSE_URL
//   are set, as scripts/services.sh prints them): PostgreSQL (a scratch database), Redis, ClickHouse
//   (a scratch database), dropped afterwards.
// A hit still does what the contract asks of every request: the token looked up, the rate limit
// counted, the units charged under the cap, the budget; it runs no analytics query. Printed per stack:
// req/s and server CPU µs per request of each, and footfall's req/s as a share of the bare server's
// (the aim on the embedded stack: 0.5x or better). The events only make the answer real (a hit reads
// none of them): BENCH_HOT_EVENTS (default 200000) over 90 days. BENCH_DURATION_S (default 10) sets
// each load run's length; each is preceded by a 1 s warm-up. BENCH_HOT_STACKS=embedded or =scale runs one.
// Then 300 hits one at a time, timed stage by stage (bench/stage-timing.ts): authenticate (the token, its
// workspace and the site in one statement), rate limit, meter (the units), version+facts, and the rest
// in the server (routing, validation, the cache, serialization, the write).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openControlPlane } from '../src/control/open-control-plane.js';
import { openImportStores } from '../src/container.js';
import { runImport } from '../src/ingest/pipeline/run-import.js';
import { scratchUrl } from '../test/engines/clickhouse-scratch.js';
import { missingScaleEnv, scratchDatabase } from '../test/http/helpers/stack.js';
import { createBenchSite } from './bench-site.js';
import { writeSiteEvents } from './generate.js';
import type { BenchRow } from './run.js';
import { spawnAnalyticsServer } from './servers/spawn-analytics-server.js';
import { wrkAllOk } from './wrk.js';

export const name = 'hot';
const DAY_MS = 86_400_000;
const DAYS = 90;
const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const EVENTS = Number(process.env.BENCH_HOT_EVENTS ?? 200_000);
const STAGE_REQUESTS = 300;

interface HotStack {
  name: string;
  stores: { controlUrl?: string; eventsUrl?: string; redisUrl?: string };
  drop(): Promise<void>;
}

async function stacks(log: (s: string) => void): Promise<HotStack[]> {
  const only = process.env.BENCH_HOT_STACKS;
  const out: HotStack[] = only === 'scale' ? [] : [{ name: 'embedded', stores: {}, drop: async () => {} }];
  if (only === 'embedded') return out;
  const missing = missingScaleEnv();
  if (missing.length) {
    log(`scale stack: skipped (${missing.join(', ')} not set; scripts/services.sh start prints them)`);
    return out;
  }
  const db = await scratchDatabase(process.env.FOOTFALL_TEST_POSTGRES_URL!);
  const ch = scratchUrl('single');
  out.push({
    name: 'scale (PostgreSQL, Redis, ClickHouse)',
    stores: { controlUrl: db.url, eventsUrl: ch.url, redisUrl: process.env.FOOTFALL_TEST_REDIS_URL },
    drop: async () => {
      await Promise.all([db.drop(), ch.drop()]);
    },
  });
  return out;
}

async function benchStack(stack: HotStack, log: (s: string) => void): Promise<BenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-hot-'));
  let child: Awaited<ReturnType<typeof spawnAnalyticsServer>> | undefined;
  try {
    const config = { dataDir: dir, ...stack.stores };
    const control = await openControlPlane(config);
    const { workspaceId, siteId, tenants } = await createBenchSite(control.catalog);
    await control.close();

    const file = path.join(dir, 'events.ndjson');
    // the 90 days before today, the last event an hour before midnight (whatever time the bench runs)
    const endMs = Math.floor(Date.now() / DAY_MS) * DAY_MS - 3_600_000;
    writeSiteEvents(
      file,
      { siteId, tenants, days: DAYS, startDayMs: Math.floor(endMs / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS, endMs },
      EVENTS,
    );
    const t = performance.now();
    const summary = await runImport({ open: () => openImportStores(config), source: file, format: { kind: 'events' } });
    log(`${stack.name}: imported ${summary.imported} events in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    fs.rmSync(file);

    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.parse(`${today}T00:00:00Z`) - (DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
    const url = `/v1/reports/overview?site_id=${siteId}&from=${from}&to=${today}`;
    child = await spawnAnalyticsServer(dir, workspaceId, [url], stack.stores);
    const { info } = child;

    const rows: BenchRow[] = [];
    const measured: Record<string, number> = {};
    // bare first, then footfall, then both again: drift on a shared machine hits both sides
    for (const round of [1, 2]) {
      for (const [side, base, headers] of [
        ['bare node:http, same bytes', info.bare[url].address, {}],
        ['footfall, cache hit', info.footfall, { authorization: `Bearer ${info.token}` }],
      ] as const) {
        const label = `${stack.name}, ${side}`;
        await wrkAllOk(label, { url: base + url, connections: CONNECTIONS, durationS: 1, headers });
        const cpu0 = await child.cpuMicros();
        const r = await wrkAllOk(label, { url: base + url, connections: CONNECTIONS, durationS: DURATION_S, headers });
        const cpu = ((await child.cpuMicros()) - cpu0) / Math.max(1, r.requests);
        const key = `${side} #${round}`;
        measured[key] = r.rps;
        rows.push({
          bench: 'hot',
          case: `${stack.name}: ${side} (run ${round})`,
          connections: CONNECTIONS,
          'req/s': Math.round(r.rps),
          'p50 ms': r.p50Ms,
          'p99 ms': r.p99Ms,
          'server CPU µs/req': +cpu.toFixed(1),
          // wrk's own CPU in cores: near 1 the client, not the server, set the pace
          'client cores': +r.clientCores.toFixed(2),
          'body bytes': info.bare[url].bytes,
        });
        log(
          `${label} (run ${round}): ${Math.round(r.rps)} req/s, server CPU ${cpu.toFixed(1)} µs/req, client ${r.clientCores.toFixed(2)} cores`,
        );
      }
    }
    // one request at a time, stage by stage (bench/stage-timing.ts)
    const stages = await child.stages(STAGE_REQUESTS);
    rows.push({ bench: 'hot', case: `${stack.name}: one cache hit, stage by stage (median ms of ${STAGE_REQUESTS})`, ...stages });
    log(`${stack.name}, stages (ms): ${JSON.stringify(stages)}`);
    const ratio = (round: number) => measured[`footfall, cache hit #${round}`] / measured[`bare node:http, same bytes #${round}`];
    rows.push({
      bench: 'hot',
      case: `${stack.name}: footfall / bare`,
      'x bare': +((ratio(1) + ratio(2)) / 2).toFixed(2),
      'run 1': +ratio(1).toFixed(2),
      'run 2': +ratio(2).toFixed(2),
    });
    return rows;
  } finally {
    await child?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(log = (s: string) => process.stderr.write(s + '\n')): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const stack of await stacks(log)) {
    try {
      rows.push(...(await benchStack(stack, log)));
    } finally {
      await stack.drop().catch(() => undefined);
    }
  }
  return rows;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rows = await run();
  const { printTable } = await import(pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'run.ts')).href);
  printTable(rows);
}
