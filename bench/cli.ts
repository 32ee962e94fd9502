// How long a `footfall` command takes as a whole process, the way a user types it: `--help`, `site
// list` and a 20-line `import events` (no server running: it opens the store itself), each through
// tsx compiling src/ at the call (`node --import tsx src/cli/main.ts`, how bin/footfall.js ran before)
// and as the compiled dist/ that bin/footfall.js runs now. The two take turns, run by run, so a
// noisy neighbour slows both; each figure is the median of BENCH_CLI_RUNS runs (default 7) after one
// run not counted. Then `npm start` (`node dist/cli/start.js`, as package.json's start runs it) from
// its spawn to the first 200 of GET /healthz, on a fresh empty data dir (it seeds the demo) and on
// one that holds the demo already, the two in turn; each server is killed by its pid once it answers.
// `npm run bench -- cli` (prebench builds dist/).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openControlPlane } from '../src/control/open-control-plane.js';
// Imported, it refuses a dist/ older than src/ (through footfall-bin), so no figure is of stale code.
import { freePort } from '../test/stack/fixtures/serve.js';
import { measure } from './measure.js';
import type { BenchRow } from './run.js';
import { median } from './median.js';

export const name = 'cli';
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 7);
/** Starts per case: a fresh one seeds the demo (several seconds each). */
const START_RUNS = Number(process.env.BENCH_CLI_START_RUNS ?? 5);
/** A start slower than this is a failure, not a figure. */
const START_TIMEOUT_MS = 120_000;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0';

const WAYS = {
  tsx: [process.execPath, '--import', 'tsx', path.join(ROOT, 'src/cli/main.ts')],
  compiled: [process.execPath, path.join(ROOT, 'bin/footfall.js')],
} as const;

/** Twenty pageviews of yesterday, different on every run so that each import stores 20 new events. */
function importFile(dir: string, siteId: string, run: number): string {
  const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const lines = Array.from({ length: 20 }, (_, i) =>
    JSON.stringify({
      ts: `${day}T${String(run % 24).padStart(2, '0')}:${String(i).padStart(2, '0')}:00Z`,
      type: 'pageview',
      site_id: siteId,
      url: `https://bench.example/page-${run}-${i}`,
      ip: `203.0.113.${(i % 200) + 1}`,
      user_agent: UA,
    }),
  );
  const file = path.join(dir, `import-${run}.ndjson`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

export async function run(): Promise<BenchRow[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-cli-'));
  const dataDir = path.join(root, 'data');
  const control = await openControlPlane({ dataDir });
  const ws = await control.catalog.createWorkspace({ name: 'bench', plan: 'pro' });
  const site = await control.catalog.createSite({
    workspaceId: ws.id,
    name: 'bench',
    hostnames: ['bench.example'],
    collectionProfile: 'extended',
  });
  await control.close();
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FOOTFALL_')));
  const cases: Array<[string, (run: number) => string[]]> = [
    ['footfall --help', () => ['--help']],
    ['footfall site list', () => ['site', 'list', '--workspace', ws.id, '--data-dir', dataDir]],
    [
      'footfall import events (20 lines)',
      (run) => ['import', 'events', importFile(root, site.id, run), '--data-dir', dataDir, '--geoip-db', 'off', '--json'],
    ],
  ];
  const rows: BenchRow[] = [];
  let run = 0;
  try {
    for (const [label, args] of cases) {
      const seconds: Record<keyof typeof WAYS, number[]> = { tsx: [], compiled: [] };
      for (let i = 0; i <= RUNS; i++) {
        for (const way of ['tsx', 'compiled'] as const) {
          const [cmd, ...pre] = WAYS[way];
          const m = await measure(cmd, [...pre, ...args(run++)], { env });
          if (m.code !== 0) throw new Error(`${label} (${way}) exited ${m.code}: ${m.stderr}`);
          if (i > 0) seconds[way].push(m.seconds); // the first run of each warms the disk cache (and tsx's)
        }
      }
      const [before, after] = [median(seconds.tsx), median(seconds.compiled)];
      rows.push({
        bench: name,
        case: label,
        runs: RUNS,
        tsx_median_s: before.toFixed(2),
        compiled_median_s: after.toFixed(2),
        compiled_min_max_s: `${Math.min(...seconds.compiled).toFixed(2)}-${Math.max(...seconds.compiled).toFixed(2)}`,
        speedup: `${(before / after).toFixed(1)}x`,
      });
    }
    rows.push(...(await startRows(root, env)));
    return rows;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

interface Started {
  seconds: number;
  /** SIGTERM by pid, SIGKILL if it is still there 10 s later; resolves once it has exited. */
  stop(): Promise<void>;
}

/** `npm start` in `cwd` on `dataDir`, timed from the spawn to the first 200 of GET /healthz. */
async function startServer(cwd: string, dataDir: string, env: NodeJS.ProcessEnv): Promise<Started> {
  const port = await freePort();
  let stderr = '';
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/cli/start.js')], {
    cwd,
    env: { ...env, FOOTFALL_DATA_DIR: dataDir, FOOTFALL_HOST: '127.0.0.1', FOOTFALL_PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (b) => (stderr += b));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}: ${stderr}`);
      if (performance.now() - started > START_TIMEOUT_MS)
        throw new Error(`npm start gave no 200 on /healthz within ${START_TIMEOUT_MS / 1000} s: ${stderr}`);
      const status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status,
        () => 0, // not listening yet
      );
      if (status === 200) return { seconds: (performance.now() - started) / 1000, stop };
      await new Promise((r) => setTimeout(r, 20));
    }
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The demo's traffic loads in the background after the first start: wait for it, so later starts find the demo whole. */
async function untilDemoLoaded(dataDir: string): Promise<void> {
  const until = Date.now() + START_TIMEOUT_MS * 2;
  while (!fs.existsSync(path.join(dataDir, 'demo-loaded.json'))) {
    if (Date.now() > until) throw new Error('the demo traffic did not finish loading within 4 minutes');
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function startRows(root: string, env: NodeJS.ProcessEnv): Promise<BenchRow[]> {
  const seeded = path.join(root, 'start-demo');
  fs.mkdirSync(seeded);
  const first = await startServer(seeded, path.join(seeded, 'data'), env);
  try {
    await untilDemoLoaded(path.join(seeded, 'data'));
  } finally {
    await first.stop();
  }
  const cases = {
    fresh: { label: 'npm start to first 200 /healthz (empty data dir: seeds the demo)', seconds: [] as number[] },
    demo: { label: 'npm start to first 200 /healthz (data dir holding the demo)', seconds: [] as number[] },
  };
  for (let i = 0; i <= START_RUNS; i++) {
    for (const key of ['fresh', 'demo'] as const) {
      const cwd = key === 'fresh' ? fs.mkdtempSync(path.join(root, 'start-fresh-')) : seeded;
      const s = await startServer(cwd, path.join(cwd, 'data'), env);
      await s.stop();
      if (key === 'fresh') fs.rmSync(cwd, { recursive: true, force: true });
      if (i > 0) cases[key].seconds.push(s.seconds);
    }
  }
  return Object.values(cases).map(({ label, seconds }) => ({
    bench: name,
    case: label,
    runs: START_RUNS,
    compiled_median_s: median(seconds).toFixed(2),
    compiled_min_max_s: `${Math.min(...seconds).toFixed(2)}-${Math.max(...seconds).toFixed(2)}`,
  }));
}
