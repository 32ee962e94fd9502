// Sessionization in SQL (DESIGN 4 and 8), run inside an import's transaction over every
// event of the (site, day) pairs the import touched: old events of those days plus the new
// ones. Rebuilding whole days is what makes "a day in two halves" equal "a day at once".
import { ENGAGED_MS, MEANINGFUL_FAMILIES, SESSION_GAP_MS } from '../../domain/events.js';

// Only the columns that decide membership go through the window sort: sorting wide rows is
// what costs most. The window numbers each event within its (site, day, tenant, key) partition
// in session order, so a session's first and last values are arg_min/arg_max over that integer.
const SESSION_INPUT_COLUMNS = 'event_id, site_id, day, tenant_id, visitor_key, ts_ms, type';

const KEY = 'site_id, day, tenant_id, visitor_key';

/** The stored events of the touched days, each with its rowid as `rid`. */
const oldEvents = (touched: string, cols: string) =>
  `SELECT e.rowid AS rid, ${cols} FROM events e SEMI JOIN ${touched} t ON e.site_id = t.site_id AND e.day = t.day`;

/**
 * `out`: one row per event of the touched days (the staged ones, and the stored ones when
 * `withStored`) with its session id and its rank `rn` in session order. `old` tells a stored
 * event (rid = its rowid in events; site_id, day, event_id to update it) from a staged one
 * (rid = its rowid in the stage).
 * Sessions are keyed by (site, tenant, visitor_key) within a UTC day (the day is part of the
 * partition, so none crosses midnight); order is ts, then pageview before action, then
 * event_id so equal timestamps sort the same on every run. A gap of exactly 30 minutes stays
 * in the session; over it starts a new one. The id hashes the key and the start, so it is
 * stable across rebuilds.
 */
export function sessionEventsSql(stage: string, touched: string, out: string, withStored: boolean): string {
  const stored = withStored ? `UNION ALL SELECT true AS old, * FROM (${oldEvents(touched, SESSION_INPUT_COLUMNS)})` : '';
  return `CREATE TEMP TABLE ${out} AS
WITH ev AS (
  SELECT false AS old, rowid AS rid, ${SESSION_INPUT_COLUMNS} FROM ${stage}
  ${stored}
), gaps AS (
  SELECT *, row_number() OVER w AS rn,
    CASE WHEN lag(ts_ms) OVER w IS NULL OR ts_ms - lag(ts_ms) OVER w > ${SESSION_GAP_MS} THEN ts_ms END AS new_start
  FROM ev
  WINDOW w AS (PARTITION BY ${KEY} ORDER BY ts_ms, (type <> 'pageview'), event_id)
), started AS (
  SELECT *, max(new_start) OVER (PARTITION BY ${KEY} ORDER BY rn ROWS UNBOUNDED PRECEDING) AS start_ms
  FROM gaps
)
SELECT old, rid, rn, CASE WHEN old THEN site_id END AS site_id, CASE WHEN old THEN day END AS day,
  CASE WHEN old THEN event_id END AS event_id,
  md5(concat_ws(chr(31), site_id, coalesce(tenant_id, chr(0)), visitor_key, start_ms::VARCHAR)) AS session_id
FROM started`;
}

const MEANINGFUL = MEANINGFUL_FAMILIES.map((f) => `'${f}'`).join(', ');
const FIRST_EVENT_COLUMNS = ['profile', 'traffic_class', 'channel', 'referrer_host', 'utm_source', 'utm_medium',
  'utm_campaign', 'country', 'region', 'city', 'device_type', 'browser_family', 'os_family'];
const AGGREGATED_COLUMNS = ['site_id', 'day', 'tenant_id', 'visitor_key', 'ts_ms', 'type', 'family',
  'engagement_time_ms', 'path_canon', ...FIRST_EVENT_COLUMNS].join(', ');

/**
 * `out`: the sessions rows (in the sessions table's column order) of every session of the
 * touched days, from the staged events and, when `withStored`, the stored ones, with the ids
 * and ranks of `sess`; first-event values by the session's event order.
 */
export function sessionsTableSql(stage: string, touched: string, sess: string, out: string, withStored: boolean): string {
  const first = (c: string) => `arg_min_null(${c}, rn) AS ${c}`;
  const cols = (alias: string) => AGGREGATED_COLUMNS.split(', ').map((c) => `${alias}.${c}`).join(', ');
  const stored = withStored
    ? `UNION ALL SELECT x.session_id, x.rn, ${cols('e')}
    FROM (${oldEvents(touched, AGGREGATED_COLUMNS)}) e JOIN ${sess} x ON x.old AND x.rid = e.rid`
    : '';
  return `CREATE TEMP TABLE ${out} AS
WITH ev AS (
  SELECT x.session_id, x.rn, ${cols('f')}
  FROM ${stage} f JOIN ${sess} x ON x.old = false AND x.rid = f.rowid
  ${stored}
)
SELECT site_id, day, start_ms, end_ms, session_id, tenant_id, visitor_key, profile, traffic_class, channel,
  referrer_host, utm_source, utm_medium, utm_campaign, country, region, city, device_type, browser_family, os_family,
  entry_page, exit_page, pageviews, events, engagement_ms, meaningful_actions,
  pageviews = 1 AND meaningful_actions = 0 AS is_bounce,
  pageviews >= 2 OR engagement_ms >= ${ENGAGED_MS} OR meaningful_actions > 0 AS is_engaged
FROM (
  SELECT session_id, any_value(site_id) AS site_id, any_value(day) AS day, any_value(tenant_id) AS tenant_id,
    any_value(visitor_key) AS visitor_key, min(ts_ms) AS start_ms, max(ts_ms) AS end_ms,
    ${FIRST_EVENT_COLUMNS.map(first).join(',\n    ')},
    arg_min_null(path_canon, rn) FILTER (WHERE type = 'pageview') AS entry_page,
    arg_max_null(path_canon, rn) FILTER (WHERE type = 'pageview') AS exit_page,
    count(*) FILTER (WHERE type = 'pageview') AS pageviews,
    count(*) AS events,
    coalesce(sum(engagement_time_ms), 0)::BIGINT AS engagement_ms,
    count(*) FILTER (WHERE type = 'action' AND family IN (${MEANINGFUL})) AS meaningful_actions
  FROM ev
  GROUP BY session_id
)`;
}
