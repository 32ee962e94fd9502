// `footfall backup` and `footfall restore` at size: a data dir holding N events of one site over 90 days
// (bench/generate.ts; BENCH_BACKUP_EVENTS, default 1,000,000) served by a real `footfall serve` process.
// First a backup while the server idles, then one while it serves a steady load, then a restore of that
// backup into a new dir (the server stopped): their seconds and sizes. The load is closed-loop plain HTTP
// clients: one asking a cached 90-day overview (cache hits), one asking a 90-day timeseries whose filter is
// new each time (cache misses, read from the store), and COLLECTORS (default 4) posting tracker events;
// every answer must be a 200 or a 202. Their p50 and p99 are given for the requests that started during
// the backup, beside those of the BENCH_BACKUP_BASELINE_S seconds (default 10) just before it, in the
// same run: what a backup costs the requests it runs beside (it holds the commit lock, so the loader
// waits; collection only appends to the spool). `npm run bench -- backup` (prebench builds dist/).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openControlStores, openImportStores } from '../src/container.js';
import { generateSecret, hashSecret } from '../src/domain/tokens.js';
import { runImport } from '../src/ingest/pipeline/run-import.js';
// Imported, it refuses a dist/ older than src/ (through footfall-bin), so no figure is of stale code.
import { FOOTFALL_BIN } from '../test/helpers/footfall-bin.js';
import { writeSiteEvents } from './generate.js';
import type { BenchRow } from './run.js';

export const name = 'backup';
const EVENTS = Number(process.env.BENCH_BACKUP_EVENTS ?? 1_000_000);
const BASELINE_S = Number(process.env.BENCH_BACKUP_BASELINE_S ?? 10);
const COLLECTORS = Number(process.env.BENCH_BACKUP_COLLECTORS ?? 4);
const DAY_MS = 86_400_000;
const DAYS = 90;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const log = (s: string) => process.stderr.write(s + '\n');
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FOOTFALL_')));

/** One request of a load: when it started and how long it took (ms). */
interface Sample {
  at: number;
  ms: number;
}

/** A closed-loop client: `request(n)` again and again until stopped; every answer must be `ok`. */
function client(request: (n: number) => Promise<Response>, ok: number): { samples: Sample[]; stop(): Promise<void> } {
  const samples: Sample[] = [];
  let stopped = false;
  const loop = (async () => {
    for (let n = 0; !stopped; n++) {
      const at = performance.now();
      const res = await request(n);
      await res.arrayBuffer();
      if (res.status !== ok) throw new Error(`${res.url}: ${res.status} (a refusal is not a figure)`);
      samples.push({ at, ms: performance.now() - at });
    }
  })();
  // a failure ends the loop; stop() throws it
  let failure: unknown = null;
  const ended = loop.catch((err) => {
    failure = err;
  });
  return {
    samples,
    stop: async () => {
      stopped = true;
      await ended;
      if (failure) throw failure;
    },
  };
}

function percentiles(samples: Sample[], from: number, to: number): { requests: number; p50_ms: string; p99_ms: string } {
  const ms = samples
    .filter((s) => s.at >= from && s.at < to)
    .map((s) => s.ms)
    .sort((a, b) => a - b);
  const at = (q: number) => (ms.length ? ms[Math.min(ms.length - 1, Math.ceil(q * ms.length) - 1)].toFixed(1) : '-');
  return { requests: ms.length, p50_ms: at(0.5), p99_ms: at(0.99) };
}

/** What the bench reads of `footfall backup --json` and `footfall restore --json`. */
interface Copied {
  bytes: number;
  files: number;
}
type BackupJson = { backup: Copied & { snapshot_seconds: number; counts: { spool_records: Record<string, number> } } };
type RestoreJson = { restored: Copied };

/** `footfall <args> --json` as a process; resolves with its JSON and its wall time (s). */
function footfall<T>(args: string[]): Promise<{ json: T; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FOOTFALL_BIN, ...args, '--json'], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) =>
      code === 0
        ? resolve({ json: JSON.parse(out), seconds: (performance.now() - started) / 1000 })
        : reject(new Error(`footfall ${args.join(' ')} exited ${code}: ${err}`)),
    );
  });
}

async function serve(dataDir: string): Promise<{ proc: ChildProcess; address: string }> {
  const proc = spawn(process.execPath, [FOOTFALL_BIN, 'serve', '--data-dir', dataDir, '--port', '0', '--log-level', 'warn', '--json'], {
    env: { ...ENV, FOOTFALL_TRUST_PROXY: 'true', FOOTFALL_COLLECT_RATE_LIMIT: '0', FOOTFALL_GEOIP_DB: 'off' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]).address);
    });
    proc.on('exit', (code) => reject(new Error(`footfall serve exited ${code} before listening`)));
  });
  return { proc, address };
}

const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;

export async function run(): Promise<BenchRow[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-backup-'));
  const dataDir = path.join(root, 'data');
  const rows: BenchRow[] = [];
  let server: { proc: ChildProcess; address: string } | undefined;
  try {
    const control = await openControlStores({ dataDir });
    const ws = await control.catalog.createWorkspace({
      name: 'bench',
      plan: 'enterprise',
      apiPolicy: { rate_limit_rps: null, hard_cap_units: null },
    });
    const site = await control.catalog.createSite({
      workspaceId: ws.id,
      name: 'bench',
      hostnames: ['bench.example'],
      collectionProfile: 'extended',
    });
    const token = generateSecret(randomBytes);
    await control.catalog.createToken({ workspaceId: ws.id, scopes: ['metrics:read', 'usage:read'], secretHash: hashSecret(token) });
    await control.close();
    const endMs = Math.floor(Date.now() / DAY_MS) * DAY_MS - 3_600_000;
    const startDayMs = Math.floor(endMs / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS;
    const file = path.join(root, 'events.ndjson');
    writeSiteEvents(file, { siteId: site.id, tenants: [], days: DAYS, startDayMs, endMs }, EVENTS);
    let t = performance.now();
    await runImport({ open: () => openImportStores({ dataDir }), source: file, format: { kind: 'events' } });
    fs.rmSync(file);
    log(`backup: imported ${EVENTS} events in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    server = await serve(dataDir);
    const s = server;
    const from = new Date(startDayMs).toISOString().slice(0, 10);
    const to = new Date(endMs).toISOString().slice(0, 10);
    const auth = { authorization: `Bearer ${token}` };
    const overview = () => fetch(`${s.address}/v1/reports/overview?site_id=${site.id}&from=${from}&to=${to}`, { headers: auth });
    await (await overview()).arrayBuffer(); // the cache holds it from now on
    const idle = await footfall<BackupJson>(['backup', '--data-dir', dataDir, '--out', path.join(root, 'idle')]);
    const bytes = idle.json.backup.bytes;
    log(`backup: ${mb(bytes)} MB backed up in ${idle.seconds.toFixed(1)} s with the server idle`);
    rows.push({
      bench: name,
      case: `backup, ${EVENTS} events, server idle`,
      seconds: idle.seconds.toFixed(2),
      snapshot_s: idle.json.backup.snapshot_seconds,
      MB: mb(bytes),
      MB_per_s: Math.round(bytes / 1e6 / idle.seconds),
      files: idle.json.backup.files,
    });

    const collectors = Array.from({ length: COLLECTORS }, (_, c) =>
      client(
        (n) =>
          fetch(`${s.address}/api/event`, {
            method: 'POST',
            headers: { 'content-type': 'text/plain', 'user-agent': UA, 'x-forwarded-for': `10.0.${c}.${n % 250}` },
            body: JSON.stringify({ n: 'pageview', u: `https://bench.example/live/${n % 300}`, d: 'bench.example', r: null }),
          }),
        202,
      ),
    );
    const misses = client(
      (n) =>
        fetch(
          `${s.address}/v1/metrics/timeseries?site_id=${site.id}&from=${from}&to=${to}&metric=visitors&interval=day&filters=${encodeURIComponent(JSON.stringify({ page: `/p${n}` }))}`,
          { headers: auth },
        ),
      200,
    );
    const hits = client(overview, 200);
    const loads: [string, { samples: Sample[]; stop(): Promise<void> }[]][] = [
      ['/v1 reads, cache hits (90-day overview)', [hits]],
      ['/v1 reads, cache misses (90-day timeseries, a new filter each)', [misses]],
      [`collection, ${COLLECTORS} clients (POST /api/event)`, collectors],
    ];
    const warm = performance.now();
    await new Promise((r) => setTimeout(r, 3000 + BASELINE_S * 1000));
    const backupAt = performance.now();
    const busy = await footfall<BackupJson>(['backup', '--data-dir', dataDir, '--out', path.join(root, 'busy')]);
    const backupEnd = performance.now();
    for (const [, cs] of loads) for (const c of cs) await c.stop();
    const spooled = Object.values(busy.json.backup.counts.spool_records).reduce((a, b) => a + b, 0);
    log(`backup: ${busy.seconds.toFixed(1)} s under load (${spooled} collected events in the spool)`);
    rows.push({
      bench: name,
      case: `backup, ${EVENTS} events, under the load below`,
      seconds: busy.seconds.toFixed(2),
      snapshot_s: busy.json.backup.snapshot_seconds,
      MB: mb(busy.json.backup.bytes),
      MB_per_s: Math.round(busy.json.backup.bytes / 1e6 / busy.seconds),
      files: busy.json.backup.files,
    });
    for (const [label, cs] of loads) {
      const samples = cs.flatMap((c) => c.samples);
      const without = percentiles(samples, warm + 3000, backupAt);
      const during = percentiles(samples, backupAt, backupEnd);
      rows.push({ bench: name, case: `${label}: without a backup`, ...without });
      rows.push({
        bench: name,
        case: `${label}: during the backup`,
        ...during,
        p99_vs_without: (Number(during.p99_ms) / Number(without.p99_ms)).toFixed(2),
      });
    }

    server.proc.kill('SIGTERM');
    await new Promise((r) => server!.proc.once('exit', r));
    server = undefined;
    t = performance.now();
    const restored = await footfall<RestoreJson>(['restore', '--from', path.join(root, 'busy'), '--data-dir', path.join(root, 'restored')]);
    log(`backup: restored in ${restored.seconds.toFixed(1)} s`);
    rows.push({
      bench: name,
      case: `restore of that backup (every file checked, the copies counted)`,
      seconds: restored.seconds.toFixed(2),
      MB: mb(restored.json.restored.bytes),
      MB_per_s: Math.round(restored.json.restored.bytes / 1e6 / restored.seconds),
      files: restored.json.restored.files,
    });
    return rows;
  } finally {
    if (server) server.proc.kill('SIGKILL');
    fs.rmSync(root, { recursive: true, force: true });
  }
}
