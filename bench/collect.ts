// POST /api/event at 50 connections, driven by wrk (bench/wrk.ts; its own CPU printed): events/s
// accepted (each answered 202 only once it is on disk; any other answer stops the bench) with p50/p99
// latency, next to a bare node:http server answering 202 to the same requests in the same run (the floor: the aim is half of it or better); and, during that load, the time from a
// probe event's 202 to the moment /v1 counts it (p50/p99; the aim is 5 s). The load is the tracker's
// mix (pageviews, engagement, custom events) from 20,000 visitors over 200 pages. A third run sends the
// same load to a footfall whose loader is held back for the run: the request path alone, so that what
// the loader costs is the difference; a fourth to one whose loads only append the events to a plain
// DuckDB table (bench/servers/append-only-store.ts): what collection reaches with the cheapest loader
// there could be.
// BENCH_DURATION_S (default 10) sets each load run's length. BENCH_ROUNDS (default 1) repeats the
// four runs, in turn, each against the floor of its round, and adds the median of the rounds'
// ratios: on a shared machine (another guest taking a third of the cores for seconds at a time) the
// floor moves by half from one run to the next, the ratio of runs side by side far less.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchRow } from './run.js';
import { median } from './median.js';
import { wrkAllOk, type WrkResult } from './wrk.js';

export const name = 'collect';
const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
const PROBE_EVERY_MS = 200;
const POLL_EVERY_MS = 100;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const serverNodeArgs = () => (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN;

/**
 * The load as wrk's Lua: the n-th request of each client thread is a visitor (its address, one of
 * 20,000), a page (one of 200) and the tracker's kind of event (7 pageviews, 2 engagements, 1 custom
 * event in 10), made in the client as it goes so that each request differs.
 */
const EVENTS_LUA = `
local n = 0
local UA = '${UA}'
request = function()
  local visitor = (n * 7919) % 20000
  local page = string.format('https://bench.example/docs/page-%d?utm_source=%s', (n * 31) % 200, (n % 5 == 0) and 'newsletter' or '')
  local kind = n % 10
  local body
  if kind < 7 then
    body = string.format('{"n":"pageview","v":36,"u":"%s","d":"bench.example","r":%s}', page, (kind == 0) and '"https://www.google.com/"' or 'null')
  elseif kind < 9 then
    body = string.format('{"n":"engagement","v":36,"u":"%s","d":"bench.example","e":%d,"sd":80}', page, 1000 + (n % 30000))
  else
    body = string.format('{"n":"Signup","v":36,"u":"%s","d":"bench.example","p":{"action_id":"hero"}}', page)
  end
  local ip = string.format('10.%d.%d.%d', math.floor(visitor / 65536) % 256, math.floor(visitor / 256) % 256, visitor % 256)
  n = n + 1
  return wrk.format('POST', '/api/event', { ['content-type'] = 'text/plain', ['user-agent'] = UA, ['x-forwarded-for'] = ip }, body)
end
`;

/** The load against `url` for `duration` seconds; every answer must be a 202 (wrk, bench/wrk.ts). */
function load(url: string, duration: number): Promise<WrkResult> {
  return wrkAllOk(`POST /api/event to ${url}`, { url: `${url}/api/event`, connections: CONNECTIONS, durationS: duration, lua: EVENTS_LUA });
}

/**
 * Sends a probe event every PROBE_EVERY_MS and watches /v1 for it: 202-to-readable times, ms. Pages
 * are named after `round`, so that no probe is found readable as one of an earlier round.
 */
function probe(info: { footfall: string; token: string; probeSite: string }, round: number) {
  const acked = new Map<string, number>();
  const readable = new Map<string, number>();
  let stop = false;
  let sent = 0;
  const sender = (async () => {
    while (!stop) {
      const page = `/probe/${round}/${sent++}`;
      const r = await fetch(`${info.footfall}/api/event`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'user-agent': UA, 'x-forwarded-for': '192.0.2.1' },
        body: JSON.stringify({ n: 'pageview', u: `https://probe.example${page}`, d: 'probe.example', r: null }),
      });
      if (r.status === 202) acked.set(page, performance.now());
      await new Promise((res) => setTimeout(res, PROBE_EVERY_MS));
    }
  })();
  const lastAck = () => Math.max(0, ...acked.values());
  const poll = async () => {
    const r = await fetch(`${info.footfall}/v1/metrics/breakdown?site_id=${info.probeSite}&dimension=page&limit=2000`, {
      headers: { authorization: `Bearer ${info.token}` },
    });
    if (r.status !== 200) return;
    const now = performance.now();
    for (const row of ((await r.json()) as { current: { rows: { key: string }[] } }).current.rows) {
      if (row.key.startsWith(`/probe/${round}/`) && !readable.has(row.key)) readable.set(row.key, now);
    }
  };
  const poller = (async () => {
    while (!stop || readable.size < acked.size) {
      await poll();
      await new Promise((res) => setTimeout(res, POLL_EVERY_MS));
      if (stop && performance.now() - lastAck() > 15_000) break;
    }
  })();
  return {
    async finish() {
      stop = true;
      await sender;
      await poller;
      const lags = [...acked]
        .filter(([p]) => readable.has(p))
        .map(([p, t]) => readable.get(p)! - t)
        .sort((a, b) => a - b);
      return { lags, acked: acked.size, neverReadable: acked.size - lags.length };
    },
  };
}

export async function run(): Promise<BenchRow[]> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const child = spawn(process.execPath, [...serverNodeArgs(), '--import', 'tsx', path.join(here, 'servers/collect-server.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    const first = createInterface({ input: child.stdout! });
    const line = await new Promise<string>((resolve, reject) => {
      first.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`bench server exited early (${code})`)));
    });
    const info = JSON.parse(line) as { footfall: string; held: string; appendOnly: string; bare: string; token: string; probeSite: string };
    const lines = first;
    const serverCpu = async () => {
      const next = new Promise<string>((resolve) => lines.once('line', resolve));
      child.stdin!.write('cpu\n');
      return JSON.parse(await next) as { cpuMicros: number; mainMicros: number | null };
    };
    const rows: BenchRow[] = [];
    const measured = async (url: string) => {
      const cpu0 = await serverCpu();
      const r = await load(url, DURATION_S);
      const cpu1 = await serverCpu();
      const mainMicros = cpu0.mainMicros === null || cpu1.mainMicros === null ? null : cpu1.mainMicros - cpu0.mainMicros;
      return { r, cpuMicros: cpu1.cpuMicros - cpu0.cpuMicros, mainMicros };
    };
    const row = (
      label: string,
      { r, cpuMicros, mainMicros }: { r: WrkResult; cpuMicros: number; mainMicros: number | null },
      floor?: number,
    ) => {
      const perS = Math.round(r.rps);
      rows.push({
        bench: name,
        case: label,
        'events/s': perS,
        'p50 ms': r.p50Ms,
        'p99 ms': r.p99Ms,
        'server CPU µs/event': Math.round(cpuMicros / Math.max(1, r.requests)),
        // the thread that answers requests (the bound: a request waits for it), 10 ms resolution
        'main thread µs/event': mainMicros === null ? 'n/a' : Math.round(mainMicros / Math.max(1, r.requests)),
        // wrk's own CPU in cores: near 1 the client, not the server, set the pace
        'client cores': +r.clientCores.toFixed(2),
        ...(floor ? { 'of floor': `${Math.round((100 * perS) / floor)}%` } : {}),
      });
      return perS;
    };
    // Each round: the floor, then footfall (probed), the request path alone and the cheapest loader,
    // each against the floor of its round; warm-ups before the first run of each.
    const CASES = {
      footfall: `footfall POST /api/event (${CONNECTIONS} connections)`,
      held: 'footfall, its loader held back for the run (the request path alone)',
      appendOnly: 'footfall whose loads only append the events to a plain table (the floor of any loader)',
    } as const;
    const ratios: Record<keyof typeof CASES, number[]> = { footfall: [], held: [], appendOnly: [] };
    const round = (r: number, label: string) => (ROUNDS > 1 ? `${label}, round ${r + 1}` : label);
    // 202 -> readable is probed during the footfall runs only (each round's probes waited for after it)
    const lags: number[] = [];
    let acked = 0;
    let neverReadable = 0;
    for (let r = 0; r < ROUNDS; r++) {
      if (r === 0) await load(info.bare, 2);
      const floor = row(round(r, 'bare node:http answering 202 (floor)'), await measured(info.bare));
      // footfall's warm-up: JIT, the geolocation database, the first loads
      if (r === 0) await load(info.footfall, 2);
      const p = probe(info, r);
      ratios.footfall.push(row(round(r, CASES.footfall), await measured(info.footfall), floor) / floor);
      const probed = await p.finish();
      lags.push(...probed.lags);
      acked += probed.acked;
      neverReadable += probed.neverReadable;
      for (const k of ['held', 'appendOnly'] as const) {
        if (r === 0) await load(info[k], 2);
        ratios[k].push(row(round(r, CASES[k]), await measured(info[k]), floor) / floor);
      }
    }
    lags.sort((a, b) => a - b);
    rows.push({
      bench: name,
      case: '202 -> readable through /v1, under that load',
      'p50 ms': Math.round(pct(lags, 50)),
      'p99 ms': Math.round(pct(lags, 99)),
      probes: acked,
      'never readable': neverReadable,
    });
    if (ROUNDS > 1) {
      for (const k of Object.keys(CASES) as (keyof typeof CASES)[]) {
        rows.push({ bench: name, case: `${CASES[k]}: median of ${ROUNDS} rounds`, 'of floor': `${Math.round(100 * median(ratios[k]))}%` });
      }
    }
    return rows;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}
