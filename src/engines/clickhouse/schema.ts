// ClickHouse tables of the event store (docs/decisions/scale-stack.md). Kept to what 18.16 and
// current ClickHouse both accept: MergeTree, Nullable, Date, Int64 ms timestamps (no DateTime64).
//
// Every server of a cluster (or the one server) holds the rows of its own visitors in the same
// tables: events, sessions and the daily rollups (daily_rollups, daily_page_titles, daily_actions). Each row carries `gen`, the import that wrote it:
// a (site, day) of a server shows only the rows of its current generation, the newest one that
// server's commit log `ff_days` records (at or before the generation a read is pinned to). An import
// rewrites each day it adds events to under a new gen and commits with ONE insert into the first
// server's ff_days, the authority; the other servers' logs are copies of their own rows.
import { createHash } from 'node:crypto';
import { EVENT_ROW_FIELDS, PROP_FIELDS } from '../../ports/event-store.js';
import { clickhouseDialect } from '../sql/dialect.js';
import { compileRollupExpansions } from '../sql/write/rollup-build.js';
import { ATOMS } from '../../domain/query/metrics.js';
import { ACTION_IDENTITY, ACTIONS_COLUMNS, ACTIONS_TABLE, PAGE_TITLES_TABLE, ROLLUP_TABLE } from '../sql/rollup-tables.js';

export type RowField = (typeof EVENT_ROW_FIELDS)[number];

/** ClickHouse type of each EventRow field. */
export const ROW_TYPES: Record<RowField, string> = {
  event_id: 'String',
  site_id: 'String',
  tenant_id: 'Nullable(String)',
  ts_ms: 'Int64',
  type: 'String',
  profile: 'String',
  visitor_key: 'String',
  path_canon: 'Nullable(String)',
  page_title: 'Nullable(String)',
  referrer_host: 'Nullable(String)',
  utm_source: 'Nullable(String)',
  utm_medium: 'Nullable(String)',
  utm_campaign: 'Nullable(String)',
  has_click_id: 'UInt8',
  country: 'Nullable(String)',
  region: 'Nullable(String)',
  city: 'Nullable(String)',
  device_type: 'Nullable(String)',
  browser_family: 'Nullable(String)',
  os_family: 'Nullable(String)',
  traffic_class: 'String',
  engagement_time_ms: 'Int64',
  action_name: 'Nullable(String)',
  family: 'Nullable(String)',
  event_name: 'Nullable(String)',
  action_id: 'Nullable(String)',
  action_target_host: 'Nullable(String)',
  form_id: 'Nullable(String)',
  form_action_path: 'Nullable(String)',
  channel: 'String',
  // 18.16 has no Map: custom properties are two parallel arrays (an Array's default is [], never NULL)
  prop_keys: 'Array(String)',
  prop_values: 'Array(String)',
};

const isProp = (f: string) => (PROP_FIELDS as readonly string[]).includes(f);

/** EventRow fields other than the leading site_id and ts_ms and the trailing custom properties, in wire order. */
export const ROW_COLUMNS = EVENT_ROW_FIELDS.filter((f) => f !== 'site_id' && f !== 'ts_ms' && !isProp(f));

/** The custom property columns, which a database of the release before them gets added at open (addLifecycleColumns). */
export const PROP_COLUMNS: [string, string][] = PROP_FIELDS.map((f): [string, string] => [f, ROW_TYPES[f]]);

/**
 * events columns in DDL order. import_id (the import that stored the event first; NULL for live
 * collection) and then the custom properties come last: a database of the release before each gets the
 * columns added (ADD COLUMN appends).
 */
export const EVENT_COLUMNS: [string, string][] = [
  ['site_id', 'String'],
  ['day', 'Date'],
  ['ts_ms', 'Int64'],
  ['gen', 'UInt64'],
  ['session_id', 'String'],
  ...ROW_COLUMNS.map((c): [string, string] => [c, ROW_TYPES[c]]),
  ['import_id', 'Nullable(String)'],
  ...PROP_COLUMNS,
];

/** The session attributes taken from a session's first event (StoredSession). */
export const FIRST_EVENT_COLUMNS = [
  'profile',
  'traffic_class',
  'channel',
  'referrer_host',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'country',
  'region',
  'city',
  'device_type',
  'browser_family',
  'os_family',
] as const;

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
  ...FIRST_EVENT_COLUMNS.map((c): [string, string] => [c, ROW_TYPES[c]]),
  ['entry_page', 'Nullable(String)'],
  ['exit_page', 'Nullable(String)'],
  ['pageviews', 'Int64'],
  ['events', 'Int64'],
  ['engagement_ms', 'Int64'],
  ['meaningful_actions', 'Int64'],
  ['is_bounce', 'UInt8'],
  ['is_engaged', 'UInt8'],
];

/** daily_rollups: ROLLUP_COLUMNS (sql/rollup-tables.ts) + day and gen for visibility. */
export const ROLLUP_TABLE_COLUMNS: [string, string][] = [
  ['site_id', 'String'],
  ['day_ms', 'Int64'],
  ['all_tenants', 'UInt8'],
  ['tenant_id', 'Nullable(String)'],
  ['traffic', 'String'],
  ['dim', 'String'],
  ['dim_key', 'Nullable(String)'],
  ['filter_dim', 'String'],
  ['filter_key', 'Nullable(String)'],
  ...ATOMS.map((a): [string, string] => [a, 'Int64']),
  ['day', 'Date'],
  ['gen', 'UInt64'],
];

/** daily_page_titles: PAGE_TITLES_COLUMNS (sql/rollup-tables.ts) + day and gen. */
export const TITLE_TABLE_COLUMNS: [string, string][] = [
  ['site_id', 'String'],
  ['day_ms', 'Int64'],
  ['tenant_id', 'Nullable(String)'],
  ['traffic_class', 'String'],
  ['path_canon', 'String'],
  ['ts_ms', 'Int64'],
  ['event_id', 'String'],
  ['page_title', 'String'],
  ['day', 'Date'],
  ['gen', 'UInt64'],
];

/** daily_actions: ACTIONS_COLUMNS (sql/rollup-tables.ts) + day and gen. */
export const ACTIONS_TABLE_COLUMNS: [string, string][] = [
  ...ACTIONS_COLUMNS.map((c): [string, string] => [
    c,
    c === 'day_ms' || c === 'sessions' || c === 'occurrences'
      ? 'Int64'
      : c === 'tenant_id' || c === 'dim_key' || (ACTION_IDENTITY as readonly string[]).includes(c)
        ? 'Nullable(String)'
        : 'String',
  ]),
  ['day', 'Date'],
  ['gen', 'UInt64'],
];

/** Columns the commit log gained with the data lifecycle (a database of the release before gets them added). */
export const LOG_LIFECYCLE_COLUMNS: [string, string][] = [
  ['delta', 'Int64 DEFAULT 0'],
  ['import_id', "String DEFAULT ''"],
];

/**
 * The commit log: one row per (site, day, shard) an import rewrote, with that shard's facts of the
 * day after it (`import_id`: the import it was, '' for none). Not partitioned, so one INSERT of all an
 * import's rows is one part: visible all at once or not at all. Rows of shard 0 are not days but
 * records committed with them (commit-log.ts): event counts (`delta`), imports, lifecycle work.
 */
export const DAYS_COLUMNS: [string, string][] = [
  ['site_id', 'String'],
  ['day', 'Date'],
  ['gen', 'UInt64'],
  ['shard', 'UInt32'],
  ['events', 'UInt64'],
  ['first_ms', 'Int64'],
  ['last_ms', 'Int64'],
  ['committed_ms', 'Int64'],
  ...LOG_LIFECYCLE_COLUMNS,
];

export interface TableLayout {
  events: string;
  sessions: string;
  rollups: string;
  titles: string;
  actions: string;
  /** the rollup build's two constant maps (views, named after their content) */
  trafficMap: string;
  trafficMasks: string;
  /** the commit log (on every server) */
  days: string;
  /** cluster name, when sharded */
  cluster: string | null;
}

const EXPANSIONS = compileRollupExpansions(clickhouseDialect);
const named = (prefix: string, sql: string) => `${prefix}_${createHash('sha256').update(sql).digest('hex').slice(0, 12)}`;

export function tableLayout(cluster: string | null): TableLayout {
  return {
    events: 'events',
    sessions: 'sessions',
    rollups: ROLLUP_TABLE,
    titles: PAGE_TITLES_TABLE,
    actions: ACTIONS_TABLE,
    trafficMap: named('ff_traffic_map', EXPANSIONS.trafficMap.sql),
    trafficMasks: named('ff_traffic_masks', EXPANSIONS.trafficMasks.sql),
    days: 'ff_days',
    cluster,
  };
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
export function ident(name: string): string {
  if (!IDENT.test(name)) throw new Error(`refusing ClickHouse identifier ${JSON.stringify(name)}`);
  return `\`${name}\``;
}

export const cols = (c: readonly [string, string][]) => c.map(([n, t]) => `${ident(n)} ${t}`).join(', ');

/** `granularity`: rows per index mark (ClickHouse's default 8192 unless given). */
function mergeTree(db: string, table: string, columns: [string, string][], order: string, granularity?: number): string {
  return `CREATE TABLE IF NOT EXISTS ${ident(db)}.${ident(table)} (${cols(columns)})
ENGINE = MergeTree PARTITION BY toYYYYMM(day) ORDER BY (${order})${granularity ? ` SETTINGS index_granularity = ${granularity}` : ''}`;
}

/**
 * The rollup tables' reads each take a small slice (a site, grouping, traffic and tenant scope over
 * some days) from every part: a finer index reads less of what the slice does not need.
 */
const ROLLUP_GRANULARITY = 1024;

/**
 * DDL for every server. Sort keys serve the reads: a site's days first, then the generation (the
 * visibility filter), then what the reads filter on next (event type; a rollup's grouping and scope).
 */
export function serverDdl(db: string, t: TableLayout): string[] {
  return [
    `CREATE DATABASE IF NOT EXISTS ${ident(db)}`,
    mergeTree(db, t.events, EVENT_COLUMNS, 'site_id, day, gen, type, ts_ms'),
    mergeTree(db, t.sessions, SESSION_COLUMNS, 'site_id, day, gen, start_ms'),
    mergeTree(db, t.rollups, ROLLUP_TABLE_COLUMNS, 'site_id, dim, filter_dim, traffic, all_tenants, day, gen', ROLLUP_GRANULARITY),
    mergeTree(db, t.titles, TITLE_TABLE_COLUMNS, 'site_id, day, gen, traffic_class, path_canon', ROLLUP_GRANULARITY),
    mergeTree(db, t.actions, ACTIONS_TABLE_COLUMNS, 'site_id, grp, dim, traffic, day, gen', ROLLUP_GRANULARITY),
    `CREATE TABLE IF NOT EXISTS ${ident(db)}.${ident(t.days)} (${cols(DAYS_COLUMNS)}) ENGINE = MergeTree ORDER BY (site_id, day, gen)`,
    // a name per content: another footfall version's maps get names of their own
    `CREATE VIEW IF NOT EXISTS ${ident(db)}.${ident(t.trafficMap)} AS ${EXPANSIONS.trafficMap.sql}`,
    `CREATE VIEW IF NOT EXISTS ${ident(db)}.${ident(t.trafficMasks)} AS ${EXPANSIONS.trafficMasks.sql}`,
  ];
}

/**
 * A visitor's day stays on one server (hash of site and visitor key), so a session and its events
 * are always together: sessions are built, joined and counted server-locally.
 */
export const SHARDING_KEY = 'cityHash64(site_id, visitor_key)';

/** Staging table of one import on each server (plain rows as received; dropped at commit or abort). */
export function stageDdl(db: string, table: string): string {
  const columns = EVENT_ROW_FIELDS.map((f): [string, string] => [f, ROW_TYPES[f]]);
  return `CREATE TABLE ${ident(db)}.${ident(table)} (${cols(columns)}) ENGINE = MergeTree ORDER BY (site_id, ts_ms)`;
}

/** The first server's table that spreads an import's staged rows over the servers' stages, by visitor. */
export function stageRouterDdl(db: string, table: string, cluster: string, stage: string): string {
  const columns = EVENT_ROW_FIELDS.map((f): [string, string] => [f, ROW_TYPES[f]]);
  return `CREATE TABLE ${ident(db)}.${ident(table)} (${cols(columns)}) ENGINE = Distributed(${ident(cluster)}, ${ident(db)}, ${ident(stage)}, ${SHARDING_KEY})`;
}
