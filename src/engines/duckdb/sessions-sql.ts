// Sessionization in SQL (DESIGN 4 and 8), run inside an import's transaction over every
// event of the (site, day) pairs the import touched: old events of those days plus the new
// ones. Rebuilding whole days is what makes "a day in two halves" equal "a day at once".
import { ENGAGED_MS, MEANINGFUL_FAMILIES, SESSION_GAP_MS } from '../../domain/events.js';

// Only the columns that decide membership go through the window sort: sorting wide rows is
// what costs most; the session's other values are aggregated afterwards from the events table.
const SESSION_INPUT_COLUMNS = 'event_id, site_id, day, tenant_id, visitor_key, ts_ms, type';
/** The event order inside a session, as one sortable value (for arg_min/arg_max). */
const EVENT_ORDER = "(ts_ms, type <> 'pageview', event_id)";

const KEY = 'site_id, day, tenant_id, visitor_key';

/**
 * sess_ev: one row per event of the touched days with its session id.
 * Sessions are keyed by (site, tenant, visitor_key) within a UTC day (the day is part of the
 * partition, so none crosses midnight); order is ts, then pageview before action, then
 * event_id so equal timestamps sort the same on every run. A gap of exactly 30 minutes stays
 * in the session; over it starts a new one. The id hashes the key and the start, so it is
 * stable across rebuilds.
 */
export function sessionEventsSql(fresh: string, touched: string, out: string): string {
  return `CREATE TEMP TABLE ${out} AS
WITH ev AS (
  SELECT ${SESSION_INPUT_COLUMNS} FROM events e SEMI JOIN ${touched} t ON e.site_id = t.site_id AND e.day = t.day
  UNION ALL
  SELECT ${SESSION_INPUT_COLUMNS} FROM ${fresh}
), gaps AS (
  SELECT *, row_number() OVER w AS rn,
    CASE WHEN lag(ts_ms) OVER w IS NULL OR ts_ms - lag(ts_ms) OVER w > ${SESSION_GAP_MS} THEN ts_ms END AS new_start
  FROM ev
  WINDOW w AS (PARTITION BY ${KEY} ORDER BY ts_ms, (type <> 'pageview'), event_id)
), started AS (
  SELECT *, max(new_start) OVER (PARTITION BY ${KEY} ORDER BY rn ROWS UNBOUNDED PRECEDING) AS start_ms
  FROM gaps
)
SELECT event_id, site_id, day,
  md5(concat_ws(chr(31), site_id, coalesce(tenant_id, chr(0)), visitor_key, start_ms::VARCHAR)) AS session_id
FROM started`;
}

const MEANINGFUL = MEANINGFUL_FAMILIES.map((f) => `'${f}'`).join(', ');

/**
 * One sessions row per session of the touched days, aggregated from `events` once their
 * session ids are written; first-event values by the session's event order.
 */
export function insertSessionsSql(touched: string): string {
  const first = (c: string) => `arg_min_null(${c}, ${EVENT_ORDER}) AS ${c}`;
  return `INSERT INTO sessions
SELECT site_id, day, start_ms, end_ms, session_id, tenant_id, visitor_key, profile, traffic_class, channel,
  referrer_host, utm_source, utm_medium, utm_campaign, country, region, city, device_type, browser_family, os_family,
  entry_page, exit_page, pageviews, events, engagement_ms, meaningful_actions,
  pageviews = 1 AND meaningful_actions = 0 AS is_bounce,
  pageviews >= 2 OR engagement_ms >= ${ENGAGED_MS} OR meaningful_actions > 0 AS is_engaged
FROM (
  SELECT session_id, any_value(e.site_id) AS site_id, any_value(e.day) AS day, any_value(tenant_id) AS tenant_id,
    any_value(visitor_key) AS visitor_key, min(ts_ms) AS start_ms, max(ts_ms) AS end_ms,
    ${['profile', 'traffic_class', 'channel', 'referrer_host', 'utm_source', 'utm_medium', 'utm_campaign', 'country',
      'region', 'city', 'device_type', 'browser_family', 'os_family'].map(first).join(',\n    ')},
    arg_min_null(path_canon, ${EVENT_ORDER}) FILTER (WHERE type = 'pageview') AS entry_page,
    arg_max_null(path_canon, ${EVENT_ORDER}) FILTER (WHERE type = 'pageview') AS exit_page,
    count(*) FILTER (WHERE type = 'pageview') AS pageviews,
    count(*) AS events,
    coalesce(sum(engagement_time_ms), 0)::BIGINT AS engagement_ms,
    count(*) FILTER (WHERE type = 'action' AND family IN (${MEANINGFUL})) AS meaningful_actions
  FROM events e SEMI JOIN ${touched} t ON e.site_id = t.site_id AND e.day = t.day
  GROUP BY session_id
)
ORDER BY site_id, day, start_ms`;
}
