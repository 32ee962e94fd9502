// Page titles for listed paths: the title of the latest titled pageview of each path in the window
// (a page renamed inside the range shows its newest title).
import type { Dialect } from '../../../engines/sql/dialect.js';
import type { MsWindow } from '../../../domain/availability.js';
import type { ReportScope } from '../report-scope.js';
import { ReportSql } from './report-sql.js';
import type { CompiledReportQuery } from './report-query-runner.js';

/** Columns path_canon, page_title. */
export function compilePageTitles(d: Dialect, scope: ReportScope, window: MsWindow, paths: readonly string[]): CompiledReportQuery {
  const q = new ReportSql(d);
  const title = q.col('e', 'page_title');
  const where = [
    ...q.eventScope('e', scope, window.startMs, window.endMs),
    `${q.col('e', 'type')} = ${q.v('pageview')}`,
    `${title} IS NOT NULL`,
    q.inList(q.col('e', 'path_canon'), paths),
  ];
  const latest = d.argMax(title, [q.col('e', 'ts_ms'), q.col('e', 'event_id')]);
  return {
    sql: `SELECT ${q.col('e', 'path_canon')} AS path_canon, ${latest} AS page_title FROM ${q.table('events', 'e')} WHERE ${where.join(' AND ')} GROUP BY ${q.col('e', 'path_canon')}`,
    params: q.params,
  };
}
