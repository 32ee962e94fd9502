// What guessers cost everyone else: the latency of GET /healthz and of POST /api/event, asked one at a
// time, while nobody guesses, while 16 clients ask a cheap refusal as fast as it is answered (the floor of
// any closed-loop load on these cores), while 16 post made-up password-reset links, then while 16 post wrong
// passwords for unknown emails (each a full argon2 verification of the dummy hash). Every guess comes from a new address (X-Forwarded-For, trusted), as a spread
// attack would, so the per-address throttle does not hide the cost; what holds the server up is the
// look-up before any hash (resets) and the process's hash gate (sign-ins). Same server, same run.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchRow } from './run.js';

export const name = 'guesses';

const GUESSERS = 16;
const PHASE_MS = Number(process.env.BENCH_DURATION_S ?? 6) * 1000;
const agent = new http.Agent({ keepAlive: true, maxSockets: GUESSERS + 4 });

function request(
  base: string,
  method: string,
  url: string,
  body: string | null,
  headers: Record<string, string> = {},
): Promise<{ status: number; ms: number }> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(url, base),
      {
        method,
        agent,
        headers: { ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t }));
      },
    );
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

let n = 0;
/** a fresh client address for every request */
const address = () => `10.${(++n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
const madeUp = () =>
  Array.from({ length: 32 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(Math.random() * 62)]).join(
    '',
  );

const GUESS = {
  none: null,
  // the floor of any 16 clients in a closed loop on these cores: a refusal that costs no store and no hash
  'no session (GET /app/api/session, 401)': (base: string) =>
    request(base, 'GET', '/app/api/session', null, { 'x-forwarded-for': address() }),
  'made-up reset links': (base: string) =>
    request(base, 'POST', '/app/api/password-reset/accept', JSON.stringify({ reset: madeUp(), password: 'a guessed new password' }), {
      'x-forwarded-for': address(),
    }),
  'wrong passwords': (base: string) =>
    request(base, 'POST', '/app/api/session', JSON.stringify({ email: `${madeUp()}@example.com`, password: 'a wrong password' }), {
      'x-forwarded-for': address(),
    }),
} as const;

const EVENT = JSON.stringify({ name: 'pageview', url: 'https://guesses.bench.example/p', domain: 'guesses.bench.example' });
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number((s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN).toFixed(1));
};

export async function run(): Promise<BenchRow[]> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'servers/guesses-server.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const rows: BenchRow[] = [];
  try {
    const { address: base } = await new Promise<{ address: string }>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', (l) => resolve(JSON.parse(l)));
      child.once('exit', (code) => reject(new Error(`bench server exited early (${code})`)));
    });
    for (const [phase, guess] of Object.entries(GUESS)) {
      let running = true;
      const statuses = new Map<number, number>();
      const guessers = guess
        ? Array.from({ length: GUESSERS }, async () => {
            while (running) {
              const r = await guess(base);
              statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
            }
          })
        : [];
      await new Promise((r) => setTimeout(r, 500)); // the guessers at full speed before the probes
      const healthz: number[] = [];
      const collect: number[] = [];
      const until = performance.now() + PHASE_MS;
      while (performance.now() < until) {
        const h = await request(base, 'GET', '/healthz', null);
        if (h.status !== 200) throw new Error(`/healthz answered ${h.status}`);
        healthz.push(h.ms);
        const c = await request(base, 'POST', '/api/event', EVENT, {
          'content-type': 'text/plain',
          'user-agent': UA,
          'x-forwarded-for': address(),
        });
        if (c.status !== 202) throw new Error(`/api/event answered ${c.status}`);
        collect.push(c.ms);
      }
      running = false;
      await Promise.all(guessers);
      const guesses = [...statuses.values()].reduce((a, b) => a + b, 0);
      rows.push({
        bench: name,
        case: `${GUESSERS} clients guessing: ${phase}`,
        'healthz p50 ms': q(healthz, 0.5),
        'healthz p99 ms': q(healthz, 0.99),
        'collect p50 ms': q(collect, 0.5),
        'collect p99 ms': q(collect, 0.99),
        probes: healthz.length,
        'guesses/s': guess ? Math.round(guesses / ((PHASE_MS + 500) / 1000)) : 0,
        'guess answers': [...statuses].map(([s, c]) => `${s}x${c}`).join(' ') || '-',
      });
    }
  } finally {
    child.stdin!.end();
    await new Promise((r) => child.once('exit', r));
    agent.destroy();
  }
  return rows;
}
