// GET /v1/usage/current through the whole pipeline (token lookup in SQLite, rate limit, ledger read,
// schema serialization) against a bare Fastify route returning the same bytes, in the same run.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import { loadAllOk } from './load.js';
import type { BenchRow } from './run.js';

const CONNECTIONS = 50;
// BENCH_SERVER_NODE_ARGS: extra node flags for the server process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
const serverNodeArgs = () => (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);

export const name = 'usage-current';

export async function run(): Promise<BenchRow[]> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const child = spawn(process.execPath, [...serverNodeArgs(), '--import', 'tsx', path.join(here, 'servers/usage-current-server.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`bench server exited early (${code})`)));
    });
    const info = JSON.parse(line) as { footfall: string; bare: string; token: string; bytes: number };
    const headers = { authorization: `Bearer ${info.token}` };
    const rows: BenchRow[] = [];
    for (const [label, base] of [
      ['bare Fastify, same bytes', info.bare],
      ['footfall /v1/usage/current', info.footfall],
    ] as const) {
      await load(`${base}/v1/usage/current`, headers, 2); // warm-up: JIT, SQLite page cache
      const r = await load(`${base}/v1/usage/current`, headers, DURATION_S);
      rows.push({
        bench: name,
        case: label,
        'req/s': Math.round(r.requests.average),
        'p50 ms': r.latency.p50,
        'p99 ms': r.latency.p99,
        'body bytes': info.bytes,
      });
    }
    return rows;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

/** Any answer but a 2xx stops the bench (bench/load.ts). */
function load(url: string, headers: Record<string, string>, duration: number): Promise<autocannon.Result> {
  return loadAllOk(url, { url, connections: CONNECTIONS, duration, headers });
}
