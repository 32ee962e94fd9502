// ClickHouse tables of the event store (docs/decisions.md (clickhouse)). Kept to what 18.16 and
// current ClickHouse both accept: MergeTree, Nullable, Date, Int64 ms timestamps (no DateTime64).
//
// events and sessions carry `gen`: the import that wrote the row. A (site, day) shows only the rows
// of its current generation, the newest one recorded in `ff_days` (the commit log); an import
// rewrites every day it touches under a new gen and commits with ONE insert into ff_days.
import { EVENT_ROW_FIELDS } from '../../ports/event-store.js';

export type RowField = (typeof EVENT_ROW_FIELDS)[number];

/** ClickHouse type of each EventRow field. */
export const ROW_TYPES: Record<RowField, string> = {
  event_id: 'String', site_id: 'String', tenant_id: 'Nullable(String)', ts_ms: 'Int64', type: 'String',
  profile: 'String', visitor_key: 'String', path_canon: 'Nullable(String)', page_title: 'Nullable(String)',
  referrer_host: 'Nullable(String)', utm_source: 'Nullable(String)', utm_medium: 'Nullable(String)',
  utm_campaign: 'Nullable(String)', has_click_id: 'UInt8', country: 'Nullable(String)', region: 'Nullable(String)',
  city: 'Nullable(String)', device_type: 'Nullable(String)', browser_family: 'Nullable(String)',
  os_family: 'Nullable(String)', traffic_class: 'String', engagement_time_ms: 'Int64',
  action_name: 'Nullable(String)', family: 'Nullable(String)', event_name: 'Nullable(String)',
  action_id: 'Nullable(String)', action_target_host: 'Nullable(String)', form_id: 'Nullable(String)',
  form_action_path: 'Nullable(String)', channel: 'String',
};

const ROW_COLUMNS = EVENT_ROW_FIELDS.filter((f) => f !== 'site_id' && f !== 'ts_ms');

/** events columns in DDL order: the read order first (site, day, time). */
export const EVENT_COLUMNS: [string, string][] = [
  ['site_id', 'String'],
  ['day', 'Date'],
  ['ts_ms', 'Int64'],
  ['gen', 'UInt64'],
  ['session_id', 'String'],
  ...ROW_COLUMNS.map((c): [string, string] => [c, ROW_TYPES[c]]),
];

/** sessions = StoredSession (src/domain/events.ts) + gen; booleans as UInt8. */
export const SESSION_COLUMNS: [string, string][] = [
  ['site_id', 'String'],
  ['day', 'Date'],
  ['start_ms', 'Int64'],
  ['gen', 'UInt64'],
  ['end_ms', 'Int64'],
  ['session_id', 'String'],
  ['tenant_id', 'Nullable(String)'],
  ['visitor_key', 'String'],
  ['profile', 'String'],
  ['traffic_class', 'String'],
  ['channel', 'String'],
  ...[
    'referrer_host', 'utm_source', 'utm_medium', 'utm_campaign', 'country', 'region', 'city', 'device_type',
    'browser_family', 'os_family', 'entry_page', 'exit_page',
  ].map((c): [string, string] => [c, 'Nullable(String)']),
  ['pageviews', 'Int64'],
  ['events', 'Int64'],
  ['engagement_ms', 'Int64'],
  ['meaningful_actions', 'Int64'],
  ['is_bounce', 'UInt8'],
  ['is_engaged', 'UInt8'],
];

/**
 * The commit log: one row per (site, day) an import committed, with that day's facts after it.
 * Not partitioned, so one INSERT of all an import's days is one part: visible all at once or not at all.
 */
export const DAYS_COLUMNS: [string, string][] = [
  ['site_id', 'String'],
  ['day', 'Date'],
  ['gen', 'UInt64'],
  ['events', 'UInt64'],
  ['first_ms', 'Int64'],
  ['last_ms', 'Int64'],
  ['committed_ms', 'Int64'],
];

export interface TableLayout {
  /** tables queries and imports name (Distributed ones on a cluster) */
  events: string;
  sessions: string;
  days: string;
  /** the MergeTree tables holding the rows (on every shard of a cluster) */
  eventsLocal: string;
  sessionsLocal: string;
  /** cluster name, when sharded */
  cluster: string | null;
}

export function tableLayout(cluster: string | null): TableLayout {
  return cluster
    ? { events: 'events', sessions: 'sessions', days: 'ff_days', eventsLocal: 'events_local', sessionsLocal: 'sessions_local', cluster }
    : { events: 'events', sessions: 'sessions', days: 'ff_days', eventsLocal: 'events', sessionsLocal: 'sessions', cluster: null };
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
export function ident(name: string): string {
  if (!IDENT.test(name)) throw new Error(`refusing ClickHouse identifier ${JSON.stringify(name)}`);
  return `\`${name}\``;
}

const cols = (c: [string, string][]) => c.map(([n, t]) => `${ident(n)} ${t}`).join(', ');

function mergeTree(db: string, table: string, columns: [string, string][], order: string): string {
  return `CREATE TABLE IF NOT EXISTS ${ident(db)}.${ident(table)} (${cols(columns)})
ENGINE = MergeTree PARTITION BY toYYYYMM(day) ORDER BY (${order})`;
}

/** DDL for one shard (or the only server): the MergeTree tables that hold rows. */
export function localDdl(db: string, t: TableLayout): string[] {
  return [
    `CREATE DATABASE IF NOT EXISTS ${ident(db)}`,
    mergeTree(db, t.eventsLocal, EVENT_COLUMNS, 'site_id, day, ts_ms'),
    mergeTree(db, t.sessionsLocal, SESSION_COLUMNS, 'site_id, day, start_ms'),
  ];
}

/**
 * A visitor's day stays on one shard (hash of site and visitor key), so a session and its events
 * are always together: joins between them run shard-locally.
 */
export const SHARDING_KEY = 'cityHash64(site_id, visitor_key)';

/** DDL for the server queries and imports go to: Distributed tables (cluster) and the commit log. */
export function coordinatorDdl(db: string, t: TableLayout): string[] {
  const out = [`CREATE DATABASE IF NOT EXISTS ${ident(db)}`];
  if (t.cluster) {
    for (const [table, local, columns] of [
      [t.events, t.eventsLocal, EVENT_COLUMNS],
      [t.sessions, t.sessionsLocal, SESSION_COLUMNS],
    ] as const) {
      out.push(`CREATE TABLE IF NOT EXISTS ${ident(db)}.${ident(table)} (${cols(columns)})
ENGINE = Distributed(${ident(t.cluster)}, ${ident(db)}, ${ident(local)}, ${SHARDING_KEY})`);
    }
  }
  out.push(`CREATE TABLE IF NOT EXISTS ${ident(db)}.${ident(t.days)} (${cols(DAYS_COLUMNS)})
ENGINE = MergeTree ORDER BY (site_id, day, gen)`);
  return out;
}

/** Staging table of one import (plain rows as received; dropped at commit or abort). */
export function stageDdl(db: string, table: string): string {
  const columns = EVENT_ROW_FIELDS.map((f): [string, string] => [f, ROW_TYPES[f]]);
  return `CREATE TABLE ${ident(db)}.${ident(table)} (${cols(columns)}) ENGINE = MergeTree ORDER BY (site_id, ts_ms)`;
}
