// What a read of one busy day costs from the daily rollups and counted raw from its events and
// sessions (the engine with `rollups: false`), on a DuckDB store holding one day of
// BENCH_TODAY_EVENTS events (default 1,000,000: a fifth as many visitors, 5 events each over 8 hours,
// 200 pages, a tenth custom actions). The price of live days (src/engines/duckdb/live-days.ts): the
// store no longer moves today's rollups at every live load, so a read of a range that holds today
// counts it raw, and pays the raw figure
// (docs/decisions/collection-at-the-floor.md). The store's clock is set three days later, so the
// day is rolled up and the rollups engine reads it from the rollups. Each case checks that both
// answer the same.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { QuerySpec } from '../src/domain/query/query-spec.js';
import { DuckDbAnalyticsEngine } from '../src/engines/duckdb/duckdb-analytics-engine.js';
import { openDuckDbEventStore } from '../src/engines/duckdb/duckdb-event-store.js';
import { eventIdentity } from '../src/ingest/parse/identity.js';
import type { EventRow } from '../src/ports/event-store.js';
import type { BenchRow } from './run.js';
import { median } from './median.js';

export const name = 'today';
const EVENTS = Number(process.env.BENCH_TODAY_EVENTS ?? 1_000_000);
const RUNS = 7;
const DAY_MS = 86_400_000;
const SITE = 'site_bench';
const REFERRERS = [null, 'www.google.com', 'news.ycombinator.com', 't.co', null, null];
const COUNTRIES = ['DE', 'US', 'FR', 'GB', 'NL', 'SE', null];

function eventRow(v: number, ts: number, n: number): EventRow {
  const action = n % 10 === 9;
  const row: Omit<EventRow, 'event_id'> = {
    site_id: SITE,
    tenant_id: null,
    ts_ms: ts,
    type: action ? 'action' : 'pageview',
    profile: 'extended',
    visitor_key: `v${v}`,
    path_canon: `/p${(v * 7 + n) % 200}`,
    page_title: null,
    referrer_host: REFERRERS[v % REFERRERS.length],
    utm_source: v % 9 === 0 ? 'newsletter' : null,
    utm_medium: null,
    utm_campaign: null,
    has_click_id: false,
    country: COUNTRIES[v % COUNTRIES.length],
    region: null,
    city: null,
    device_type: v % 3 ? 'desktop' : 'mobile',
    browser_family: v % 2 ? 'Chrome' : 'Firefox',
    os_family: 'Linux',
    traffic_class: 'human',
    engagement_time_ms: 0,
    action_name: action ? 'Signup' : null,
    family: action ? 'custom' : null,
    event_name: action ? 'Signup' : null,
    action_id: null,
    action_target_host: null,
    form_id: null,
    form_action_path: null,
    channel: v % 6 === 1 ? 'Search' : 'Direct',
    prop_keys: [],
    prop_values: [],
  };
  return { ...row, event_id: eventIdentity(row as EventRow, 1) };
}

export async function run(): Promise<BenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-today-'));
  // three days on, the day is not live: its rollups are kept (live-days.ts)
  const store = await openDuckDbEventStore({ file: path.join(dir, 'events.duckdb'), tempDir: dir, clock: () => Date.now() + 3 * DAY_MS });
  try {
    const dayStart = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS;
    const visitors = EVENTS / 5;
    for (let c = 0; c < EVENTS; c += 200_000) {
      const rows: EventRow[] = [];
      for (let i = c; i < Math.min(EVENTS, c + 200_000); i++) {
        const v = Math.floor(i / 5);
        rows.push(eventRow(v, dayStart + Math.floor((v / visitors) * 8 * 3_600_000) + (i % 5) * 30_000, i));
      }
      await store.importBatch(rows, { reidentify: eventIdentity });
    }
    const conn = { connect: () => store.instance.connect(), release: (c: { closeSync(): void }) => c.closeSync() };
    const engines = { rollups: new DuckDbAnalyticsEngine(conn), raw: new DuckDbAnalyticsEngine({ ...conn, rollups: false }) };
    const base = {
      siteId: SITE,
      tenantIds: null,
      startMs: dayStart,
      endMs: dayStart + DAY_MS - 1,
      trafficClasses: ['human'],
      filters: {},
    } as const;
    const specs: Record<string, QuerySpec> = {
      'totals (visitors, pageviews, sessions, bounce rate, session time)': {
        ...base,
        metrics: ['visitors', 'pageviews', 'sessions', 'bounce_rate', 'avg_session_eng_time_ms'],
      },
      'top 10 pages (visitors, pageviews)': { ...base, metrics: ['visitors', 'pageviews'], dimension: 'page', limit: 10 },
      'top 10 sources (visitors)': { ...base, metrics: ['visitors'], dimension: 'source', limit: 10 },
      'top 10 countries (visitors)': { ...base, metrics: ['visitors'], dimension: 'country', limit: 10 },
    };
    const rows: BenchRow[] = [];
    for (const [label, spec] of Object.entries(specs)) {
      const ms: Record<string, number> = {};
      const answers: Record<string, string> = {};
      for (const [k, engine] of Object.entries(engines)) {
        const times: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          const t = performance.now();
          const answer = JSON.stringify(await engine.run(spec, { timeoutMs: 120_000 }));
          times.push(performance.now() - t);
          answers[k] ??= answer;
        }
        ms[k] = median(times);
      }
      if (answers.rollups !== answers.raw) throw new Error(`today: the rollups and the raw count answer ${label} differently`);
      rows.push({
        bench: name,
        case: `a day of ${EVENTS.toLocaleString('en-US')} events: ${label}, median of ${RUNS}`,
        'rollups ms': Math.round(ms.rollups * 10) / 10,
        'raw ms': Math.round(ms.raw * 10) / 10,
        'x rollups': Math.round((ms.raw / ms.rollups) * 10) / 10,
      });
    }
    // The site facts every request needs (its first and newest event) as the first read after a load
    // asks them (the load moved the data version, so no cache holds them): scanned from the events,
    // or kept by the store and widened by the load (site-edges.ts).
    await store.edges.of(SITE);
    const scans = store.edges.scans;
    const kept: number[] = [];
    const scanned: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      await store.importBatch([eventRow(visitors + i, dayStart + 9 * 3_600_000 + i, EVENTS + i)], { reidentify: eventIdentity });
      let t = performance.now();
      const [first, newest] = await Promise.all([engines.raw.firstEventAt(SITE), engines.raw.newestEventAt(SITE)]);
      scanned.push(performance.now() - t);
      t = performance.now();
      const edges = await store.edges.of(SITE);
      kept.push(performance.now() - t);
      if (edges.firstMs !== first?.getTime() || edges.newestMs !== newest?.getTime())
        throw new Error('today: the kept site facts differ from the scan');
    }
    if (store.edges.scans !== scans) throw new Error('today: a load made the kept site facts scan again');
    rows.push({
      bench: name,
      case: `the site's first and newest event after a load, ${EVENTS.toLocaleString('en-US')} events stored: kept (site-edges.ts) against a scan, median of ${RUNS}`,
      'kept ms': Math.round(median(kept) * 100) / 100,
      'scan ms': Math.round(median(scanned) * 10) / 10,
    });
    return rows;
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
