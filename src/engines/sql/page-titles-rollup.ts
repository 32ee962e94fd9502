// Page titles from a daily rollup: the latest titled pageview of each path is a maximum over
// (ts_ms, event_id), and a maximum of per-group maxima is the maximum, so one row per (site, day,
// tenant, traffic class, path) answers every tenant scope and traffic set exactly. The same answer
// as the raw page-title query (services/reports/queries/page-titles.ts) for whole-day windows.
import type { MsWindow } from '../../domain/availability.js';
import { DAY_MS } from '../../domain/report-range.js';
import type { TrafficClass } from '../../domain/events.js';
import type { Dialect, SqlParam, SqlValue } from './dialect.js';

export const PAGE_TITLES_TABLE = 'daily_page_titles';
export const PAGE_TITLES_COLUMNS = ['site_id', 'day_ms', 'tenant_id', 'traffic_class', 'path_canon', 'ts_ms', 'event_id', 'page_title'] as const;

/** Rows (in PAGE_TITLES_COLUMNS order) of every event in `tables.events` (the store's, or a subset). */
export function compilePageTitlesBuild(d: Dialect, tables: { events: string }): { sql: string; params: SqlParam[] } {
  const params: SqlParam[] = [];
  const q = d.quoteIdent;
  const col = (a: string, n: string) => `${a}.${q(n)}`;
  const order = [col('e', 'ts_ms'), col('e', 'event_id')];
  const keys = [col('e', 'site_id'), `${d.intDiv(col('e', 'ts_ms'), String(DAY_MS))} * ${DAY_MS}`, col('e', 'tenant_id'), col('e', 'traffic_class'), col('e', 'path_canon')];
  const cols = [...keys, `max(${col('e', 'ts_ms')})`, d.argMax(col('e', 'event_id'), order), d.argMax(col('e', 'page_title'), order)];
  const sql =
    `SELECT ${cols.map((c, i) => `${c} AS ${q(PAGE_TITLES_COLUMNS[i])}`).join(', ')} FROM ${q(tables.events)} AS e ` +
    `WHERE ${col('e', 'type')} = ${d.value('pageview', params)} AND ${col('e', 'page_title')} IS NOT NULL AND ${col('e', 'path_canon')} IS NOT NULL ` +
    `GROUP BY ${keys.join(', ')}`;
  return { sql, params };
}

export interface TitleScope {
  siteId: string;
  tenantIds: readonly string[] | null;
  trafficClasses: readonly TrafficClass[];
}

/**
 * Columns path_canon, page_title: the latest titled pageview's title of each listed path in the
 * window, or null when the window is not whole UTC days (the raw query then answers).
 */
export function compilePageTitlesFromRollup(d: Dialect, scope: TitleScope, window: MsWindow, paths: readonly string[]): { sql: string; params: SqlParam[] } | null {
  if (window.startMs % DAY_MS !== 0 || (window.endMs + 1) % DAY_MS !== 0) return null;
  const params: SqlParam[] = [];
  const v = (x: SqlValue) => d.value(x, params);
  const col = (n: string) => `r.${d.quoteIdent(n)}`;
  const inList = (expr: string, values: readonly string[]) => (values.length ? `${expr} IN (${values.map(v).join(', ')})` : '1 = 0');
  const where = [
    `${col('site_id')} = ${v(scope.siteId)}`,
    `${col('day_ms')} >= ${v(window.startMs)}`,
    `${col('day_ms')} <= ${v(window.endMs + 1 - DAY_MS)}`,
    inList(col('traffic_class'), scope.trafficClasses),
    inList(col('path_canon'), paths),
  ];
  if (scope.tenantIds !== null) where.push(inList(col('tenant_id'), scope.tenantIds));
  const latest = d.argMax(col('page_title'), [col('ts_ms'), col('event_id')]);
  return {
    sql: `SELECT ${col('path_canon')} AS path_canon, ${latest} AS page_title FROM ${d.quoteIdent(PAGE_TITLES_TABLE)} AS r WHERE ${where.join(' AND ')} GROUP BY ${col('path_canon')}`,
    params,
  };
}
