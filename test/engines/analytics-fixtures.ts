// Hand-built event sets for analytics tests: a plain sessionizer (docs/product.md §4.2, §8.3) and a DuckDB
// loader using the event store's own DDL, so the engine reads the tables the importer writes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import type { StoredEvent, StoredSession, TrafficClass, Channel, ActionFamily, DeviceType } from '../../src/domain/events.js';
import { MEANINGFUL_FAMILIES, SIMPLE_ACTIONS, SESSION_GAP_MS, ENGAGED_MS } from '../../src/domain/events.js';
import type { Profile } from '../../src/domain/plans.js';
import { EVENTS_DDL, SESSIONS_DDL } from '../../src/engines/duckdb/schema.js';

export type TestEvent = StoredEvent & { session_id: string; channel: Channel };

export const BASE_MS = Date.UTC(2025, 2, 1);
export const DAY = 86_400_000;
export const SITE = 'site_a';

export interface SiteProfile {
  profile: Profile;
  effectiveAtMs: number | null;
}

export function profileAt(site: SiteProfile, ts: number): Profile {
  if (site.effectiveAtMs === null || ts >= site.effectiveAtMs) return site.profile;
  return site.profile === 'strict' ? 'extended' : 'strict';
}

/** The raw draw of one event, before profile stamping. */
export interface EventDraw {
  site: string;
  visitor: string;
  tenant: string | null;
  ts: number;
  type: 'pageview' | 'action';
  page: string | null;
  referrer: string | null;
  channel: Channel;
  utm: [string | null, string | null, string | null];
  country: string | null;
  region: string | null;
  city: string | null;
  device: DeviceType | null;
  browser: string | null;
  os: string | null;
  traffic: TrafficClass;
  eng: number;
  action: string;
  family: ActionFamily;
}

// code points chosen to tell UTF-16 order from code-point order: U+FFFD sorts before U+1F600
// in code points but after it in UTF-16 units
const PAGES = ['/', '/a', '/b', '/café', '/Z', '/\uFFFD', '/😀', '/a/b'];
const ACTIONS: [string, ActionFamily][] = [
  ['ui.click', 'instrumentation'],
  ['outbound.click', 'outbound'],
  ['file.download', 'downloads'],
  ['form.submit', 'forms'],
  ['error.js', 'errors'],
  ['signup', 'custom'],
];

export const eventDrawArb = (sites: string[] = [SITE]): fc.Arbitrary<EventDraw> =>
  fc
    .record({
      site: fc.constantFrom(...sites),
      visitor: fc.constantFrom('k1', 'k2', 'k3', 'k4'),
      tenant: fc.constantFrom(null, 't1', 't2'),
      day: fc.integer({ min: 0, max: 2 }),
      hour: fc.constantFrom(0, 1, 12, 23),
      // a quarter of the draws on the hour's first instant: events of a visitor at one instant (whose
      // order is a documented rule: pageview first, then event_id) come up in most datasets
      minute: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 0, max: 59 }) }, { weight: 1, arbitrary: fc.constant(0) }),
      ms: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 0, max: 59_999 }) }, { weight: 1, arbitrary: fc.constant(0) }),
      type: fc.constantFrom('pageview', 'pageview', 'action') as fc.Arbitrary<'pageview' | 'action'>,
      page: fc.constantFrom(...PAGES, null),
      referrer: fc.constantFrom(null, 'google.com', 'news.ycombinator.com', 'example.org'),
      channel: fc.constantFrom<Channel>('Direct', 'Search', 'Referral', 'Social'),
      utm: fc.tuple(fc.constantFrom(null, 'nl', 'tw'), fc.constantFrom(null, 'email', 'cpc'), fc.constantFrom(null, 'spring')),
      country: fc.constantFrom(null, 'DE', 'FR'),
      region: fc.constantFrom(null, 'BY', 'IDF'),
      city: fc.constantFrom(null, 'München', 'Paris'),
      device: fc.constantFrom<DeviceType | null>('desktop', 'mobile', null),
      browser: fc.constantFrom(null, 'Firefox', 'Chrome'),
      os: fc.constantFrom(null, 'Linux', 'iOS'),
      traffic: fc.constantFrom<TrafficClass>('human', 'human', 'ai_agent', 'bot', 'ai_bot'),
      eng: fc.constantFrom(0, 0, 500, 4_000, 12_000),
      action: fc.constantFrom(...ACTIONS),
    })
    .map((r) => ({
      site: r.site,
      visitor: r.visitor,
      tenant: r.tenant,
      ts: BASE_MS + r.day * DAY + r.hour * 3_600_000 + r.minute * 60_000 + r.ms,
      type: r.type,
      page: r.type === 'pageview' ? (r.page ?? '/') : r.page,
      referrer: r.referrer,
      channel: r.channel,
      utm: r.utm,
      country: r.country,
      region: r.region,
      city: r.city,
      device: r.device,
      browser: r.browser,
      os: r.os,
      traffic: r.traffic,
      eng: r.eng,
      action: r.action[0],
      family: r.action[1],
    }));

/** Stamps each draw with the profile in force (strict drops extended fields and rich actions). */
export function stamp(draws: readonly EventDraw[], profiles: Record<string, SiteProfile>): StoredEvent[] {
  const out: StoredEvent[] = [];
  draws.forEach((d, i) => {
    const profile = profileAt(profiles[d.site] ?? { profile: 'extended', effectiveAtMs: null }, d.ts);
    const strict = profile === 'strict';
    if (strict && d.type === 'action' && !(SIMPLE_ACTIONS as readonly string[]).includes(d.action)) return;
    out.push({
      event_id: `ev${i}`,
      site_id: d.site,
      tenant_id: d.tenant,
      ts_ms: d.ts,
      type: d.type,
      profile,
      visitor_key: d.visitor,
      path_canon: d.page,
      page_title: d.page === null ? null : `Title ${d.page}`,
      referrer_host: d.referrer,
      utm_source: strict ? null : d.utm[0],
      utm_medium: strict ? null : d.utm[1],
      utm_campaign: strict ? null : d.utm[2],
      has_click_id: false,
      country: d.country,
      region: strict ? null : d.region,
      city: strict ? null : d.city,
      device_type: d.device,
      browser_family: d.browser,
      os_family: d.os,
      traffic_class: d.traffic,
      engagement_time_ms: d.eng,
      action_name: d.type === 'action' ? d.action : null,
      family: d.type === 'action' ? d.family : null,
      event_name: null,
      action_id: null,
      action_target_host: null,
      form_id: null,
      form_action_path: null,
    });
  });
  return out;
}

/**
 * A plain sessionizer: (site, tenant, key), 30 min gap, split at 00:00 UTC; events in time order, a
 * pageview first on ties, then by event_id (docs/decisions/clickhouse.md: the tie order both engines keep).
 */
export function sessionize(
  events: readonly StoredEvent[],
  channelOf: (e: StoredEvent) => Channel,
): {
  events: TestEvent[];
  sessions: StoredSession[];
} {
  const groups = new Map<string, StoredEvent[]>();
  for (const e of events) {
    const k = JSON.stringify([e.site_id, e.tenant_id, e.visitor_key]);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(e);
  }
  const outEvents: TestEvent[] = [];
  const sessions: StoredSession[] = [];
  let n = 0;
  for (const list of groups.values()) {
    list.sort(
      (a, b) =>
        a.ts_ms - b.ts_ms ||
        (a.type === b.type ? 0 : a.type === 'pageview' ? -1 : 1) ||
        (a.event_id < b.event_id ? -1 : a.event_id > b.event_id ? 1 : 0),
    );
    let current: StoredEvent[] = [];
    const flush = () => {
      if (!current.length) return;
      const id = `s${++n}`;
      const first = current[0];
      const pvs = current.filter((e) => e.type === 'pageview');
      const meaningful = current.filter((e) => e.type === 'action' && MEANINGFUL_FAMILIES.includes(e.family!)).length;
      const eng = current.reduce((s, e) => s + e.engagement_time_ms, 0);
      const channel = channelOf(first);
      sessions.push({
        session_id: id,
        site_id: first.site_id,
        tenant_id: first.tenant_id,
        visitor_key: first.visitor_key,
        day: new Date(first.ts_ms).toISOString().slice(0, 10),
        start_ms: first.ts_ms,
        end_ms: current[current.length - 1].ts_ms,
        profile: first.profile,
        traffic_class: first.traffic_class,
        channel,
        referrer_host: first.referrer_host,
        utm_source: first.utm_source,
        utm_medium: first.utm_medium,
        utm_campaign: first.utm_campaign,
        country: first.country,
        region: first.region,
        city: first.city,
        device_type: first.device_type,
        browser_family: first.browser_family,
        os_family: first.os_family,
        entry_page: pvs.length ? pvs[0].path_canon : null,
        exit_page: pvs.length ? pvs[pvs.length - 1].path_canon : null,
        pageviews: pvs.length,
        events: current.length,
        engagement_ms: eng,
        meaningful_actions: meaningful,
        is_bounce: pvs.length === 1 && meaningful === 0,
        is_engaged: pvs.length >= 2 || eng >= ENGAGED_MS || meaningful > 0,
      });
      for (const e of current) outEvents.push({ ...e, session_id: id, channel: channelOf(e) });
      current = [];
    };
    for (const e of list) {
      const prev = current[current.length - 1];
      if (prev && (e.ts_ms - prev.ts_ms > SESSION_GAP_MS || Math.floor(e.ts_ms / DAY) !== Math.floor(prev.ts_ms / DAY))) flush();
      current.push(e);
    }
    flush();
  }
  return { events: outEvents, sessions };
}

/** Builds a dataset from draws: stamped, sessionized (channel as drawn). */
export function dataset(draws: readonly EventDraw[], profiles: Record<string, SiteProfile>) {
  const channels = new Map<string, Channel>();
  draws.forEach((d, i) => {
    channels.set(`ev${i}`, d.channel);
  });
  return sessionize(stamp(draws, profiles), (e) => channels.get(e.event_id)!);
}

export interface TestDb {
  instance: DuckDBInstance;
  conn: DuckDBConnection;
  close(): void;
}

export async function openTestDb(): Promise<TestDb> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  await conn.run(EVENTS_DDL);
  await conn.run(SESSIONS_DDL);
  return {
    instance,
    conn,
    close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}

/** Loads rows through a temporary NDJSON file (INSERT ... BY NAME, so column order does not matter). */
export async function load(db: TestDb, data: { events: readonly TestEvent[]; sessions: readonly StoredSession[] }): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-analytics-'));
  try {
    const write = async (table: string, rows: readonly object[], extra: (r: any) => object) => {
      if (!rows.length) return;
      const file = path.join(dir, `${table}.ndjson`);
      fs.writeFileSync(file, rows.map((r) => JSON.stringify({ ...r, ...extra(r) })).join('\n') + '\n');
      const cols = await db.conn.runAndReadAll(
        `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = '${table}' ORDER BY ordinal_position`,
      );
      const spec = cols
        .getRowObjectsJS()
        .map((c) => `'${c.column_name}': '${c.data_type}'`)
        .join(', ');
      await db.conn.run(
        `INSERT INTO ${table} BY NAME SELECT * FROM read_json('${file}', format = 'newline_delimited', columns = {${spec}})`,
      );
    };
    // events without custom properties: two empty arrays, as the store holds them (never NULL)
    await write('events', data.events, (e: TestEvent) => ({
      day: new Date(e.ts_ms).toISOString().slice(0, 10),
      prop_keys: [],
      prop_values: [],
    }));
    await write('sessions', data.sessions, () => ({}));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
