// Import throughput and memory, each as the command a user runs (`footfall import …` as its own
// process, wall time and peak RSS), next to what it is measured against in the same run:
// - events/s of `import events` on N ordered events (30 days) and on N events in random order
//   (60 days), next to the floor: DuckDB reading the same file into a plain table (`read_json`),
//   and the store floor: DuckDB reading it straight into the store's own events table (the columns
//   the file has, ids hashed in SQL; no enrichment, sessions or rollups): what any import that stores
//   each event pays on this machine before doing anything else;
// - lines/s of `import access-log` on the same traffic as an N-line combined log, next to GoAccess
//   (Debian's `goaccess`) reading that log;
// - incremental: one day imported into a store holding 90 days, next to the same day into an empty
//   store;
// - a running server's peak RSS above its idle RSS while the shuffled file is imported through it;
// - with BENCH_IMPORT_10M=1, 10M ordered events standalone (completes? peak RSS, temp space).
// N: BENCH_IMPORT_EVENTS (default 1,000,000); BENCH_IMPORT_CASES: a comma-separated subset of floor,
// events, log, incremental, server (default all). Run alone: `npx tsx bench/import.ts`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { StringDecoder } from 'node:string_decoder';
import { openControlPlane } from '../src/control/open-control-plane.js';
import { Prng } from '../src/ingest/demo/prng.js';
import { writeSiteEvents } from './generate.js';
import { folderBytes, measure, rssOf, type Measured } from './measure.js';
import type { BenchRow } from './run.js';
import { EVENTS_DDL } from '../src/engines/duckdb/schema.js';
import { DEFAULT_DUCKDB_MEMORY_LIMIT } from '../src/engines/duckdb/duckdb-instance.js';
import { sqlString } from '../src/engines/duckdb/sql-string.js';

export const name = 'import';
const DAY_MS = 86_400_000;
const CLI = path.resolve('bin/footfall.js');
const log = (s: string) => process.stderr.write(s + '\n');

interface Setup {
  root: string;
  /** a data dir with the control plane only (workspace, site, salt): copied for every case */
  template: string;
  siteId: string;
}

async function setup(): Promise<Setup> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-import-'));
  const template = path.join(root, 'template');
  const control = await openControlPlane({ dataDir: template });
  const ws = await control.catalog.createWorkspace({ name: 'bench', plan: 'pro' });
  const site = await control.catalog.createSite({
    workspaceId: ws.id,
    name: 'bench',
    hostnames: ['bench.example'],
    collectionProfile: 'extended',
  });
  await control.catalog.getOrCreateSecret('visitor-salt');
  await control.close();
  return { root, template, siteId: site.id };
}

function dataDir(s: Setup, label: string): string {
  const dir = path.join(s.root, label);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const f of fs.readdirSync(s.template)) fs.copyFileSync(path.join(s.template, f), path.join(dir, f));
  return dir;
}

function today(): number {
  return Math.floor(Date.now() / DAY_MS) * DAY_MS;
}

/** The lines of a file, read in blocks (a file past 512 MB is too long for one string). */
function* linesOf(file: string): Generator<string> {
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.alloc(16 << 20);
  const utf8 = new StringDecoder('utf8'); // a character split between two blocks stays whole
  let rest = '';
  try {
    for (let n: number; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) {
      const parts = (rest + utf8.write(buf.subarray(0, n))).split('\n');
      rest = parts.pop()!;
      yield* parts;
    }
    if (rest) yield rest;
  } finally {
    fs.closeSync(fd);
  }
}

/** The file's lines in a random (seeded) order. */
function shuffleFile(from: string, to: string): void {
  const lines = [...linesOf(from)].filter(Boolean);
  const r = new Prng(5);
  for (let i = lines.length - 1; i > 0; i--) {
    const j = Math.floor(r.next() * (i + 1));
    [lines[i], lines[j]] = [lines[j], lines[i]];
  }
  const fd = fs.openSync(to, 'w');
  for (let i = 0; i < lines.length; i += 100_000) fs.writeSync(fd, lines.slice(i, i + 100_000).join('\n') + '\n');
  fs.closeSync(fd);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

/** The pageviews of an NDJSON file as combined-format access-log lines, `lines` of them. */
function accessLogOf(ndjson: string, to: string, lines: number): number {
  const fd = fs.openSync(to, 'w');
  let n = 0;
  let block = '';
  const pad = (x: number) => String(x).padStart(2, '0');
  for (const line of linesOf(ndjson)) {
    if (!line || n === lines) continue;
    const e = JSON.parse(line) as Record<string, string>;
    if (e.type !== 'pageview') continue;
    const d = new Date(e.ts);
    const stamp = `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
    const u = new URL(e.url);
    // keyed visitors carry no address: one per key, stable
    const ip =
      e.ip ??
      `10.${([...e.visitor_key].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % 65_536) >> 8}.${e.visitor_key.length}.${(n % 250) + 1}`;
    block += `${ip} - - [${stamp}] "GET ${u.pathname}${u.search} HTTP/1.1" 200 ${1000 + (n % 9000)} "${e.referrer ?? '-'}" "${e.user_agent ?? BROWSER}"\n`;
    n++;
    if (block.length > 1 << 20) {
      fs.writeSync(fd, block);
      block = '';
    }
  }
  fs.writeSync(fd, block);
  fs.closeSync(fd);
  return n;
}

function cli(args: string[], watchPid?: number): Promise<Measured> {
  return measure(process.execPath, [CLI, ...args], { watchPid });
}

function summary(m: Measured): { imported: number; rejected: number; skipped: number } {
  if (m.code !== 0) throw new Error(`import failed (${m.code}): ${m.stderr.slice(-2000)}`);
  return JSON.parse(m.stdout);
}

/** DuckDB reading the same file into a plain table, as its own process: the floor of any import. */
function floor(file: string, dir: string): Promise<Measured> {
  return duckdbAlone(path.join(dir, 'floor.duckdb'), [
    `CREATE TABLE t AS SELECT * FROM read_json(${sqlString(file)}, format = 'newline_delimited')`,
  ]);
}

/**
 * DuckDB reading the same file straight into the store's events table (its DDL, compressed, checkpointed) on
 * the store's default limits: the columns the generated events have, the ids an import needs hashed in SQL,
 * session_id a placeholder. No enrichment, dedupe, sessions or rollups: any import that stores every event
 * pays at least this.
 */
function storeFloor(file: string, dir: string): Promise<Measured> {
  const visitor = `md5(coalesce(ip, '') || coalesce(user_agent, '') || site_id)`;
  return duckdbAlone(
    path.join(dir, 'store-floor.duckdb'),
    [
      EVENTS_DDL,
      `INSERT INTO events (site_id, day, ts_ms, session_id, event_id, type, visitor_key, path_canon, page_title, referrer_host, country, engagement_time_ms, action_name)
      SELECT site_id, CAST(ts AS DATE), epoch_ms(CAST(ts AS TIMESTAMP)), ${visitor}, md5(${visitor} || ts || coalesce(url, path, '')), type, ${visitor},
        coalesce(url, path), title, referrer, country, engagement_time_ms, action_name
      FROM read_json(${sqlString(file)}, format = 'newline_delimited')`,
      'CHECKPOINT',
    ],
    { memory_limit: DEFAULT_DUCKDB_MEMORY_LIMIT },
  );
}

/** SQL statements run by DuckDB alone (threads = the core count), as a process of their own. */
function duckdbAlone(db: string, statements: string[], settings: Record<string, string> = {}): Promise<Measured> {
  const code = `const { DuckDBInstance } = await import('@duckdb/node-api');
    const i = await DuckDBInstance.create(${JSON.stringify(db)}, ${JSON.stringify({ threads: String(os.availableParallelism()), ...settings })});
    const c = await i.connect();
    for (const sql of ${JSON.stringify(statements)}) await c.run(sql);`;
  return measure(process.execPath, ['--input-type=module', '-e', code]);
}

function row(kase: string, n: number, m: Measured, extra: Record<string, string | number> = {}): BenchRow {
  return {
    bench: name,
    case: kase,
    lines: n,
    seconds: Number(m.seconds.toFixed(2)),
    'per s': Math.round(n / m.seconds),
    'peak RSS MB': Math.round(m.peakRssMb),
    ...extra,
  };
}

/** A running server on `dir`: its pid and address; stop() ends it. */
async function server(dir: string): Promise<{ pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--data-dir', dir, '--port', '0', '--log-level', 'silent', '--json'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server exited (${code})`)));
  });
  JSON.parse(first);
  return {
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export async function run(): Promise<BenchRow[]> {
  const n = Number(process.env.BENCH_IMPORT_EVENTS ?? 1_000_000);
  const cases = new Set((process.env.BENCH_IMPORT_CASES ?? 'floor,events,log,incremental,server').split(','));
  const s = await setup();
  const rows: BenchRow[] = [];
  const push = (r: BenchRow) => {
    rows.push(r);
    log(JSON.stringify(r));
  };
  try {
    // windows end with yesterday: today may be only minutes old, too young to hold a day's traffic
    const end = today() - 1;
    const ordered = path.join(s.root, 'ordered.ndjson');
    writeSiteEvents(ordered, { siteId: s.siteId, tenants: [], days: 30, startDayMs: today() - 30 * DAY_MS, endMs: end, seed: 7 }, n);
    const sixty = path.join(s.root, 'sixty.ndjson');
    writeSiteEvents(sixty, { siteId: s.siteId, tenants: [], days: 60, startDayMs: today() - 60 * DAY_MS, endMs: end, seed: 8 }, n);
    const shuffled = path.join(s.root, 'shuffled.ndjson');
    shuffleFile(sixty, shuffled);
    fs.rmSync(sixty);
    log(`generated ${n} events: ordered (30 days) and shuffled (60 days)`);

    // the floor first, then the two imports of events
    if (cases.has('floor')) {
      push(row('floor: DuckDB read_json of the ordered file into a table', n, await floor(ordered, s.root)));
      push(row('store floor: DuckDB read_json of it into the events table', n, await storeFloor(ordered, s.root)));
    }
    for (const [kase, file] of cases.has('events')
      ? ([
          ['import events, ordered (30 days)', ordered],
          ['import events, random order (60 days)', shuffled],
        ] as const)
      : []) {
      const dir = dataDir(s, 'events');
      const m = await cli(['import', 'events', file, '--data-dir', dir, '--json']);
      const out = summary(m);
      push(row(kase, n, m, { imported: out.imported, 'store MB': Math.round(folderBytes(dir) / 2 ** 20) }));
    }

    // the same traffic as an access log
    if (cases.has('log')) {
      const logFile = path.join(s.root, 'access.log');
      const bigger = path.join(s.root, 'bigger.ndjson');
      writeSiteEvents(
        bigger,
        { siteId: s.siteId, tenants: [], days: 30, startDayMs: today() - 30 * DAY_MS, endMs: end, seed: 7 },
        Math.ceil(n * 1.4),
      );
      const lines = accessLogOf(bigger, logFile, n);
      fs.rmSync(bigger);
      const goaccess = spawnSync('goaccess', ['--version'], { encoding: 'utf8' });
      if (goaccess.status === 0) {
        const out = path.join(s.root, 'goaccess.json');
        push(
          row(
            'peer: GoAccess on the access log',
            lines,
            await measure('goaccess', [logFile, '--log-format=COMBINED', '--no-global-config', '-o', out]),
            { note: goaccess.stdout.split('\n')[0] },
          ),
        );
      } else {
        log('goaccess is not installed (Debian: apt-get install goaccess): no peer figure');
      }
      {
        const dir = dataDir(s, 'log');
        const m = await cli(['import', 'access-log', logFile, '--site', s.siteId, '--data-dir', dir, '--json']);
        push(row('import access-log', lines, m, { imported: summary(m).imported }));
      }
    }

    // incremental: one day into 90 days, next to the same day into an empty store
    if (cases.has('incremental')) {
      const base = path.join(s.root, 'base.ndjson');
      writeSiteEvents(
        base,
        { siteId: s.siteId, tenants: [], days: 90, startDayMs: today() - 91 * DAY_MS, endMs: today() - DAY_MS - 1, seed: 9 },
        n,
      );
      const day = path.join(s.root, 'day.ndjson');
      writeSiteEvents(
        day,
        { siteId: s.siteId, tenants: [], days: 1, startDayMs: today() - DAY_MS, endMs: end, seed: 10 },
        Math.round(n / 90),
      );
      const full = dataDir(s, 'full');
      summary(await cli(['import', 'events', base, '--data-dir', full, '--json']));
      const into90 = await cli(['import', 'events', day, '--data-dir', full, '--json']);
      const empty = dataDir(s, 'empty');
      const intoEmpty = await cli(['import', 'events', day, '--data-dir', empty, '--json']);
      summary(into90);
      summary(intoEmpty);
      push(row('one day into an empty store', Math.round(n / 90), intoEmpty));
      push(
        row('one day into a store of 90 days', Math.round(n / 90), into90, {
          'x empty': Number((into90.seconds / intoEmpty.seconds).toFixed(2)),
        }),
      );
    }

    // a running server on default settings, the shuffled file imported through it
    if (cases.has('server')) {
      const dir = dataDir(s, 'served');
      const srv = await server(dir);
      try {
        await new Promise((r) => setTimeout(r, 2_000));
        const idle = rssOf(srv.pid)!.rss;
        const m = await cli(['import', 'events', shuffled, '--data-dir', dir, '--json'], srv.pid);
        const out = summary(m);
        push(
          row('import events through a running server, random order', n, m, {
            imported: out.imported,
            'server idle MB': Math.round(idle),
            'server peak MB': Math.round(m.watchedPeakMb ?? 0),
            'server above idle MB': Math.round((m.watchedPeakMb ?? 0) - idle),
          }),
        );
      } finally {
        await srv.stop();
      }
    }

    if (process.env.BENCH_IMPORT_10M === '1') {
      const big = path.join(s.root, 'ten.ndjson');
      writeSiteEvents(big, { siteId: s.siteId, tenants: [], days: 90, startDayMs: today() - 90 * DAY_MS, endMs: end, seed: 12 }, 10 * n);
      const dir = dataDir(s, 'ten');
      let tempPeak = 0;
      const poll = setInterval(() => (tempPeak = Math.max(tempPeak, folderBytes(path.join(dir, 'events.duckdb.tmp')))), 500);
      const m = await cli(['import', 'events', big, '--data-dir', dir, '--json']);
      clearInterval(poll);
      push(
        row('import events, 10x (90 days)', 10 * n, m, { imported: summary(m).imported, 'temp peak MB': Math.round(tempPeak / 2 ** 20) }),
      );
    }
    return rows;
  } finally {
    fs.rmSync(s.root, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { printTable } = await import('./run.js');
  printTable(await run());
}
