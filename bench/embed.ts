// An overview report through an embed token against the same read through its parent API token, in the
// same run on the same server (DuckDB over BENCH_EMBED_EVENTS events, default 300k, of one site over 90
// days). What an embed adds: the JWT verification (jose), the embed key's and the parent's lookups,
// the sealed site and tenant. Aim: at most 10% slower.
// - cold: distinct ranges (each a response-cache miss), the two callers interleaved, sequential;
// - cached: one repeated read at 1 and 10 connections, req/s and the server's CPU per request.
// Run alone: `npx tsx bench/embed.ts`; `npm run bench -- embed`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadAllOk } from './load.js';
import { openControlPlane } from '../src/control/open-control-plane.js';
import { openImportStores } from '../src/container.js';
import { runImport } from '../src/ingest/pipeline/run-import.js';
import { mintEmbedToken } from '../src/client/embed-token.js';
import { createBenchSite } from './bench-site.js';
import { writeSiteEvents } from './generate.js';
import type { BenchRow } from './run.js';

const DAY_MS = 86_400_000;
const DAYS = 90;
const EVENTS = Number(process.env.BENCH_EMBED_EVENTS ?? 300_000);
const MISSES = Number(process.env.BENCH_MISSES ?? 40);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
// BENCH_SERVER_NODE_ARGS: extra node flags for the server process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
const serverNodeArgs = () => (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);

export const name = 'embed';

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const slower = (embed: number, parent: number) => `${(((embed - parent) / parent) * 100).toFixed(1)}%`;

export async function run(): Promise<BenchRow[]> {
  const log = (s: string) => process.stderr.write(s + '\n');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-embed-'));
  let child: ReturnType<typeof spawn> | undefined;
  try {
    const control = await openControlPlane({ dataDir: dir });
    const { workspaceId, siteId, tenants } = await createBenchSite(control.catalog);
    await control.close();
    const file = path.join(dir, 'events.ndjson');
    const now = Date.now();
    const endMs = now - 3_600_000;
    writeSiteEvents(
      file,
      { siteId, tenants, days: DAYS, startDayMs: Math.floor(endMs / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS, endMs },
      EVENTS,
    );
    const summary = await runImport({ open: () => openImportStores({ dataDir: dir }), source: file, format: { kind: 'events' } });
    log(`imported ${summary.imported} events`);
    fs.rmSync(file);

    const here = path.dirname(fileURLToPath(import.meta.url));
    child = spawn(
      process.execPath,
      [...serverNodeArgs(), '--import', 'tsx', path.join(here, 'servers/embed-server.ts'), dir, workspaceId],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const nextLine = async () => {
      const r = await lines.next();
      if (r.done) throw new Error('bench server exited early');
      return r.value as string;
    };
    const info = JSON.parse(await nextLine()) as { footfall: string; token: string; tokenId: string; keyId: string; keySecret: string };
    const serverCpu = async () => {
      child!.stdin!.write('cpu\n');
      return (JSON.parse(await nextLine()) as { cpuMicros: number }).cpuMicros;
    };
    const embed = await mintEmbedToken(
      { keyId: info.keyId, secret: info.keySecret },
      { tokenId: info.tokenId, siteId, tenantId: tenants[0], ttlSeconds: 86_400 },
    );
    const callers = {
      parent: { auth: { authorization: `Bearer ${info.token}` }, tenant: `&site_id=${siteId}&tenant_id=${tenants[0]}` },
      embed: { auth: { authorization: `Bearer ${embed}` }, tenant: '' },
    };
    const today = new Date(now).toISOString().slice(0, 10);
    const day = (n: number) => new Date(Date.parse(`${today}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);
    const rows: BenchRow[] = [];

    // cold: 2 x MISSES distinct ranges (each a new start), alternately to each caller (its tenant's data, none cached)
    const times: Record<keyof typeof callers, number[]> = { parent: [], embed: [] };
    for (let i = 0; i < 2 * MISSES; i++) {
      const who = i % 2 === 0 ? 'parent' : 'embed';
      const url = `${info.footfall}/v1/reports/overview?from=${day(20 + i)}&to=${day(i % 10)}${callers[who].tenant}`;
      const t0 = performance.now();
      const res = await fetch(url, { headers: callers[who].auth });
      const body = await res.text();
      times[who].push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`${who} ${url} answered ${res.status}: ${body.slice(0, 300)}`);
      if (JSON.parse(body).meta.surface.dataFreshness.cached) throw new Error(`${url} was a cache hit`);
    }
    const p50 = { parent: 0, embed: 0 };
    for (const who of ['parent', 'embed'] as const) {
      const t = [...times[who]].sort((a, b) => a - b);
      p50[who] = pct(t, 50);
      rows.push({
        bench: name,
        case: `cold overview: ${who} token`,
        requests: MISSES,
        'p50 ms': +pct(t, 50).toFixed(1),
        'p99 ms': +pct(t, 99).toFixed(1),
        'vs parent': who === 'embed' ? slower(p50.embed, p50.parent) : '',
      });
    }

    // cached: one repeated read per caller
    const cachedUrl = (who: keyof typeof callers) =>
      `${info.footfall}/v1/reports/overview?from=${day(29)}&to=${today}${callers[who].tenant}`;
    for (const connections of [1, 10]) {
      const seen: Record<string, { rps: number; cpu: number }> = {};
      for (const who of ['parent', 'embed'] as const) {
        await loadAllOk(`${who} warm-up`, { url: cachedUrl(who), connections, duration: 1, headers: callers[who].auth }); // fills the cache
        const probe = await fetch(cachedUrl(who), { headers: callers[who].auth });
        if (probe.status !== 200 || !(await probe.json()).meta.surface.dataFreshness.cached)
          throw new Error(`${who}: the repeated read is not a cache hit`);
        const cpu0 = await serverCpu();
        const r = await loadAllOk(`cached overview, ${who} token @${connections}`, {
          url: cachedUrl(who),
          connections,
          duration: DURATION_S,
          headers: callers[who].auth,
        });
        const cpu = ((await serverCpu()) - cpu0) / Math.max(1, r.requests.total);
        seen[who] = { rps: r.requests.average, cpu };
        rows.push({
          bench: name,
          case: `cached overview: ${who} token, ${connections} conn`,
          'req/s': Math.round(r.requests.average),
          'p50 ms': r.latency.p50,
          'p99 ms': r.latency.p99,
          'server CPU µs/req': +cpu.toFixed(1),
          'vs parent': who === 'embed' ? `${slower(seen.embed.cpu, seen.parent.cpu)} CPU/req` : '',
        });
        log(`cached ${who} @${connections}: ${Math.round(r.requests.average)} req/s, ${cpu.toFixed(1)} µs/req`);
      }
    }
    return rows;
  } finally {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child!.once('exit', r));
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { printTable } = await import(pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'run.ts')).href);
  printTable(await run());
}
