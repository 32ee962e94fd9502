// What the live loader's loads cost the DuckDB store, without a server: the collect bench's traffic
// (20,000 visitors over 200 pages, each visitor on one page; the tracker's mix: 70% pageviews, 20%
// engagement, 10% custom actions; 10,000 records a second of event time) handed to a fresh store the
// way the loader hands its spool, LOADS loads of RECORDS records (default 10 of 13,000), each one
// import: stage, dedupe, sessions, rollups, commit. Each load's wall and CPU time (DuckDB's threads
// included), next to the floor measured in the same run: DuckDB appending the same records to plain
// tables, the events from the same NDJSON and the engagement rows from theirs (what storing them costs
// before sessions and rollups); on both sides the events come encoded, as the spool holds them. Collection's aim
// (half of a bare server's 202s, `npm run bench -- collect`) needs the loads to cost little more
// than that floor: on two cores the request path and the load generator take the rest. The loads
// run twice: into a live day (the store's clock on it: the rollups left alone, live-days.ts) and into a
// closed one (every load moves the rollups by its delta, as every live load did before live days).
// Then what a day's size adds: small loads (2,000 records, a quarter of them from visitors seen
// earlier that day) on a day of BENCH_LOADS_DAY_EVENTS stored events (default 1,000,000), next to
// the same loads on a store holding nothing: a load reads the stored events of the visitor-days it
// touches, and finding them means reading the whole day's rows (docs/decisions/collection-at-the-floor.md);
// the day is live there.
// BENCH_LOADS, BENCH_LOAD_RECORDS set the loads; run alone: `npx tsx bench/loads.ts`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openDuckDbEventStore, type DuckDbEventStore } from '../src/engines/duckdb/duckdb-event-store.js';
import { eventIdentity } from '../src/ingest/parse/identity.js';
import { encodeEventRows, type EngagementRow, type EventRow } from '../src/ports/event-store.js';
import { engagementSelectSql, stageSelectSql } from '../src/engines/duckdb/schema.js';
import { sqlString } from '../src/engines/duckdb/sql-string.js';
import type { BenchRow } from './run.js';

export const name = 'loads';
const LOADS = Number(process.env.BENCH_LOADS ?? 10);
const RECORDS = Number(process.env.BENCH_LOAD_RECORDS ?? 13_000);
const RECORDS_PER_S = 10_000;
const DAY_EVENTS = Number(process.env.BENCH_LOADS_DAY_EVENTS ?? 1_000_000);
const SMALL_LOAD = 2_000;
const SMALL_LOADS = 3;
const SITE = 'site_bench';
/** 2026-11-26 09:00 UTC: the loads stay within one UTC day */
const START_MS = Date.UTC(2026, 10, 26, 9);

/** The n-th record of the traffic: an event, or engagement for the visitor's page. */
function record(n: number): { event?: EventRow; engagement?: EngagementRow } {
  const visitor = (n * 7919) % 20_000;
  const ts = START_MS + Math.floor((n * 1000) / RECORDS_PER_S);
  const kind = n % 10;
  if (kind >= 7 && kind < 9)
    return {
      engagement: { site_id: SITE, visitor_key: visitorKey(visitor), ts_ms: ts, path_canon: pageOf(n), engagement_ms: 1000 + (n % 30_000) },
    };
  return { event: eventRow(visitor, ts, n) };
}

const visitorKey = (visitor: number) => `v${visitor.toString(16).padStart(15, '0')}`;
const pageOf = (n: number) => `/docs/page-${(n * 31) % 200}`;

/** The n-th record's event (a custom action when n ends in 9, else a pageview) for `visitor` at `ts`. */
function eventRow(visitor: number, ts: number, n: number): EventRow {
  const kind = n % 10;
  const action = kind === 9;
  const row: Omit<EventRow, 'event_id'> = {
    site_id: SITE,
    tenant_id: null,
    ts_ms: ts,
    type: action ? 'action' : 'pageview',
    profile: 'extended',
    visitor_key: visitorKey(visitor),
    path_canon: pageOf(n),
    page_title: null,
    referrer_host: kind === 0 ? 'google.com' : null,
    utm_source: n % 5 === 0 ? 'newsletter' : null,
    utm_medium: null,
    utm_campaign: null,
    has_click_id: false,
    country: null,
    region: null,
    city: null,
    device_type: 'desktop',
    browser_family: 'Chrome',
    os_family: 'Linux',
    traffic_class: 'human',
    engagement_time_ms: 0,
    action_name: action ? 'Signup' : null,
    family: action ? 'custom' : null,
    event_name: action ? 'Signup' : null,
    action_id: action ? 'hero' : null,
    action_target_host: null,
    form_id: null,
    form_action_path: null,
    channel: kind === 0 ? 'Search' : 'Direct',
    prop_keys: [],
    prop_values: [],
  };
  return { ...row, event_id: eventIdentity(row, 1) };
}

function batch(load: number): { events: EventRow[]; engagement: EngagementRow[] } {
  const events: EventRow[] = [];
  const engagement: EngagementRow[] = [];
  for (let n = load * RECORDS; n < (load + 1) * RECORDS; n++) {
    const r = record(n);
    if (r.event) events.push(r.event);
    else engagement.push(r.engagement!);
  }
  return { events, engagement };
}

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

/** The day's first 8 hours: DAY_EVENTS events of DAY_EVENTS / 5 visitors (numbered from 100,000), 5 each. */
function* dayChunks(chunk: number): Generator<EventRow[]> {
  const visitors = DAY_EVENTS / 5;
  const dayStart = START_MS - 9 * 3_600_000;
  for (let c = 0; c < DAY_EVENTS; c += chunk) {
    const rows: EventRow[] = [];
    for (let i = c; i < Math.min(DAY_EVENTS, c + chunk); i++) {
      const v = Math.floor(i / 5);
      rows.push(eventRow(100_000 + v, dayStart + Math.floor((v / visitors) * 8 * 3_600_000) + (i % 5) * 30_000, i));
    }
    yield rows;
  }
}

/** Small load `k`: SMALL_LOAD events at 08:30 and after, every fourth from a visitor of the day's fill. */
function smallLoad(k: number): EventRow[] {
  const rows: EventRow[] = [];
  for (let i = 0; i < SMALL_LOAD; i++) {
    const n = k * SMALL_LOAD + i;
    const visitor = i % 4 === 0 ? 100_000 + ((n * 7919) % (DAY_EVENTS / 5)) : 1_000_000 + n;
    rows.push(eventRow(visitor, START_MS - 1_800_000 + n, n));
  }
  return rows;
}

/**
 * One load as the loader hands it (checkpointed at `position`): its wall and CPU ms, and what it stored.
 * The events come encoded, as the spool holds them (the loader joins their records' payloads), so the
 * encoding is done before the timer, as the floor's is; the engagement rows as parsed objects, as the
 * loader parses its `G` records.
 */
async function timedLoad(store: DuckDbEventStore, position: number, events: EventRow[], engagement: EngagementRow[] = []) {
  const ndjson = encodeEventRows(events);
  const t = performance.now();
  const u = process.cpuUsage();
  const session = await store.beginImport({ reidentify: eventIdentity, checkpoint: { source: 'bench', position } });
  await session.appendEncoded(ndjson, events.length);
  if (engagement.length) await session.appendEngagement(engagement);
  const r = await session.commit();
  return { ms: performance.now() - t, cpu: cpuMs(process.cpuUsage(u)), imported: r.imported };
}

/** CPU ms of each small load on `store`. */
async function smallLoads(store: DuckDbEventStore): Promise<number[]> {
  const cpu: number[] = [];
  for (let k = 0; k < SMALL_LOADS; k++) cpu.push((await timedLoad(store, k + 1, smallLoad(k))).cpu);
  return cpu;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** LOADS loads of the collect traffic into a fresh store whose clock is `clock`: rows for a few of them, their median and their total. */
async function loadSequence(dir: string, label: string, clock: () => number, floor: number[]): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const store = await openDuckDbEventStore({
    file: path.join(dir, `events-${label.replace(/[^a-z]+/g, '-')}.duckdb`),
    tempDir: dir,
    clock,
  });
  const loads: { ms: number; cpu: number; events: number; stored: number }[] = [];
  let stored = 0;
  /** the store's close: a checkpoint of what the last loads left in the WAL */
  let closeCpu = 0;
  try {
    for (let i = 0; i < LOADS; i++) {
      const { events, engagement } = batch(i);
      const r = await timedLoad(store, i + 1, events, engagement);
      loads.push({ ms: r.ms, cpu: r.cpu, events: events.length, stored });
      stored += r.imported;
    }
  } finally {
    const u = process.cpuUsage();
    await store.close();
    closeCpu = cpuMs(process.cpuUsage(u));
  }
  const perRecord = (cpu: number) => Math.round((1000 * cpu) / RECORDS);
  for (const k of [0, Math.floor(LOADS / 2), LOADS - 1]) {
    const l = loads[k];
    rows.push({
      bench: name,
      case: `${label}: load ${k + 1} of ${LOADS} (${l.stored} events stored before it)`,
      records: RECORDS,
      'wall ms': Math.round(l.ms),
      'CPU ms': Math.round(l.cpu),
      'CPU µs/record': perRecord(l.cpu),
      'floor CPU µs/record': perRecord(floor[k]),
    });
  }
  const cpu = loads.map((l) => l.cpu);
  rows.push({
    bench: name,
    case: `${label}: every load, median (${LOADS} loads)`,
    records: RECORDS,
    'wall ms': Math.round(median(loads.map((l) => l.ms))),
    'CPU ms': Math.round(median(cpu)),
    'CPU µs/record': perRecord(median(cpu)),
    'floor CPU µs/record': perRecord(median(floor)),
    'x floor': (median(cpu) / median(floor)).toFixed(1),
  });
  // what a median leaves out: checkpoints (every few loads, and the one at close)
  const total = cpu.reduce((a, b) => a + b, 0) + closeCpu;
  rows.push({
    bench: name,
    case: `${label}: all ${LOADS} loads and the store's close, per record`,
    records: RECORDS * LOADS,
    'CPU ms': Math.round(total),
    'CPU µs/record': Math.round((1000 * total) / (RECORDS * LOADS)),
    'floor CPU µs/record': Math.round((1000 * floor.reduce((a, b) => a + b, 0)) / (RECORDS * LOADS)),
  });
  return rows;
}

export async function run(): Promise<BenchRow[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-loads-'));
  const rows: BenchRow[] = [];
  try {
    // the floor: the same records appended to plain tables, load after load: the events from the same
    // NDJSON (encoded before the timer, as for the loads), the engagement rows from theirs, each
    // written to its file and read by DuckDB within the timer, as the store's import does
    const floorDb = await DuckDBInstance.create(path.join(dir, 'floor.duckdb'), { threads: String(os.availableParallelism()) });
    const fc = await floorDb.connect();
    const floor: number[] = [];
    let engagementTable = false;
    for (let i = 0; i < LOADS; i++) {
      const { events, engagement } = batch(i);
      const eventsText = encodeEventRows(events);
      const engagementText = engagement.map((r) => JSON.stringify(r)).join('\n') + '\n';
      const eventsFile = path.join(dir, `floor-${i}.ndjson`);
      const engagementFile = path.join(dir, `floor-${i}-eng.ndjson`);
      const u = process.cpuUsage();
      await fs.promises.writeFile(eventsFile, eventsText);
      await fc.run(`${i === 0 ? 'CREATE TABLE plain AS' : 'INSERT INTO plain'} ${stageSelectSql(sqlString(eventsFile))}`);
      if (engagement.length) {
        await fs.promises.writeFile(engagementFile, engagementText);
        await fc.run(
          `${engagementTable ? 'INSERT INTO plain_engagement' : 'CREATE TABLE plain_engagement AS'} ${engagementSelectSql(sqlString(engagementFile))}`,
        );
        engagementTable = true;
      }
      await fc.run('CHECKPOINT');
      floor.push(cpuMs(process.cpuUsage(u)));
    }
    fc.closeSync();
    floorDb.closeSync();

    // The loads with their day live (the store's clock on that day: the rollups are left alone and
    // reads count the day from the events, live-days.ts) and with their day closed (the clock three
    // days on: every load moves the rollups by its delta, as every load did before live days).
    for (const [label, clock] of [
      ['day live', () => START_MS],
      ['day closed, rollups moved', () => START_MS + 3 * 86_400_000],
    ] as const) {
      rows.push(...(await loadSequence(dir, label, clock, floor)));
    }

    // what a day's size adds to a small load
    const empty = await openDuckDbEventStore({ file: path.join(dir, 'empty.duckdb'), tempDir: dir, clock: () => START_MS });
    const onEmpty = await smallLoads(empty).finally(() => empty.close());
    const day = await openDuckDbEventStore({ file: path.join(dir, 'day.duckdb'), tempDir: dir, clock: () => START_MS });
    let onDay: number[];
    try {
      for (const chunk of dayChunks(250_000)) {
        const session = await day.beginImport({});
        await session.appendEncoded(encodeEventRows(chunk), chunk.length);
        await session.commit();
      }
      onDay = await smallLoads(day);
    } finally {
      await day.close();
    }
    for (const [label, cpu] of [
      ['nothing stored', onEmpty],
      [`a day of ${DAY_EVENTS.toLocaleString('en-US')} stored events`, onDay],
    ] as const) {
      rows.push({
        bench: name,
        case: `a load of ${SMALL_LOAD.toLocaleString('en-US')} records (a quarter from visitors seen that day) on ${label}, median of ${SMALL_LOADS}`,
        records: SMALL_LOAD,
        'CPU ms': Math.round(median(cpu)),
        'CPU µs/record': Math.round((1000 * median(cpu)) / SMALL_LOAD),
        'x nothing stored': (median(cpu) / median(onEmpty)).toFixed(1),
      });
    }
    return rows;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
