// wrk (Debian's package: a C load generator that costs little CPU) driving an HTTP bench, with the
// client's own CPU measured: a client near a whole core is saturated, and a floor it measures is its own
// ceiling, not the server's. autocannon, in node, topped out near 10,000 requests/s on these two cores,
// below the floors the benches compare with. Every answer must be a 2xx (refusals are not throughput).
// Not a bench itself (no `run`).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface WrkOptions {
  url: string;
  connections: number;
  durationS: number;
  /** wrk's threads (default 1: on two cores a second client thread takes the server's) */
  threads?: number;
  headers?: Record<string, string>;
  /** Lua run by wrk beside the summary script: its own `request` function, for requests that differ */
  lua?: string;
}

export interface WrkResult {
  requests: number;
  /** answers neither 2xx nor 3xx, and socket errors (connect, read, write, timeout) */
  non2xx: number;
  errors: number;
  seconds: number;
  /** requests a second, all of them (check non2xx and errors first) */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** the client's CPU over the run as a share of one core (1 = a whole core: the client was the limit) */
  clientCores: number;
}

/** The summary wrk prints at the end, as one JSON line the bench reads. */
const SUMMARY_LUA = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_JSON {"requests":%d,"duration_us":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"p50_us":%d,"p99_us":%d}\\n',
    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout, latency:percentile(50), latency:percentile(99)))
end
`;

let checked = false;

/** wrk must be installed (apt-get install wrk): a bench without it says so rather than measuring with a slower client. */
export function requireWrk(): void {
  if (checked) return;
  const r = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (r.error) throw new Error('the HTTP benches drive servers with wrk: apt-get install wrk (Debian), then run the bench again');
  checked = true;
}

const TICKS_PER_S = 100; // USER_HZ on Linux

/** Runs wrk once; resolves with its summary and its CPU. */
export async function wrk(opts: WrkOptions): Promise<WrkResult> {
  requireWrk();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-wrk-'));
  try {
    const script = path.join(dir, 'bench.lua');
    fs.writeFileSync(script, `${opts.lua ?? ''}\n${SUMMARY_LUA}`);
    const args = [
      `-t${opts.threads ?? 1}`,
      `-c${opts.connections}`,
      `-d${opts.durationS}s`,
      '--timeout',
      '10s',
      '-s',
      script,
      ...Object.entries(opts.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
      opts.url,
    ];
    // bash waits for wrk, then reads its own /proc stat, whose cutime and cstime now hold wrk's CPU
    const shell = 'wrk "$@"; rc=$?; echo "WRK_CPU $(cut -d" " -f16,17 /proc/$$/stat)"; exit $rc';
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('bash', ['-c', shell, 'wrk', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited with ${code}: ${text}`))));
    });
    const json = /^WRK_JSON (.*)$/m.exec(out);
    const cpu = /^WRK_CPU (\d+) (\d+)$/m.exec(out);
    if (!json || !cpu) throw new Error(`wrk's output is not understood: ${out}`);
    const s = JSON.parse(json[1]) as Record<string, number>;
    const seconds = s.duration_us / 1e6;
    return {
      requests: s.requests,
      non2xx: s.status,
      errors: s.connect + s.read + s.write + s.timeout,
      seconds,
      rps: s.requests / seconds,
      p50Ms: s.p50_us / 1000,
      p99Ms: s.p99_us / 1000,
      clientCores: (Number(cpu[1]) + Number(cpu[2])) / TICKS_PER_S / seconds,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** wrk, failing the bench when any answer was not a 2xx or a socket failed (refusals are cheaper than the work they stand for). */
export async function wrkAllOk(label: string, opts: WrkOptions): Promise<WrkResult> {
  const r = await wrk(opts);
  if (r.non2xx + r.errors > 0)
    throw new Error(`${label}: ${r.non2xx} non-2xx answers and ${r.errors} socket errors among ${r.requests} requests (${opts.url})`);
  return r;
}
