// DuckDB tables of the event store. Events are appended in arrival order (an import's input
// usually runs in time order, so row groups' zone maps still cover narrow time spans; a sort
// of every wide row at commit cost more than the rest of the import); sessions are inserted
// sorted by (site_id, day, start_ms). No primary-key index (dedup is a semi-join within the
// batch's days).
import { EVENT_ROW_FIELDS, PROP_FIELDS } from '../../ports/event-store.js';
import { ACTION_IDENTITY } from '../sql/rollup-tables.js';

/**
 * The store's layout, recorded in footfall_meta (schema-version.ts). Bump it with a release whose store
 * an older footfall would read wrong: that older code then refuses the store instead of changing it.
 * CHANGELOG.md says what each release changes in the data.
 */
export const SCHEMA_VERSION = 1;

/** DuckDB type of each EventRow field (staging and events share them). */
export const ROW_TYPES: Record<(typeof EVENT_ROW_FIELDS)[number], string> = {
  event_id: 'VARCHAR',
  site_id: 'VARCHAR',
  tenant_id: 'VARCHAR',
  ts_ms: 'BIGINT',
  type: 'VARCHAR',
  profile: 'VARCHAR',
  visitor_key: 'VARCHAR',
  path_canon: 'VARCHAR',
  page_title: 'VARCHAR',
  referrer_host: 'VARCHAR',
  utm_source: 'VARCHAR',
  utm_medium: 'VARCHAR',
  utm_campaign: 'VARCHAR',
  has_click_id: 'BOOLEAN',
  country: 'VARCHAR',
  region: 'VARCHAR',
  city: 'VARCHAR',
  device_type: 'VARCHAR',
  browser_family: 'VARCHAR',
  os_family: 'VARCHAR',
  traffic_class: 'VARCHAR',
  engagement_time_ms: 'BIGINT',
  action_name: 'VARCHAR',
  family: 'VARCHAR',
  event_name: 'VARCHAR',
  action_id: 'VARCHAR',
  action_target_host: 'VARCHAR',
  form_id: 'VARCHAR',
  form_action_path: 'VARCHAR',
  channel: 'VARCHAR',
  prop_keys: 'VARCHAR[]',
  prop_values: 'VARCHAR[]',
};

const isProp = (f: string) => (PROP_FIELDS as readonly string[]).includes(f);
const ROW_COLUMNS = EVENT_ROW_FIELDS.filter((f) => f !== 'site_id' && f !== 'ts_ms' && !isProp(f));

/**
 * The custom property columns as events holds them: never NULL, empty for an event without props (the
 * reads of `event:props:*` rely on it). A store of the release before them gets them added at open
 * (ensureLifecycleTables: ADD COLUMN takes no constraint in DuckDB, so SET NOT NULL follows).
 */
export const PROP_COLUMNS_DDL = PROP_FIELDS.map((f) => `${f} ${ROW_TYPES[f]} NOT NULL DEFAULT []`);

/**
 * events = EventRow + day (UTC) + session_id + import_id (the import that stored the event first; null
 * for live collection). The leading columns are the read order; import_id and then the custom properties
 * come last because a store of the release before each gets the columns added (ensureLifecycleTables),
 * and ADD COLUMN appends.
 */
export const EVENTS_DDL = `CREATE TABLE IF NOT EXISTS events (
  site_id VARCHAR NOT NULL,
  day DATE NOT NULL,
  ts_ms BIGINT NOT NULL,
  session_id VARCHAR NOT NULL,
  ${ROW_COLUMNS.map((c) => `${c} ${ROW_TYPES[c]}`).join(',\n  ')},
  import_id VARCHAR,
  ${PROP_COLUMNS_DDL.join(',\n  ')}
)`;

/** Column list of events in DDL order, for INSERT ... SELECT. */
export const EVENTS_COLUMNS = ['site_id', 'day', 'ts_ms', 'session_id', ...ROW_COLUMNS, 'import_id', ...PROP_FIELDS];

/**
 * Events stored per (site, UTC month of the event's timestamp, `YYYY-MM`): moved in the transaction
 * that stores or removes the events, so reading usage never scans events. A purge leaves them.
 */
export const EVENT_COUNTS_DDL = `CREATE TABLE IF NOT EXISTS event_counts (
  site_id VARCHAR NOT NULL,
  month VARCHAR NOT NULL,
  events BIGINT NOT NULL,
  PRIMARY KEY (site_id, month)
)`;

/** Every committed import that carried an id, so that undoing an unknown id can be told from undoing one twice. */
export const IMPORTS_DDL = `CREATE TABLE IF NOT EXISTS imports (
  import_id VARCHAR PRIMARY KEY,
  committed_ms BIGINT NOT NULL,
  imported BIGINT NOT NULL
)`;

/** sessions = StoredSession (src/domain/events.ts). */
export const SESSIONS_DDL = `CREATE TABLE IF NOT EXISTS sessions (
  site_id VARCHAR NOT NULL,
  day DATE NOT NULL,
  start_ms BIGINT NOT NULL,
  end_ms BIGINT NOT NULL,
  session_id VARCHAR NOT NULL,
  tenant_id VARCHAR,
  visitor_key VARCHAR NOT NULL,
  profile VARCHAR NOT NULL,
  traffic_class VARCHAR NOT NULL,
  channel VARCHAR NOT NULL,
  referrer_host VARCHAR,
  utm_source VARCHAR,
  utm_medium VARCHAR,
  utm_campaign VARCHAR,
  country VARCHAR,
  region VARCHAR,
  city VARCHAR,
  device_type VARCHAR,
  browser_family VARCHAR,
  os_family VARCHAR,
  entry_page VARCHAR,
  exit_page VARCHAR,
  pageviews BIGINT NOT NULL,
  events BIGINT NOT NULL,
  engagement_ms BIGINT NOT NULL,
  meaningful_actions BIGINT NOT NULL,
  is_bounce BOOLEAN NOT NULL,
  is_engaged BOOLEAN NOT NULL
)`;

/** A table DDL above as a connection's temp table (replacing one of the same name): scratch of that layout. */
export const asTempTable = (ddl: string) => ddl.replace(/^CREATE TABLE /, 'CREATE OR REPLACE TEMP TABLE ');

export const META_DDL = `CREATE TABLE IF NOT EXISTS footfall_meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)`;

/**
 * The staged rows of one file of encodeEventRows (JSON arrays): each line read as a list of text
 * (JSON null -> NULL, numbers and booleans as their JSON text, arrays as their JSON text), then each
 * member cast to its column's type, and the UTC day computed. About a fifth less time than extracting
 * the members of each line as a JSON object by path (read_ndjson_objects + json_extract_string), same
 * values. The props arrays are parsed as JSON (a cast of text to VARCHAR[] reads DuckDB's own list
 * syntax, not JSON's escapes); a row of the release before them (decodedValues) has none: [].
 */
export function stageSelectSql(fileLiteral: string): string {
  const casts = EVENT_ROW_FIELDS.map((f, i) =>
    isProp(f) ? `coalesce(from_json(x[${i + 1}], '["VARCHAR"]'), []::VARCHAR[])` : `CAST(x[${i + 1}] AS ${ROW_TYPES[f]})`,
  ).join(', ');
  const tsIndex = EVENT_ROW_FIELDS.indexOf('ts_ms') + 1;
  return (
    `SELECT ${casts}, CAST(epoch_ms(CAST(x[${tsIndex}] AS BIGINT)) AS DATE) FROM ` +
    `read_json(${fileLiteral}, format = 'newline_delimited', records = false, columns = {x: 'VARCHAR[]'}, maximum_object_size = 1048576)`
  );
}

/** Staged rows: EventRow fields in wire order, then their UTC day (computed by the load). */
export const STAGE_DDL = (table: string) =>
  `CREATE TEMP TABLE ${table} (${EVENT_ROW_FIELDS.map((f) => `${f} ${ROW_TYPES[f]}`).join(', ')}, day DATE)`;

/**
 * Daily rollups (docs/decisions/rollups.md): exact per-day atoms per (site, day, tenant scope,
 * traffic filter, grouping, key), rebuilt with the sessions of every (site, day) an import touches.
 * Bump ROLLUPS_VERSION when their layout or rules change: the store rebuilds them at open.
 */
export const ROLLUPS_VERSION = 3;
export const ROLLUPS_DDL = (table: string) => `CREATE TABLE ${table} (
  site_id VARCHAR NOT NULL,
  day_ms BIGINT NOT NULL,
  all_tenants BOOLEAN NOT NULL,
  tenant_id VARCHAR,
  traffic VARCHAR NOT NULL,
  dim VARCHAR NOT NULL,
  dim_key VARCHAR,
  filter_dim VARCHAR NOT NULL,
  filter_key VARCHAR,
  pageviews BIGINT NOT NULL,
  events BIGINT NOT NULL,
  pv_eng_ms BIGINT NOT NULL,
  visitors BIGINT NOT NULL,
  sessions BIGINT NOT NULL,
  bounces BIGINT NOT NULL,
  engaged BIGINT NOT NULL,
  session_eng_ms BIGINT NOT NULL,
  entries BIGINT NOT NULL,
  exits BIGINT NOT NULL
)`;

/** Latest titled pageview per (site, day, tenant, traffic class, path): page titles without an event scan. */
export const PAGE_TITLES_DDL = (table: string) => `CREATE TABLE ${table} (
  site_id VARCHAR NOT NULL,
  day_ms BIGINT NOT NULL,
  tenant_id VARCHAR,
  traffic_class VARCHAR NOT NULL,
  path_canon VARCHAR NOT NULL,
  ts_ms BIGINT NOT NULL,
  event_id VARCHAR NOT NULL,
  page_title VARCHAR NOT NULL
)`;

/**
 * Action sessions and occurrences per (site, day, tenant, traffic filter, grouping, key):
 * ACTIONS_COLUMNS of sql/rollup-tables.ts. Bump ACTIONS_ROLLUP_VERSION when their layout or rules
 * change: the store rebuilds this table alone at open.
 */
export const ACTIONS_ROLLUP_VERSION = 1;
export const ACTIONS_DDL = (table: string) => `CREATE TABLE ${table} (
  site_id VARCHAR NOT NULL,
  day_ms BIGINT NOT NULL,
  tenant_id VARCHAR,
  traffic VARCHAR NOT NULL,
  grp VARCHAR NOT NULL,
  eligible VARCHAR NOT NULL,
  dim VARCHAR NOT NULL,
  ${ACTION_IDENTITY.map((c) => `${c} VARCHAR`).join(',\n  ')},
  dim_key VARCHAR,
  sessions BIGINT NOT NULL,
  occurrences BIGINT NOT NULL
)`;

/** Engagement rows of an import (EngagementRow + their UTC day). */
export const ENGAGEMENT_STAGE_DDL = (table: string) =>
  `CREATE TEMP TABLE ${table} (site_id VARCHAR, visitor_key VARCHAR, ts_ms BIGINT, path_canon VARCHAR, engagement_ms BIGINT, day DATE)`;

/** The engagement rows of one NDJSON file of EngagementRow objects. */
export function engagementSelectSql(fileLiteral: string): string {
  return (
    `SELECT site_id, visitor_key, ts_ms, path_canon, engagement_ms, CAST(epoch_ms(ts_ms) AS DATE) FROM read_json(${fileLiteral}, ` +
    `format = 'newline_delimited', records = true, maximum_object_size = 1048576, ` +
    `columns = {'site_id': 'VARCHAR', 'visitor_key': 'VARCHAR', 'ts_ms': 'BIGINT', 'path_canon': 'VARCHAR', 'engagement_ms': 'BIGINT'})`
  );
}
