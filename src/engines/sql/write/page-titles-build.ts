// Page titles from a daily rollup: the latest titled pageview of each path is a maximum over
// (ts_ms, event_id), and a maximum of per-group maxima is the maximum, so one row per (site, day,
// tenant, traffic class, path) answers every tenant scope and traffic set exactly. The same answer
// as the raw page-title query for whole-day windows; read/compile-page-titles.ts reads both.
import { DAY_MS } from '../../../domain/report-range.js';
import type { Dialect, SqlParam } from '../dialect.js';
import { PAGE_TITLES_COLUMNS } from '../rollup-tables.js';

/** Rows (in PAGE_TITLES_COLUMNS order) of every event in `tables.events` (the store's, or a subset). */
export function compilePageTitlesBuild(d: Dialect, tables: { events: string }): { sql: string; params: SqlParam[] } {
  const params: SqlParam[] = [];
  const q = d.quoteIdent;
  const col = (a: string, n: string) => `${a}.${q(n)}`;
  const order = [col('e', 'ts_ms'), col('e', 'event_id')];
  const keys = [
    col('e', 'site_id'),
    `${d.intDiv(col('e', 'ts_ms'), String(DAY_MS))} * ${DAY_MS}`,
    col('e', 'tenant_id'),
    col('e', 'traffic_class'),
    col('e', 'path_canon'),
  ];
  const cols = [...keys, `max(${col('e', 'ts_ms')})`, d.argMax(col('e', 'event_id'), order), d.argMax(col('e', 'page_title'), order)];
  // computed under other names, renamed outside: ClickHouse would read `e.ts_ms` inside max() as the
  // SELECT alias `ts_ms` (an aggregate) if the result columns were named like the event columns
  const inner = cols.map((c, i) => `${c} AS o${i}`);
  const sql =
    `SELECT ${PAGE_TITLES_COLUMNS.map((name, i) => `o${i} AS ${q(name)}`).join(', ')} FROM (SELECT ${inner.join(', ')} FROM ${q(tables.events)} AS e ` +
    `WHERE ${col('e', 'type')} = ${d.value('pageview', params)} AND ${col('e', 'page_title')} IS NOT NULL AND ${col('e', 'path_canon')} IS NOT NULL ` +
    `GROUP BY ${keys.join(', ')}) AS t`;
  return { sql, params };
}
