// Sessionization in SQL (docs/product.md §4.2, §8.3), run inside an import's transaction over every
// event of the visitor-days the import touches: the stored events of those visitor-days plus the new ones.
// A session never leaves its (site, tenant, visitor_key, UTC day), so rebuilding whole visitor-days
// is what makes "a day in two halves", "a late event" and "unordered input" equal "a day at once",
// while every other visitor's sessions stay as stored.
import { ACTION_ATTRIBUTES } from '../../domain/action-key.js';
import { ENGAGED_MS, MEANINGFUL_FAMILIES, SESSION_GAP_MS } from '../../domain/events.js';
import { PROP_FIELDS } from '../../ports/event-store.js';

// Only the columns that decide membership go through the window sort: sorting wide rows is what
// costs most. The window numbers each event within its (site, day, tenant, key) partition in session
// order, so a session's first and last values are arg_min/arg_max over that integer.
const SESSION_INPUT_COLUMNS = 'site_id, day, tenant_id, visitor_key, ts_ms, type, event_id';

const KEY = 'site_id, day, tenant_id, visitor_key';
/** A session's id: it hashes the key and the start, so it is stable across rebuilds. */
const SESSION_ID = `md5(concat_ws(chr(31), site_id, coalesce(tenant_id, chr(0)), visitor_key, start_ms::VARCHAR))`;

/** The tables a sessionization reads: the new rows and, when any, the stored rows of the same visitor-days. */
export interface SessionSources {
  /** new events (EventRow columns + day); `rid` = their rowid */
  fresh: string;
  /** stored events of the touched visitor-days with `rid` = their rowid in events, or null when none */
  old: string | null;
}

/**
 * `out`: one row per event of `src` with its session id and its rank `rn` in session order; `old`
 * tells a stored event (rid = its rowid in events) from a new one (rid = its rowid in `fresh`).
 * Order is ts, then pageview before action, then event_id, so equal timestamps sort the same on
 * every run. A gap of exactly 30 minutes stays in the session; over it starts a new one. The id
 * hashes the key and the start, so it is stable across rebuilds.
 */
export function sessionizeSql(src: SessionSources, out: string): string {
  const old = src.old ? `UNION ALL SELECT true AS old, rid, ${SESSION_INPUT_COLUMNS} FROM ${src.old}` : '';
  return `CREATE TEMP TABLE ${out} AS
WITH ev AS (
  SELECT false AS old, rowid AS rid, ${SESSION_INPUT_COLUMNS} FROM ${src.fresh}
  ${old}
), gaps AS (
  SELECT *, row_number() OVER w AS rn,
    CASE WHEN lag(ts_ms) OVER w IS NULL OR ts_ms - lag(ts_ms) OVER w > ${SESSION_GAP_MS} THEN ts_ms END AS new_start
  FROM ev
  WINDOW w AS (PARTITION BY ${KEY} ORDER BY ts_ms, (type <> 'pageview'), event_id)
), started AS (
  SELECT *, max(new_start) OVER (PARTITION BY ${KEY} ORDER BY rn ROWS UNBOUNDED PRECEDING) AS start_ms
  FROM gaps
)
SELECT old, rid, rn, ${SESSION_ID} AS session_id
FROM started`;
}

/**
 * sessionizeSql for an append (append-load.ts): `fresh`'s events all come after every stored event
 * of their visitor-days, so only the last stored session of each (site, day, tenant, key) can grow.
 * `last` holds it (site_id, day, tenant_id, visitor_key, start_ms, end_ms): a row standing for it
 * goes first in its partition, as its last event at end_ms, and a new event within the gap of it
 * takes its start, hence its id. `out` as sessionizeSql's, of the new events only (`old` false).
 */
export function appendSessionizeSql(fresh: string, last: string, out: string): string {
  return `CREATE TEMP TABLE ${out} AS
WITH ev AS (
  SELECT false AS seed, rowid AS rid, ${SESSION_INPUT_COLUMNS}, NULL::BIGINT AS seed_start FROM ${fresh}
  UNION ALL
  SELECT true, NULL, site_id, day, tenant_id, visitor_key, end_ms, NULL, NULL, start_ms FROM ${last}
), gaps AS (
  SELECT *, row_number() OVER w AS rn,
    CASE WHEN seed THEN seed_start WHEN lag(ts_ms) OVER w IS NULL OR ts_ms - lag(ts_ms) OVER w > ${SESSION_GAP_MS} THEN ts_ms END AS new_start
  FROM ev
  WINDOW w AS (PARTITION BY ${KEY} ORDER BY ts_ms, seed DESC, (type <> 'pageview'), event_id)
), started AS (
  SELECT *, max(new_start) OVER (PARTITION BY ${KEY} ORDER BY rn ROWS UNBOUNDED PRECEDING) AS start_ms
  FROM gaps
)
SELECT false AS old, rid, rn, ${SESSION_ID} AS session_id
FROM started WHERE NOT seed`;
}

const MEANINGFUL = MEANINGFUL_FAMILIES.map((f) => `'${f}'`).join(', ');
/**
 * A session's two flags (the sessions table's last columns) from its pageviews, engagement_ms and
 * meaningful_actions: every way of making session rows says bounce and engaged through this.
 */
export const SESSION_FLAGS = `pageviews = 1 AND meaningful_actions = 0 AS is_bounce,
  pageviews >= 2 OR engagement_ms >= ${ENGAGED_MS} OR meaningful_actions > 0 AS is_engaged`;
/** The session's columns that its first event gives (in the sessions table's order). */
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
];
/**
 * The columns sessions and rollups read of an event (the action identity: the actions rollup; the
 * custom properties: the property rows).
 */
export const SESSION_EVENT_COLUMNS = [
  'site_id',
  'day',
  'tenant_id',
  'visitor_key',
  'ts_ms',
  'type',
  'family',
  'engagement_time_ms',
  'path_canon',
  ...FIRST_EVENT_COLUMNS,
  'action_name',
  ...ACTION_ATTRIBUTES,
  ...PROP_FIELDS,
];

/**
 * `out`, a view: every event of `src` (new and stored) with the columns sessions and rollups read,
 * its session id and its rank `rn` in session order (from `sess`, sessionizeSql's output). Its three
 * readers (the sessions, and the rollups' page events and actions) join again rather than read a copy:
 * copying every event's thirty columns cost more (a live load: 5% of its time). The caller drops it
 * (DROP VIEW) and changes none of its sources while it is read.
 */
export function sessionEventsSql(src: SessionSources, sess: string, out: string): string {
  const cols = (alias: string) => SESSION_EVENT_COLUMNS.map((c) => `${alias}.${c}`).join(', ');
  const old = src.old
    ? `UNION ALL SELECT ${cols('o')}, x.session_id, x.rn FROM ${src.old} o JOIN ${sess} x ON x.old AND x.rid = o.rid`
    : '';
  return `CREATE TEMP VIEW ${out} AS
SELECT ${cols('f')}, x.session_id, x.rn FROM ${src.fresh} f JOIN ${sess} x ON NOT x.old AND x.rid = f.rowid
${old}`;
}

/**
 * `out`: the sessions rows (in the sessions table's column order) of every session of `ev`
 * (sessionEventsSql's output). The first event's values travel as ONE struct through arg_min:
 * one aggregate state per session instead of one per column.
 */
export function sessionsSql(ev: string, out: string): string {
  return `CREATE TEMP TABLE ${out} AS
SELECT site_id, day, start_ms, end_ms, session_id, tenant_id, visitor_key,
  ${FIRST_EVENT_COLUMNS.map((c) => `first.${c} AS ${c}`).join(', ')},
  entry_page, exit_page, pageviews, events, engagement_ms, meaningful_actions, ${SESSION_FLAGS}
FROM (
  SELECT site_id, day, tenant_id, visitor_key, session_id, min(ts_ms) AS start_ms, max(ts_ms) AS end_ms,
    arg_min(struct_pack(${FIRST_EVENT_COLUMNS.join(', ')}), rn) AS first,
    arg_min_null(path_canon, rn) FILTER (WHERE type = 'pageview') AS entry_page,
    arg_max_null(path_canon, rn) FILTER (WHERE type = 'pageview') AS exit_page,
    count(*) FILTER (WHERE type = 'pageview') AS pageviews,
    count(*) AS events,
    coalesce(sum(engagement_time_ms), 0)::BIGINT AS engagement_ms,
    count(*) FILTER (WHERE type = 'action' AND family IN (${MEANINGFUL})) AS meaningful_actions
  FROM ${ev}
  GROUP BY site_id, day, tenant_id, visitor_key, session_id
)`;
}
