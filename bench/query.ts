// The query API's cold reads beside the questions they are held to, in one run on the same events:
// N events of one site over 90 days (bench/generate.ts) imported into DuckDB, one ClickHouse server and
// two ClickHouse shards (when scripts/services.sh's servers are set), then each case asks REQUESTS
// distinct questions (ranges shifted a day at a time; no response cache anywhere) through the real app
// on each stack in turn. Printed per case and stack: p50 ms, its ratio to the case's baseline in the same
// run (the same question through /v1; the same site in UTC), and to DuckDB's p50.
// Targets (issue 40): /api/v2/query within 1.2x of /v1 for the same question; a site in Asia/Kathmandu
// within 1.5x of the same site in UTC (30 and 90 days, daily and weekly); a custom-property breakdown and a
// three-step funnel (POST /api/v2/funnel) within 2x of a page breakdown; ClickHouse within 2x of DuckDB.
// Run: eval "$(bash scripts/services.sh start)"; npm run bench -- query   (BENCH_QUERY_EVENTS, default
// 1000000; BENCH_QUERY_REQUESTS, default 15).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { buildContainer, openControlStores, openImportStores, type Container } from '../src/container.js';
import { generateSecret, hashSecret } from '../src/domain/tokens.js';
import { runImport } from '../src/ingest/pipeline/run-import.js';
import { createBenchSite } from './bench-site.js';
import { writeSiteEvents } from './generate.js';
import { median } from './median.js';
import type { BenchRow } from './run.js';
import { storeStacks, type StoreStack } from './store-stacks.js';

export const name = 'query';
const DAY_MS = 86_400_000;
const DAYS = 90;
const REQUESTS = Number(process.env.BENCH_QUERY_REQUESTS ?? 15);
const EVENTS = Number(process.env.BENCH_QUERY_EVENTS ?? 1_000_000);

interface Stack extends StoreStack {
  container?: Container;
  app?: FastifyInstance;
}

/**
 * Custom properties on the generated events (the demo's traffic has none): a plan on every event of half the
 * visitors, an experiment arm on a third of them, chosen by the visitor key so a visit's events agree.
 */
function withProps(file: string): void {
  const plans = ['free', 'pro', 'team', 'enterprise'];
  const out: string[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as Record<string, unknown>;
    let h = 0;
    for (const ch of String(e.visitor_key)) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
    const props: Record<string, string> = {};
    if (h % 2 === 0) props.plan = plans[(h >>> 1) % plans.length];
    if (h % 3 === 0) props.arm = (h >>> 3) % 2 ? 'a' : 'b';
    if (Object.keys(props).length) e.props = props;
    out.push(JSON.stringify(e));
  }
  fs.writeFileSync(file, `${out.join('\n')}\n`);
}

/** One request: a GET url, or a POST of /api/v2/query's body. */
type Ask = { url: string } | { body: Record<string, unknown>; path?: string };

interface Case {
  label: string;
  /** the site's zone while the case runs */
  zone: string;
  /** the case whose p50 this one is compared with (same stack), if any */
  baseline?: string;
  ask(i: number): Ask;
}

export async function run(log = (s: string) => process.stderr.write(`${s}\n`)): Promise<BenchRow[]> {
  process.env.FOOTFALL_DUCKDB_MEMORY_LIMIT ??= '4GB';
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-query-'));
  const dataDir = path.join(root, 'data');
  const stacks: Stack[] = storeStacks(log);
  try {
    const control = await openControlStores({ dataDir });
    const { workspaceId, siteId, tenants } = await createBenchSite(control.catalog);
    const secret = generateSecret(randomBytes);
    await control.catalog.createToken({ workspaceId, scopes: ['metrics:read'], secretHash: hashSecret(secret) });
    // the 90 days before today, ending an hour before midnight UTC: every day of the window is whole
    const endMs = Math.floor(Date.now() / DAY_MS) * DAY_MS - 3_600_000;
    const file = path.join(root, 'events.ndjson');
    writeSiteEvents(
      file,
      { siteId, tenants, days: DAYS, startDayMs: Math.floor(endMs / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS, endMs },
      EVENTS,
    );
    withProps(file);
    for (const s of stacks) {
      const config = { dataDir, eventsUrl: s.eventsUrl };
      const t = performance.now();
      const summary = await runImport({ open: () => openImportStores(config), source: file, format: { kind: 'events' } });
      log(`${s.name}: imported ${summary.imported} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      s.container = await buildContainer(loadConfig({ dataDir, logLevel: 'silent', eventsUrl: s.eventsUrl }, {}), { control });
      s.container.analytics!.cache = null; // cold reads: /v1's cache is what /api/v2/query does not have
      s.app = await buildApp(s.container, { logger: false });
    }
    fs.rmSync(file);

    const today = new Date(endMs).toISOString().slice(0, 10);
    const day = (n: number) => new Date(Date.parse(`${today}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);
    // ranges of `days` days ending 0..4 days before the last: distinct questions, whole days in every zone
    const dates = (days: number, i: number): [string, string] => [day(days + (i % 5)), day(1 + (i % 5))];
    const v1 = (route: string, days: number, i: number, extra: string) => {
      const [from, to] = dates(days, i);
      return { url: `/v1/metrics/${route}?site_id=${siteId}&from=${from}&to=${to}&${extra}` };
    };
    const v2 = (days: number, i: number, rest: Record<string, unknown>) => ({
      body: { site_id: siteId, date_range: dates(days, i), ...rest },
    });
    const cases: Case[] = [
      { label: 'v1 timeseries visitors 30d', zone: 'UTC', ask: (i) => v1('timeseries', 30, i, 'metric=visitors') },
      {
        label: 'v2 time:day visitors 30d',
        zone: 'UTC',
        baseline: 'v1 timeseries visitors 30d',
        ask: (i) => v2(30, i, { metrics: ['visitors'], dimensions: ['time:day'] }),
      },
      {
        label: 'v1 breakdown page visitors 90d',
        zone: 'UTC',
        ask: (i) => v1('breakdown', 90, i, 'dimension=page&metric=visitors&limit=100'),
      },
      {
        label: 'v2 event:page visitors 90d',
        zone: 'UTC',
        baseline: 'v1 breakdown page visitors 90d',
        ask: (i) => v2(90, i, { metrics: ['visitors'], dimensions: ['event:page'], pagination: { limit: 100 } }),
      },
    ];
    // a custom-property breakdown and a three-step funnel, each beside the page breakdown of the same range
    cases.push(
      {
        label: 'v2 event:props:plan visitors 90d',
        zone: 'UTC',
        baseline: 'v2 event:page visitors 90d',
        ask: (i) => v2(90, i, { metrics: ['visitors'], dimensions: ['event:props:plan'] }),
      },
      {
        // a site off UTC: its 90 local days are 89 whole UTC days from the rows and two parts of days from the events
        label: 'v2 event:props:plan visitors 90d, Kathmandu',
        zone: 'Asia/Kathmandu',
        baseline: 'v2 event:props:plan visitors 90d',
        ask: (i) => v2(90, i, { metrics: ['visitors'], dimensions: ['event:props:plan'] }),
      },
      {
        label: 'funnel 3 steps 90d',
        zone: 'UTC',
        baseline: 'v2 event:page visitors 90d',
        ask: (i) => ({
          path: '/api/v2/funnel',
          body: { site_id: siteId, date_range: dates(90, i), steps: [{ page: '/' }, { page: '/pricing' }, { event: 'signup' }] },
        }),
      },
    );
    for (const days of [30, 90])
      for (const unit of ['day', 'week']) {
        const rest = { metrics: ['visitors', 'visits', 'pageviews'], dimensions: [`time:${unit}`] };
        const utc = `UTC ${days}d by ${unit}`;
        cases.push({ label: utc, zone: 'UTC', ask: (i) => v2(days, i, rest) });
        cases.push({ label: `Kathmandu ${days}d by ${unit}`, zone: 'Asia/Kathmandu', baseline: utc, ask: (i) => v2(days, i, rest) });
      }

    const p50s = new Map<string, number>(); // `${case} ${stack}`
    const rows: BenchRow[] = [];
    for (const c of cases) {
      await control.catalog.updateSite(siteId, { timezone: c.zone });
      const times = new Map(stacks.map((s) => [s.name, [] as number[]]));
      let differ = 0;
      for (let i = 0; i < REQUESTS; i++) {
        let first: string | undefined;
        for (const s of stacks) {
          const a = c.ask(i);
          const headers = { authorization: `Bearer ${secret}` };
          const t0 = performance.now();
          const res =
            'url' in a
              ? await s.app!.inject({ method: 'GET', url: a.url, headers })
              : await s.app!.inject({ method: 'POST', url: a.path ?? '/api/v2/query', headers, payload: a.body });
          times.get(s.name)!.push(performance.now() - t0);
          if (res.statusCode !== 200) throw new Error(`${s.name} ${c.label}: ${res.statusCode} ${res.body.slice(0, 300)}`);
          const { meta: _meta, ...data } = res.json() as Record<string, unknown>;
          const text = JSON.stringify(data);
          if (first === undefined) first = text;
          else if (text !== first) differ++;
        }
      }
      const duck = median(times.get('DuckDB')!);
      for (const s of stacks) {
        const p50 = median(times.get(s.name)!);
        p50s.set(`${c.label} ${s.name}`, p50);
        const base = c.baseline ? p50s.get(`${c.baseline} ${s.name}`) : undefined;
        const row: BenchRow = {
          bench: 'query',
          case: `${c.label}, ${s.name}`,
          events: EVENTS,
          requests: REQUESTS,
          'p50 ms': +p50.toFixed(1),
          'x baseline': base ? +(p50 / base).toFixed(2) : '',
          baseline: c.baseline ?? '',
          'x DuckDB': +(p50 / duck).toFixed(2),
          'same answer': differ === 0 ? 'yes' : `NO (${differ})`,
        };
        rows.push(row);
        log(`${row.case}: p50 ${row['p50 ms']} ms${base ? `, ${row['x baseline']}x ${c.baseline}` : ''}, ${row['x DuckDB']}x DuckDB`);
      }
    }
    await control.close();
    return rows;
  } finally {
    for (const s of stacks) {
      await s.app?.close().catch(() => undefined);
      await s.container?.close().catch(() => undefined);
      await s.scratch?.drop().catch(() => undefined);
    }
    fs.rmSync(root, { recursive: true, force: true });
  }
}
