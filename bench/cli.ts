// How long a `footfall` command takes as a whole process, the way a user types it: `--help`, `site
// list` and a 20-line `import events` (no server running: it opens the store itself), each through
// tsx compiling src/ at the call (`node --import tsx src/cli/main.ts`, how bin/footfall.js ran before)
// and as the compiled dist/ that bin/footfall.js runs now. The two take turns, run by run, so a
// noisy neighbour slows both; each figure is the median of BENCH_CLI_RUNS runs (default 7) after one
// run not counted. `npm run bench -- cli` (prebench builds dist/).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openControlPlane } from '../src/control/open-control-plane.js';
import { staleOutputs } from '../scripts/build-server.js';
import { measure } from './measure.js';
import type { BenchRow } from './run.js';

export const name = 'cli';
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 7);
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

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function run(): Promise<BenchRow[]> {
  const stale = staleOutputs();
  if (stale.length) throw new Error(`dist/ is older than ${stale[0]}: run npm run build:server`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-cli-'));
  const dataDir = path.join(root, 'data');
  const control = await openControlPlane({ dataDir });
  const ws = await control.catalog.createWorkspace({ name: 'bench', plan: 'pro' });
  const site = await control.catalog.createSite({ workspaceId: ws.id, name: 'bench', hostnames: ['bench.example'], collectionProfile: 'extended' });
  await control.close();
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FOOTFALL_')));
  const cases: Array<[string, (run: number) => string[]]> = [
    ['footfall --help', () => ['--help']],
    ['footfall site list', () => ['site', 'list', '--workspace', ws.id, '--data-dir', dataDir]],
    ['footfall import events (20 lines)', (run) => ['import', 'events', importFile(root, site.id, run), '--data-dir', dataDir, '--geoip-db', 'off', '--json']],
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
    return rows;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
