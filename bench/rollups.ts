// Cost follows days, not events: a 90-day overview (every QuerySpec and report query the overview
// runs, built in-process by the real buildOverview) at 1M and 5M events of one site over 90 days,
// read from the raw tables, from the daily rollups with page titles from the raw events, and as
// served (daily rollups and the page-title rollup); p50/p99 of each, in one run. Each size is imported through
// the real importer (runImport), which builds the rollups in its commit.
// Run alone: `npx tsx bench/rollups.ts [events...]` (default 1000000 5000000); bench/run.ts calls run().
// BENCH_OVERVIEWS (default 30) sets the overviews timed per size and path.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openControlStores, openImportStores } from '../src/container.js';
import { dayWindow, formatDay } from '../src/domain/report-range.js';
import { TRAFFIC_FILTERS } from '../src/domain/events.js';
import { DuckDbAnalyticsEngine, type DuckConnection } from '../src/engines/duckdb/duckdb-analytics-engine.js';
import { openDuckDbEventStore } from '../src/engines/duckdb/duckdb-event-store.js';
import { writeSiteEvents } from './generate.js';
import { runImport } from '../src/ingest/pipeline/run-import.js';
import { buildOverview } from '../src/services/reports/overview-report.js';
import { readsOf, ReportKit } from '../src/services/reports/report-kit.js';
import type { BenchRow } from './run.js';

export const name = 'rollups';
const DAY_MS = 86_400_000;
const DAYS = 90;
const OVERVIEWS = Number(process.env.BENCH_OVERVIEWS ?? 30);

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** One size: import, then time the overview from raw and from rollups, alternating so drift hits both. */
async function benchSize(events: number, log: (s: string) => void): Promise<BenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-rollups-'));
  try {
    const control = await openControlStores({ dataDir: dir });
    const ws = await control.catalog.createWorkspace({ name: 'bench', plan: 'pro' });
    const site = await control.catalog.createSite({
      workspaceId: ws.id,
      name: 'bench',
      hostnames: ['bench.example'],
      collectionProfile: 'extended',
    });
    const tenants = [];
    for (const slug of ['north', 'south', 'east'])
      tenants.push((await control.catalog.createTenant({ siteId: site.id, slug, name: slug })).id);
    await control.close();

    const nowMs = Date.now();
    const file = path.join(dir, 'events.ndjson');
    // DAYS days ending today, the last event an hour ago
    const endMs = nowMs - 3_600_000;
    writeSiteEvents(
      file,
      { siteId: site.id, tenants, days: DAYS, startDayMs: Math.floor(endMs / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS, endMs },
      events,
    );
    const t = performance.now();
    const summary = await runImport({ open: () => openImportStores({ dataDir: dir }), source: file, format: { kind: 'events' } });
    const importSeconds = (performance.now() - t) / 1000;
    fs.rmSync(file);
    log(`${events} events: imported ${summary.imported} in ${importSeconds.toFixed(1)} s (rollups built in the commit)`);

    const store = await openDuckDbEventStore({ file: path.join(dir, 'events.duckdb') });
    try {
      const conn = {
        connect: () => store.instance.connect() as Promise<DuckConnection>,
        release: (c: DuckConnection) => (c as unknown as { closeSync(): void }).closeSync(),
      };
      const rowsOf = async (sql: string) => {
        const c = await store.instance.connect();
        try {
          return Number((await c.runAndReadAll(sql)).getRowsJS()[0]?.[0] ?? 0);
        } finally {
          c.closeSync();
        }
      };
      const rollupRows = await rowsOf('SELECT count(*) FROM daily_rollups');
      const sessions = await rowsOf('SELECT count(*) FROM sessions');
      const engines = {
        raw: new DuckDbAnalyticsEngine<DuckConnection>({ ...conn, rollups: false }),
        'rollup, raw titles': new DuckDbAnalyticsEngine<DuckConnection>({ ...conn, titleRollup: false }),
        served: new DuckDbAnalyticsEngine<DuckConnection>(conn),
      };
      const scope = { siteId: site.id, tenantIds: null, trafficClasses: TRAFFIC_FILTERS.humans };
      const today = formatDay(nowMs);
      type Path = 'raw' | 'rollup, raw titles' | 'served';
      const PATHS: Path[] = ['raw', 'rollup, raw titles', 'served'];
      const overview = async (p: Path, i: number) => {
        // a different 90-day window each time (ending today or up to 2 days before): always a miss
        const to = formatDay(Date.parse(`${today}T00:00:00Z`) - (i % 3) * DAY_MS);
        const days = dayWindow(formatDay(Date.parse(`${to}T00:00:00Z`) - (DAYS - 1) * DAY_MS), to);
        const window = { startMs: days.startMs, endMs: days.endMs };
        const kit = new ReportKit(readsOf(engines[p], { timeoutMs: 120_000 }), scope);
        const t0 = performance.now();
        const body = await buildOverview(
          kit,
          { days, count: window, sections: { overview_regions: window, overview_cities: window } },
          { limit: 10, minAllowedFrom: null, lastEventAt: null },
        );
        const ms = performance.now() - t0;
        return { ms, body };
      };
      // same answers both ways, checked once per size
      const bodies: string[] = [];
      for (const p of PATHS) bodies.push(JSON.stringify((await overview(p, 0)).body));
      if (bodies.some((b) => b !== bodies[0])) throw new Error('the overviews of the three paths differ');
      const times: Record<Path, number[]> = { raw: [], 'rollup, raw titles': [], served: [] };
      for (let i = 0; i < OVERVIEWS; i++) {
        for (const p of PATHS) times[p].push((await overview(p, i)).ms);
      }
      return PATHS.map((p) => {
        const sorted = times[p].sort((x, y) => x - y);
        log(`${events} events, ${p}: p50 ${pct(sorted, 50).toFixed(1)} ms, p99 ${pct(sorted, 99).toFixed(1)} ms`);
        return {
          bench: 'rollups',
          case: `90-day overview miss, ${p}`,
          events,
          sessions,
          'rollup rows': rollupRows,
          'import s': +importSeconds.toFixed(1),
          overviews: OVERVIEWS,
          'p50 ms': +pct(sorted, 50).toFixed(1),
          'p99 ms': +pct(sorted, 99).toFixed(1),
        };
      });
    } finally {
      await store.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(
  sizes: number[] = [1_000_000, 5_000_000],
  log = (s: string) => process.stderr.write(s + '\n'),
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const n of sizes) rows.push(...(await benchSize(n, log)));
  for (const p of ['raw', 'rollup, raw titles', 'served']) {
    const mine = rows.filter((r) => r.case.endsWith(`, ${p}`));
    if (mine.length >= 2) {
      const growth = (mine[mine.length - 1]['p50 ms'] as number) / (mine[0]['p50 ms'] as number);
      log(`${p}: p50 grows ${growth.toFixed(2)}x from ${mine[0].events} to ${mine[mine.length - 1].events} events`);
      for (const r of mine) r['p50 growth'] = +growth.toFixed(2);
    }
  }
  return rows;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  const rows = await run(sizes.length ? sizes : undefined);
  console.table(rows);
}
