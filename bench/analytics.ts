// Analytics endpoints over >= 1M events of one site spread over 90 days (DuckDB in a temp data dir):
// - latency p50/p99 of distinct requests that all miss the response cache (1 connection);
// - req/s of cache hits at 1 and 50 connections, next to a bare node:http server sending the same
//   bytes in the same run (what the pipeline costs on top of writing the body), and the server
//   process's CPU time per request of each (steadier than req/s on a shared 2-core machine, where
//   the load generator takes one core).
// Each miss case also gives its baseline from the same run: the same request once cached (the pipeline
// without the queries), one at a time. Any answer but a 200 stops the bench (bench/load.ts).
// Run alone: `npx tsx bench/analytics.ts [events]`; bench/run.ts calls benchAnalytics().
// BENCH_ANALYTICS_EVENTS (default 1000000) sets the size, BENCH_DURATION_S (default 10) each load run's length.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadAllOk } from './load.js';
import { openControlPlane } from '../src/control/open-control-plane.js';
import { writeSiteEvents } from './generate.js';
import { runImport } from '../src/ingest/pipeline/run-import.js';
import { openImportStores } from '../src/container.js';
import { createBenchSite } from './bench-site.js';
import { spawnAnalyticsServer, type AnalyticsServerChild } from './servers/spawn-analytics-server.js';

const DAY_MS = 86_400_000;
const DAYS = 90;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const MISSES = Number(process.env.BENCH_MISSES ?? 60);

export interface AnalyticsBenchResult {
  events: number;
  importSeconds: number;
  rows: Record<string, string | number>[];
}

/** A count from the environment or the command line: a positive integer, or the bench stops saying so. */
function positiveInt(what: string, raw: string): number {
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${what} must be a positive integer, not ${JSON.stringify(raw)}`);
  return n;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

export async function benchAnalytics(opts: { events?: number; log?: (s: string) => void } = {}): Promise<AnalyticsBenchResult> {
  const events = opts.events ?? positiveInt('BENCH_ANALYTICS_EVENTS', process.env.BENCH_ANALYTICS_EVENTS ?? '1000000');
  const log = opts.log ?? ((s: string) => process.stderr.write(s + '\n'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-analytics-'));
  let child: AnalyticsServerChild | undefined;
  try {
    const control = await openControlPlane({ dataDir: dir });
    const { workspaceId, siteId, tenants } = await createBenchSite(control.catalog);
    const ws = { id: workspaceId };
    const site = { id: siteId };
    await control.close();

    const file = path.join(dir, 'events.ndjson');
    const now = Date.now();
    let t = performance.now();
    // DAYS days ending today, the last event an hour ago
    const endMs = now - 3_600_000;
    writeSiteEvents(
      file,
      { siteId: site.id, tenants, days: DAYS, startDayMs: Math.floor(endMs / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS, endMs },
      events,
    );
    log(`generated ${events} events over ${DAYS} days in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    t = performance.now();
    const summary = await runImport({ open: () => openImportStores({ dataDir: dir }), source: file, format: { kind: 'events' } });
    const importSeconds = (performance.now() - t) / 1000;
    log(`imported ${summary.imported} (rejected ${summary.rejected}, skipped ${summary.skipped}) in ${importSeconds.toFixed(1)} s`);
    fs.rmSync(file);

    const today = new Date(now).toISOString().slice(0, 10);
    const day = (n: number) => new Date(Date.parse(`${today}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);
    // One repeated request per analytics endpoint: the cache-hit cases.
    const hitPaths = {
      timeseries: `/v1/metrics/timeseries?site_id=${site.id}&from=${day(89)}&to=${today}&metric=visitors`,
      breakdown: `/v1/metrics/breakdown?site_id=${site.id}&dimension=page&from=${day(29)}&to=${today}&metric=sessions`,
      overview: `/v1/reports/overview?site_id=${site.id}&from=${day(89)}&to=${today}`,
      acquisition: `/v1/reports/acquisition?site_id=${site.id}&from=${day(29)}&to=${today}`,
      actions: `/v1/reports/actions?site_id=${site.id}&from=${day(29)}&to=${today}`,
      content: `/v1/reports/content?site_id=${site.id}&from=${day(29)}&to=${today}`,
      'goal conversions': `/v1/goals/conversions?site_id=${site.id}&from=${day(29)}&to=${today}`,
    };

    child = await spawnAnalyticsServer(dir, ws.id, Object.values(hitPaths));
    const info = child.info;
    const serverCpu = child.cpuMicros;
    const headers = { authorization: `Bearer ${info.token}` };

    // Distinct misses: every request differs in range, metric or dimension, so none is served from the cache.
    const metrics = ['pageviews', 'visitors', 'sessions', 'events'];
    const dims = ['page', 'referrer', 'channel', 'country', 'device', 'browser', 'entry_page', 'region', 'tenant', 'source'];
    const missCases: Record<string, (i: number) => string> = {
      'timeseries day, 7-90 days': (i) =>
        `/v1/metrics/timeseries?site_id=${site.id}&metric=${metrics[i % 4]}&from=${day(6 + ((i * 7) % 84))}&to=${day(i % 5)}`,
      'timeseries hour, 1-7 days': (i) =>
        `/v1/metrics/timeseries?site_id=${site.id}&interval=hour&metric=${metrics[i % 4]}&from=${day(1 + (i % 7) + (i % 11))}&to=${day(i % 11)}`,
      'breakdown, 7-90 days': (i) =>
        `/v1/metrics/breakdown?site_id=${site.id}&dimension=${dims[i % dims.length]}&metric=${metrics[i % 4]}&from=${day(6 + ((i * 13) % 84))}&to=${day(i % 3)}`,
      'breakdown compare, 30 days': (i) =>
        `/v1/metrics/breakdown?site_id=${site.id}&dimension=${dims[i % dims.length]}&metric=${metrics[(i >> 1) % 4]}&from=${day(29 + (i % 30))}&to=${day(i % 30)}&compare=prev_period`,
      // reports: (from, to) pairs are distinct for i < 60 (12 starts x 5 ends)
      ...Object.fromEntries(
        (['reports/overview', 'reports/acquisition', 'reports/actions', 'reports/content', 'goals/conversions'] as const).map((ep) => [
          `${ep.replace('reports/', '').replace('goals/', 'goal ')}, 7-90 days`,
          (i: number) => `/v1/${ep}?site_id=${site.id}&from=${day(6 + ((i * 7) % 84))}&to=${day(i % 5)}`,
        ]),
      ),
    };
    const rows: Record<string, string | number>[] = [];
    for (const [label, url] of Object.entries(missCases)) {
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < MISSES; i++) {
        const t0 = performance.now();
        const res = await fetch(info.footfall + url(i), { headers });
        const body = await res.text();
        times.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`${url(i)} answered ${res.status}: ${body.slice(0, 300)}`);
        if (JSON.parse(body).meta.surface.dataFreshness.cached)
          throw new Error(`${url(i)} was a cache hit; the miss cases must be distinct`);
        bytes += body.length;
      }
      times.sort((a, b) => a - b);
      // the baseline: the last of these requests again, cached now, as many times one at a time
      const hits: number[] = [];
      for (let i = 0; i < MISSES; i++) {
        const t0 = performance.now();
        const res = await fetch(info.footfall + url(MISSES - 1), { headers });
        const body = await res.text();
        hits.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`${url(MISSES - 1)} answered ${res.status}: ${body.slice(0, 300)}`);
        if (!JSON.parse(body).meta.surface.dataFreshness.cached) throw new Error(`${url(MISSES - 1)} again was not a cache hit`);
      }
      hits.sort((a, b) => a - b);
      rows.push({
        bench: 'analytics',
        case: `miss: ${label}`,
        requests: MISSES,
        'p50 ms': +pct(times, 50).toFixed(1),
        'p99 ms': +pct(times, 99).toFixed(1),
        'same request cached, p50 ms': +pct(hits, 50).toFixed(1),
        'avg body bytes': Math.round(bytes / MISSES),
      });
      log(
        `${label}: p50 ${pct(times, 50).toFixed(1)} ms, p99 ${pct(times, 99).toFixed(1)} ms (cached: p50 ${pct(hits, 50).toFixed(1)} ms)`,
      );
    }

    for (const [name, p] of Object.entries(hitPaths)) {
      for (const connections of [1, 50]) {
        for (const [label, base, h] of [
          [`bare node:http, same bytes`, info.bare[p].address, {}],
          [`footfall ${name} (cache hit)`, info.footfall, headers],
        ] as const) {
          await loadAllOk(`${label} warm-up`, { url: base + p, connections, duration: 1, headers: h });
          const cpu0 = await serverCpu();
          const r = await loadAllOk(`${label} @${connections}`, { url: base + p, connections, duration: DURATION_S, headers: h });
          const cpuPerReq = ((await serverCpu()) - cpu0) / Math.max(1, r.requests.total);
          rows.push({
            bench: 'analytics',
            case: `hit ${name}: ${label}, ${connections} conn`,
            'req/s': Math.round(r.requests.average),
            'p50 ms': r.latency.p50,
            'p99 ms': r.latency.p99,
            'server CPU µs/req': +cpuPerReq.toFixed(1),
            'avg body bytes': info.bare[p].bytes,
          });
          log(`${name} ${label} @${connections}: ${Math.round(r.requests.average)} req/s, server CPU ${cpuPerReq.toFixed(1)} µs/req`);
        }
      }
    }
    return { events, importSeconds, rows };
  } finally {
    await child?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// bench/run.ts: one row per case.
export const name = 'analytics';
export async function run() {
  const r = await benchAnalytics();
  return r.rows.map((row) => ({ bench: 'analytics', case: String(row.case), ...row }));
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { printTable } = await import(pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'run.ts')).href);
  const r = await benchAnalytics({ events: process.argv[2] ? positiveInt('the number of events', process.argv[2]) : undefined });
  printTable(r.rows);
}
