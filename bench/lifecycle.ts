// The data lifecycle at size: a store holding N events of one site over 90 days (bench/generate.ts) and
// N/10 of a second site; then, each as a process of its own (wall time, the operation's own time and
// peak RSS), purging the big site's first 30 days (a month of its events) and deleting the small site,
// each checked to have left nothing it should remove; then the small site imported again (does the
// store reuse the space it freed?). DuckDB, then one ClickHouse server and two shards when the
// FOOTFALL_TEST_CLICKHOUSE_* servers are set (scripts/services.sh). The store's size on disk is given
// before and after each step: the DuckDB file (with its write-ahead log) and ClickHouse's active parts.
// Before the purge, usage reads: the p50 of the event allowance's read (events per workspace and month from the
// counts kept at commit, plus the month's units: what `footfall usage` and the management API's usage do) next
// to the ledger read that /v1/usage/current makes, both in process over the same stores.
// N: BENCH_LIFECYCLE_EVENTS (default 10,000,000). Run: `npm run bench -- lifecycle`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openAnalyticsBackend, openControlStores, openImportStores } from '../src/container.js';
import { runImport } from '../src/ingest/pipeline/run-import.js';
import { ClickHouseNode } from '../src/engines/clickhouse/node.js';
import { parseClickHouseUrl } from '../src/engines/clickhouse/url.js';
import { EVENTS_DUCKDB_FILE } from '../src/engines/duckdb/duckdb-event-store.js';
import type { RemovedData } from '../src/ports/event-store.js';
import { writeSiteEvents } from './generate.js';
import { systemClock } from '../src/domain/clock.js';
import { apiPolicyFor } from '../src/domain/plans.js';
import { eventUsage } from '../src/services/lifecycle/event-usage.js';
import { currentUsage } from '../src/services/usage.js';
import { measure } from './measure.js';
import type { BenchRow } from './run.js';
import { storeStacks, type StoreStack } from './store-stacks.js';

export const name = 'lifecycle';
const DAY_MS = 86_400_000;
const DAYS = 90;
const PURGED_DAYS = 30;
const SELF = fileURLToPath(import.meta.url);
const log = (s: string) => process.stderr.write(s + '\n');

/** One purge or deletion, run by this file as a child process (see the end of the file). */
interface Job {
  dataDir: string;
  eventsUrl?: string;
  op: 'purge' | 'delete';
  site: string;
  beforeDay?: string;
}

/** Bytes the store keeps on disk: the DuckDB file and its log, or the active parts on every ClickHouse server. */
async function storeBytes(s: StoreStack, dataDir: string): Promise<number> {
  if (!s.eventsUrl) {
    return [EVENTS_DUCKDB_FILE, `${EVENTS_DUCKDB_FILE}.wal`].reduce(
      (n, f) => n + (fs.existsSync(path.join(dataDir, f)) ? fs.statSync(path.join(dataDir, f)).size : 0),
      0,
    );
  }
  const target = parseClickHouseUrl(s.eventsUrl);
  let total = 0;
  for (const url of target.nodes) {
    const n = new ClickHouseNode({ url, database: 'default', username: target.username, password: target.password });
    try {
      const [r] = await n.query<{ b: number }>(
        `SELECT sum(bytes_on_disk) AS b FROM system.parts WHERE database = '${target.database}' AND active`,
      );
      total += Number(r?.b ?? 0);
    } finally {
      await n.close();
    }
  }
  return total;
}

const mb = (bytes: number) => Math.round(bytes / 1e6);
const READS = 200;

/** p50 and p95 (ms) of the event allowance's read and of /v1/usage/current's ledger read, READS each. */
async function usageReads(config: { dataDir: string; eventsUrl?: string }, workspaceId: string, stack: string): Promise<BenchRow[]> {
  const control = await openControlStores(config);
  const backend = await openAnalyticsBackend(config, { commitLock: control.commitLock });
  try {
    const ws = (await control.catalog.getWorkspace(workspaceId))!;
    const reads: [string, () => Promise<unknown>][] = [
      [
        'events used (footfall usage, management API usage)',
        () => eventUsage({ catalog: control.catalog, ledger: control.ledger, store: backend.store, clock: systemClock }, workspaceId),
      ],
      ['units used (/v1/usage/current)', () => currentUsage(control.ledger, workspaceId, apiPolicyFor(ws.plan, ws.apiPolicy), new Date())],
    ];
    const out: BenchRow[] = [];
    for (const [label, read] of reads) {
      for (let i = 0; i < 20; i++) await read(); // warm-up
      const ms: number[] = [];
      for (let i = 0; i < READS; i++) {
        const t = performance.now();
        await read();
        ms.push(performance.now() - t);
      }
      ms.sort((a, b) => a - b);
      const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))].toFixed(2);
      log(`${stack}: ${label}: p50 ${at(0.5)} ms`);
      out.push({ bench: name, case: `usage read: ${label}, ${stack}`, reads: READS, p50_ms: at(0.5), p95_ms: at(0.95) });
    }
    return out;
  } finally {
    await backend.close();
    await control.close();
  }
}

export async function run(): Promise<BenchRow[]> {
  const events = Number(process.env.BENCH_LIFECYCLE_EVENTS ?? 10_000_000);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-lifecycle-'));
  const stacks = storeStacks(log);
  const rows: BenchRow[] = [];
  try {
    const template = path.join(root, 'template');
    const control = await openControlStores({ dataDir: template });
    const ws = await control.catalog.createWorkspace({ name: 'bench', plan: 'pro' });
    const big = await control.catalog.createSite({
      workspaceId: ws.id,
      name: 'big',
      hostnames: ['big.example'],
      collectionProfile: 'extended',
    });
    const small = await control.catalog.createSite({
      workspaceId: ws.id,
      name: 'small',
      hostnames: ['small.example'],
      collectionProfile: 'extended',
    });
    await control.catalog.getOrCreateSecret('visitor-salt');
    await control.close();

    const endMs = Math.floor(Date.now() / DAY_MS) * DAY_MS - 3_600_000;
    const startDayMs = Math.floor(endMs / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS;
    const beforeDay = new Date(startDayMs + PURGED_DAYS * DAY_MS).toISOString().slice(0, 10);
    const files = { big: path.join(root, 'big.ndjson'), small: path.join(root, 'small.ndjson') };
    writeSiteEvents(files.big, { siteId: big.id, tenants: [], days: DAYS, startDayMs, endMs }, events);
    writeSiteEvents(files.small, { siteId: small.id, tenants: [], days: DAYS, startDayMs, endMs, seed: 12 }, Math.round(events / 10));

    for (const s of stacks) {
      const dataDir = path.join(root, s.name.replace(/\W/g, ''));
      fs.cpSync(template, dataDir, { recursive: true });
      const config = { dataDir, eventsUrl: s.eventsUrl };
      const importFile = (file: string) => runImport({ open: () => openImportStores(config), source: file, format: { kind: 'events' } });
      const t = performance.now();
      for (const file of [files.big, files.small]) await importFile(file);
      log(`${s.name}: imported ${events} + ${Math.round(events / 10)} events in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      rows.push(...(await usageReads(config, ws.id, s.name)));
      const sizes = [await storeBytes(s, dataDir)];
      for (const job of [
        { op: 'purge', site: big.id, beforeDay },
        { op: 'delete', site: small.id },
      ] as const) {
        const m = await measure(process.execPath, [
          '--import',
          'tsx',
          SELF,
          JSON.stringify({ dataDir, eventsUrl: s.eventsUrl, ...job } satisfies Job),
        ]);
        if (m.code !== 0) throw new Error(`${s.name} ${job.op} failed: ${m.stderr}`);
        const out = JSON.parse(m.stdout) as { seconds: number; removed: RemovedData; left: number };
        if (out.left !== 0) throw new Error(`${s.name} ${job.op} left ${out.left} events it should have removed`);
        sizes.push(await storeBytes(s, dataDir));
        log(`${s.name}: ${job.op} removed ${out.removed.events} events of ${out.removed.days} days in ${out.seconds.toFixed(2)} s`);
        rows.push({
          bench: name,
          case: `${job.op === 'purge' ? `purge ${PURGED_DAYS} of ${DAYS} days` : 'delete a site'}, ${s.name}`,
          events_removed: out.removed.events,
          op_s: out.seconds.toFixed(2),
          process_s: m.seconds.toFixed(1),
          peak_rss_mb: Math.round(m.peakRssMb),
          store_mb_before: mb(sizes[sizes.length - 2]),
          store_mb_after: mb(sizes[sizes.length - 1]),
        });
      }
      const again = await importFile(files.small);
      rows.push({
        bench: name,
        case: `the deleted site imported again, ${s.name}`,
        events_imported: again.imported,
        store_mb_before: mb(sizes[sizes.length - 1]),
        store_mb_after: mb(await storeBytes(s, dataDir)),
      });
    }
  } finally {
    for (const s of stacks) await s.scratch?.drop().catch(() => undefined);
    fs.rmSync(root, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] === SELF && process.argv[2]) {
  const job = JSON.parse(process.argv[2]) as Job;
  const opened = await openAnalyticsBackend({ dataDir: job.dataDir, eventsUrl: job.eventsUrl });
  const t = performance.now();
  const removed = job.op === 'purge' ? await opened.store.purgeDays(job.site, job.beforeDay!) : await opened.store.deleteSiteData(job.site);
  const seconds = (performance.now() - t) / 1000;
  // what it should have removed and is still there
  const left =
    job.op === 'purge'
      ? (await opened.store.previewPurge(job.site, job.beforeDay!)).events
      : (await opened.store.siteCoverage(job.site)).events;
  await opened.close();
  process.stdout.write(JSON.stringify({ seconds, removed, left }) + '\n');
}
