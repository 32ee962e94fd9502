// The dashboard in Chromium over one site of BENCH_DASHBOARD_EVENTS events (default 1M) spread over 90
// days: time to numbers of a 90-day dashboard, from the navigation's start to the page's own mark that
// every tile and list shows its numbers (web/src/dashboard/ready-mark.ts), median of several loads,
// cold (a fresh, empty response cache before each load) and cached, twice in the same run: the site in
// UTC without filters (the baseline), then the same site in Asia/Kathmandu (+05:45) with a "page
// contains" filter, and the ratio of the two; the reads per page load; the compressed weight of the
// page's assets; and the baseline page's reads made directly with a token in the same run, one after
// another and all at once, so that what the page adds on top of its reads is visible.
// The server runs in this process (the browser is its own); Debian's Chromium, as the browser tests.
// Run alone: `npx tsx bench/dashboard.ts`; BENCH_DASHBOARD_LOADS (default 7) loads per case.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { MemoryResponseCache } from '../src/cache/memory-response-cache.js';
import { loadConfig } from '../src/config/config.js';
import { openImportStores } from '../src/container.js';
import { openControlPlane } from '../src/control/open-control-plane.js';
import { generateSecret, hashSecret } from '../src/domain/tokens.js';
import { runImport } from '../src/ingest/pipeline/run-import.js';
import { startServer } from '../src/main.js';
import { createBenchSite } from './bench-site.js';
import { writeSiteEvents } from './generate.js';
import type { BenchRow } from './run.js';
import { freePort } from '../test/stack/fixtures/serve.js';
import { POST_READS } from '../src/http/pipeline/read-batch-stream.js';

export const name = 'dashboard';

const DAY_MS = 86_400_000;
const DAYS = 90;
const CHROMIUM = process.env.FOOTFALL_TEST_CHROMIUM || '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const READY_MARK = 'footfall:dashboard-ready';
const PASSWORD = 'a bench password of some length';
/** the session's window is 20 requests a second: a page load (18 of them: its batch and the 14 reads in it, 3 of the frame) must not meet the previous one's */
const PAUSE_MS = 1_100;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.floor((s.length - 1) / 2)].toFixed(1);
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function run(): Promise<BenchRow[]> {
  const events = Number(process.env.BENCH_DASHBOARD_EVENTS ?? 1_000_000);
  const loads = Number(process.env.BENCH_DASHBOARD_LOADS ?? 7);
  const log = (s: string) => process.stderr.write(`${s}\n`);
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set FOOTFALL_TEST_CHROMIUM)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-dashboard-'));
  const rows: BenchRow[] = [];
  try {
    // the site and its events, through the import path every analytics bench uses
    const control = await openControlPlane({ dataDir: dir });
    const { workspaceId, siteId, tenants } = await createBenchSite(control.catalog);
    const secret = generateSecret(randomBytes);
    await control.catalog.createToken({ workspaceId, scopes: ['metrics:read'], secretHash: hashSecret(secret) });
    await control.close();
    const now = Date.now();
    const endMs = now - 3_600_000;
    const file = path.join(dir, 'events.ndjson');
    const t = performance.now();
    writeSiteEvents(
      file,
      { siteId, tenants, days: DAYS, startDayMs: Math.floor(endMs / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS, endMs },
      events,
    );
    const summary = await runImport({ open: () => openImportStores({ dataDir: dir }), source: file, format: { kind: 'events' } });
    log(`${summary.imported} events over ${DAYS} days generated and imported in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    fs.rmSync(file);

    const server = await startServer(loadConfig({ dataDir: dir, port: await freePort(), logLevel: 'silent', geoipDb: 'off' }, {}), {
      collect: false,
    });
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
    try {
      const people = server.container.people!;
      const user = await people.createUser({ email: 'bench@example.com', passwordHash: await server.container.hasher!.hash(PASSWORD) });
      await people.addMember({ workspaceId, userId: user.id, role: 'viewer' });
      const signIn = await fetch(`${server.address}/app/api/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD }),
      });
      const cookie = /footfall_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
      if (signIn.status !== 200 || !cookie) throw new Error(`sign-in failed: ${signIn.status}`);
      const csrf = ((await signIn.json()) as { csrf_token: string }).csrf_token;

      const today = new Date(now).toISOString().slice(0, 10);
      const from = new Date(Date.parse(`${today}T00:00:00Z`) - (DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
      const analytics = server.container.analytics!;
      const emptyCache = () => void (analytics.cache = new MemoryResponseCache());

      const context: BrowserContext = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      await context.addCookies([{ name: 'footfall_session', value: cookie, url: server.address }]);
      /** One page load: time to numbers (ms from the navigation's start), and the API requests it made. */
      const load = async (url: string) => {
        const page = await context.newPage();
        const reads: string[] = [];
        page.on('request', (r) => {
          const u = new URL(r.url());
          if (u.pathname.startsWith('/app/api/')) reads.push(u.pathname + u.search);
        });
        await page.goto(url, { waitUntil: 'load' });
        await page.waitForSelector('.dashboard[data-ready]', { timeout: 60_000 });
        const ms = await page.evaluate((mark) => performance.getEntriesByName(mark, 'mark')[0]?.startTime ?? NaN, READY_MARK);
        // where the time went: the document, the page's script, its first and last read (ms from the navigation's start)
        const phases = await page.evaluate(() => {
          const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
          const res = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
          const api = res.filter((r) => new URL(r.name).pathname.startsWith('/app/api/'));
          const batches = api.filter((r) => new URL(r.name).pathname === '/app/api/reads');
          const script = res.find((r) => r.initiatorType === 'script' || /\.js(\?|$)/.test(r.name));
          return {
            document: nav.responseEnd,
            script: script ? script.responseEnd : NaN,
            'first read sent': api.length ? Math.min(...api.map((r) => r.startTime)) : NaN,
            'last read answered': api.length ? Math.max(...api.map((r) => r.responseEnd)) : NaN,
            // the numbers' batch (GET /app/api/reads): when it left, and when its first and last bytes came
            'batch sent': Math.min(...batches.map((r) => r.startTime)),
            'batch first byte': Math.min(...batches.map((r) => r.responseStart)),
            'batch answered': Math.max(...batches.map((r) => r.responseEnd)),
            'frame answered': Math.max(
              ...api.filter((r) => /^\/app\/api\/sites\/[^/]+$/.test(new URL(r.name).pathname)).map((r) => r.responseEnd),
            ),
            // a read waits for one of the browser's 6 connections to the origin (HTTP/1.1) before it is sent
            'longest wait for a connection': api.length ? Math.max(...api.map((r) => r.requestStart - r.startTime)) : NaN,
          };
        });
        const tiles = await page.$$eval('.tile[data-value]', (t) => t.length);
        if (tiles !== 6) throw new Error(`only ${tiles} tiles have numbers`);
        const problems = await page.$$eval('.problem:not(.upgrade), .tile-problem', (els) => els.map((e) => e.textContent));
        if (problems.length) throw new Error(`a panel refused: ${problems.join(' | ')}`);
        await page.close();
        await sleep(PAUSE_MS);
        return { ms, reads, phases };
      };

      /** Loads of one URL: cold (an empty response cache) and cached alternately; their times, phases and the reads of a load. */
      const measure = async (url: string) => {
        await load(url); // the assets into the browser's cache, the engine's files into the OS's
        const cold: number[] = [];
        const cached: number[] = [];
        const phases: Record<'cold' | 'cached', Record<string, number>[]> = { cold: [], cached: [] };
        let reads: string[] = [];
        for (let i = 0; i < loads; i++) {
          emptyCache();
          const r = await load(url);
          cold.push(r.ms);
          phases.cold.push(r.phases);
          reads = r.reads;
          const again = await load(url);
          cached.push(again.ms);
          phases.cached.push(again.phases);
        }
        return { cold, cached, phases, reads };
      };

      const cases = [
        { what: 'site in UTC, no filter', zone: 'UTC', query: `from=${from}&to=${today}` },
        {
          what: 'site in Asia/Kathmandu, page contains "docs"',
          zone: 'Asia/Kathmandu',
          query: `from=${from}&to=${today}&filters=${encodeURIComponent(JSON.stringify([['contains', 'page', 'docs']]))}`,
        },
      ];
      const results: Awaited<ReturnType<typeof measure>>[] = [];
      for (const c of cases) {
        await server.container.catalog.updateSite(siteId, { timezone: c.zone });
        // the server counts in the new zone (no site record cached from before)
        const probe = await fetch(`${server.address}/api/v2/query`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify({ site_id: siteId, date_range: '7d', metrics: ['visitors'] }),
        });
        const zone = ((await probe.json()) as { meta?: { timezone?: string } }).meta?.timezone;
        if (zone !== c.zone) throw new Error(`the query API counts in ${zone}, not ${c.zone}`);
        const m = await measure(`${server.address}/app/sites/${siteId}?${c.query}`);
        results.push(m);
        log(`${c.what}: time to numbers cold ${median(m.cold)} ms, cached ${median(m.cached)} ms; ${m.reads.length} API requests per load`);
        rows.push({
          bench: name,
          case: `90-day dashboard, ${c.what}, cold (empty response cache): navigation start to numbers`,
          loads,
          'median ms': median(m.cold),
          'min ms': +Math.min(...m.cold).toFixed(1),
          'max ms': +Math.max(...m.cold).toFixed(1),
        });
        rows.push({
          bench: name,
          case: `90-day dashboard, ${c.what}, cached: navigation start to numbers`,
          loads,
          'median ms': median(m.cached),
          'min ms': +Math.min(...m.cached).toFixed(1),
          'max ms': +Math.max(...m.cached).toFixed(1),
        });
        for (const which of ['cold', 'cached'] as const) {
          const keys = Object.keys(m.phases[which][0] ?? {});
          rows.push({
            bench: name,
            case: `${c.what}, ${which}: where the time went, median ms from the navigation's start`,
            loads,
            ...Object.fromEntries(keys.map((k) => [k, median(m.phases[which].map((p) => p[k]))])),
          });
        }
      }
      const [base, zoned] = results;
      rows.push({
        bench: name,
        case: 'Asia/Kathmandu with a contains filter beside UTC unfiltered, median time to numbers (target: cold within 1.3x)',
        'cold ratio': +(median(zoned.cold) / median(base.cold)).toFixed(2),
        'cached ratio': +(median(zoned.cached) / median(base.cached)).toFixed(2),
      });
      await server.container.catalog.updateSite(siteId, { timezone: 'UTC' });
      const reads = base.reads;
      // the numbers' reads: each /app/api/v1 request, and each read a batch (GET /app/api/reads) carries
      const batches = reads.filter((p) => p.startsWith('/app/api/reads?'));
      const batched = batches.flatMap((p) => new URLSearchParams(p.slice(p.indexOf('?'))).getAll('r'));
      const twins = [...reads.filter((p) => p.startsWith('/app/api/v1/')).map((p) => p.slice('/app/api'.length)), ...batched];
      rows.push({
        bench: name,
        case: 'API requests per page load',
        n: reads.length,
        'numbers reads': twins.length,
        'of them in batches': batched.length,
        batches: batches.length,
        'management reads': reads.length - batches.length - (twins.length - batched.length),
      });

      // the same reads, straight to /v1 and /api/v2/query with a token (a batch member /api/v2/query?body=... is that POST)
      const headers = { authorization: `Bearer ${secret}` };
      const one = async (p: string) => {
        const [where, search] = p.split('?', 2);
        const res = POST_READS.has(where)
          ? await fetch(server.address + where, {
              method: 'POST',
              headers: { ...headers, 'content-type': 'application/json' },
              body: new URLSearchParams(search).get('body')!,
            })
          : await fetch(server.address + p, { headers });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${p} answered ${res.status}`);
      };
      const timed = async (fn: () => Promise<unknown>) => {
        const t0 = performance.now();
        await fn();
        return performance.now() - t0;
      };
      const sequential = async () => {
        for (const p of twins) await one(p);
      };
      const parallel = () => Promise.all(twins.map(one));
      // the same reads as the page's one batch, with its session cookie (what the browser adds on top of it is the rest)
      const batchUrl = `${server.address}/app/api/reads?${twins.map((p) => `r=${encodeURIComponent(p)}`).join('&')}`;
      const batch = async () => {
        const res = await fetch(batchUrl, {
          headers: { cookie: `footfall_session=${cookie}`, 'x-csrf-token': csrf, 'accept-encoding': 'br' },
        });
        const lines = (await res.text()).split('\n').filter(Boolean);
        if (res.status !== 200 || lines.length !== twins.length)
          throw new Error(`the batch answered ${res.status} with ${lines.length} lines`);
        for (const line of lines)
          if (!line.startsWith('{"i":') || !/^\{"i":\d+,"status":200,/.test(line))
            throw new Error(`a batched read failed: ${line.slice(0, 200)}`);
      };
      const direct: Record<string, number[]> = {
        'sequential cold': [],
        'sequential cached': [],
        'parallel cold': [],
        'parallel cached': [],
        'one batch cold': [],
        'one batch cached': [],
      };
      for (let i = 0; i < loads; i++) {
        emptyCache();
        direct['sequential cold'].push(await timed(sequential));
        direct['sequential cached'].push(await timed(sequential));
        emptyCache();
        direct['parallel cold'].push(await timed(parallel));
        direct['parallel cached'].push(await timed(parallel));
        await sleep(PAUSE_MS); // the session's window
        emptyCache();
        direct['one batch cold'].push(await timed(batch));
        await sleep(PAUSE_MS);
        direct['one batch cached'].push(await timed(batch));
      }
      for (const [how, times] of Object.entries(direct)) {
        const via = how.startsWith('one batch') ? 'as GET /app/api/reads with the session' : 'on /v1 and /api/v2 with a token';
        rows.push({
          bench: name,
          case: `the UTC page's ${twins.length} reads ${via}, ${how}`,
          loads,
          'median ms': median(times),
          'min ms': +Math.min(...times).toFixed(1),
          'max ms': +Math.max(...times).toFixed(1),
        });
      }

      const manifest = JSON.parse(
        fs.readFileSync(path.join(fileURLToPath(new URL('..', import.meta.url)), 'dist', 'web', 'manifest.json'), 'utf8'),
      ) as {
        files: Record<string, { bytes: number; br: number; gzip: number }>;
      };
      const sum = (k: 'bytes' | 'br' | 'gzip') => Object.values(manifest.files).reduce((s, f) => s + f[k], 0);
      rows.push({
        bench: name,
        case: 'page assets (script, style, icon)',
        n: Object.keys(manifest.files).length,
        bytes: sum('bytes'),
        'brotli bytes': sum('br'),
        'gzip bytes': sum('gzip'),
      });
      rows.push({ bench: name, case: 'events of the site', n: summary.imported });
      await context.close();
    } finally {
      await browser.close().catch(() => undefined);
      await server.close();
    }
    return rows;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { printTable } = await import(pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), 'run.ts')).href);
  printTable(await run());
}
