// People and the management API: what a sign-in costs (the password hash), management reads beside
// /v1/sites in the same run, and what the session check adds to a request (two trivial management
// routes, with and without it, on the same pipeline).
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import { loadAllOk } from './load.js';
import { Argon2PasswordHasher, PASSWORD_HASH_PARAMS } from '../src/control/password-hasher.js';
import type { BenchRow } from './run.js';

export const name = 'people';

const CONNECTIONS = 20;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const SIGN_INS = 20;

interface Info {
  address: string;
  probe: string;
  workspace: string;
  token: string;
  email: string;
  password: string;
  cookies: string[];
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const hasher = new Argon2PasswordHasher();
  const hash = await hasher.hash('a bench password');
  const alone: number[] = [];
  for (let i = 0; i < SIGN_INS; i++) {
    const t = performance.now();
    await hasher.verify(hash, 'a bench password');
    alone.push(performance.now() - t);
  }
  const p = PASSWORD_HASH_PARAMS;
  rows.push({
    bench: name,
    case: `argon2id verify alone (m=${p.memoryCost / 1024} MiB, t=${p.timeCost}, p=${p.parallelism})`,
    n: SIGN_INS,
    'p50 ms': q(alone, 0.5),
    'p99 ms': q(alone, 0.99),
  });

  const here = path.dirname(fileURLToPath(import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'servers/people-server.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    const info = await new Promise<Info>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', (l) => resolve(JSON.parse(l)));
      child.once('exit', (code) => reject(new Error(`bench server exited early (${code})`)));
    });
    const signIns: number[] = [];
    for (let i = 0; i < SIGN_INS; i++) {
      const t = performance.now();
      const r = await fetch(`${info.address}/app/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: info.email, password: info.password }),
      });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`sign-in answered ${r.status}`);
      signIns.push(performance.now() - t);
    }
    rows.push({
      bench: name,
      case: 'POST /app/api/session (sign-in, one at a time)',
      n: SIGN_INS,
      'p50 ms': q(signIns, 0.5),
      'p99 ms': q(signIns, 0.99),
    });

    const session = rotating(info.cookies);
    const cases: [string, string, Record<string, string> | 'session'][] = [
      ['GET /healthz (no auth)', `${info.address}/healthz`, {}],
      ['GET /v1/sites (token)', `${info.address}/v1/sites`, { authorization: `Bearer ${info.token}` }],
      ['GET /app/api/workspaces/{id}/sites', `${info.address}/app/api/workspaces/${info.workspace}/sites`, 'session'],
      ['GET /app/api/workspaces/{id}/members', `${info.address}/app/api/workspaces/${info.workspace}/members`, 'session'],
      ['GET /app/api/workspaces/{id}/tokens', `${info.address}/app/api/workspaces/${info.workspace}/tokens`, 'session'],
      ['probe: trivial route, no session', `${info.probe}/app/api/ping-public`, {}],
      ['probe: trivial route, session checked', `${info.probe}/app/api/ping-session`, 'session'],
    ];
    for (const [label, url, headers] of cases) {
      const opts = headers === 'session' ? { requests: [{ method: 'GET', setupRequest: session }] } : { headers };
      await load(url, opts, 1); // warm-up
      const r = await load(url, opts, DURATION_S);
      rows.push({ bench: name, case: label, 'req/s': Math.round(r.requests.average), 'p50 ms': r.latency.p50, 'p99 ms': r.latency.p99 });
    }
    return rows;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

/** Each request with the next session's cookie: the per-session limit (20/s) never refuses the load. */
function rotating(cookies: string[]) {
  let i = 0;
  return (req: autocannon.Request) => ({
    ...req,
    headers: { ...(req.headers ?? {}), cookie: `footfall_session=${cookies[i++ % cookies.length]}` },
  });
}

/** Any answer but a 2xx stops the bench (bench/load.ts): a refused session is not throughput. */
function load(url: string, opts: Partial<autocannon.Options>, duration: number): Promise<autocannon.Result> {
  return loadAllOk(url, { url, connections: CONNECTIONS, duration, ...opts });
}

function q(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))] * 10) / 10;
}
