// Goal matching (DESIGN 4 and 8 "Goals"), one scan for every goal of the site:
// PAGEVIEW_MATCH: a pageview whose path_canon matches the pattern, case-sensitive, `*` any run of
// characters (`/` included), anchored at both ends. EVENT_MATCH: an action whose event_name or
// action_name equals the pattern and whose fields equal every filter of the goal.
import type { Dialect } from '../../../engines/sql/dialect.js';
import type { MsWindow } from '../../../domain/availability.js';
import type { Goal } from '../../../ports/catalog-store.js';
import type { ReportScope } from '../report-scope.js';
import { ReportSql } from './report-sql.js';
import type { CompiledReportQuery } from './report-query-runner.js';

/** The pattern as a LIKE pattern: `*` -> `%`, LIKE's own metacharacters escaped with backslash. */
export function goalPatternToLike(pattern: string): string {
  let out = '';
  for (const ch of pattern) {
    if (ch === '*') out += '%';
    else if (ch === '%' || ch === '_' || ch === '\\') out += `\\${ch}`;
    else out += ch;
  }
  return out;
}

const FILTER_COLUMNS = ['action_id', 'action_target_host', 'form_id', 'form_action_path'] as const;

function matchCondition(q: ReportSql, goal: Goal): string {
  if (goal.type === 'PAGEVIEW_MATCH') {
    return `(${q.col('e', 'type')} = ${q.v('pageview')} AND ${q.extra.likeEscaped(q.col('e', 'path_canon'), q.v(goalPatternToLike(goal.pattern)))})`;
  }
  const parts = [
    `${q.col('e', 'type')} = ${q.v('action')}`,
    `(${q.col('e', 'event_name')} = ${q.v(goal.pattern)} OR ${q.col('e', 'action_name')} = ${q.v(goal.pattern)})`,
  ];
  for (const f of FILTER_COLUMNS) {
    const v = goal.filters?.[f];
    if (typeof v === 'string') parts.push(`${q.col('e', f)} = ${q.v(v)}`);
  }
  return `(${parts.join(' AND ')})`;
}

/** Columns c<i> (conversions), s<i> (distinct sessions), l<i> (last match ts ms or null) per goal i. */
export function compileGoalMatches(d: Dialect, scope: ReportScope, window: MsWindow, goals: readonly Goal[]): CompiledReportQuery {
  const q = new ReportSql(d);
  const cols: string[] = [];
  goals.forEach((g, i) => {
    const m = matchCondition(q, g);
    cols.push(
      `${q.int(`sum(CASE WHEN ${m} THEN 1 ELSE 0 END)`)} AS c${i}`,
      `${q.int(q.d.countDistinct(`CASE WHEN ${m} THEN ${q.col('e', 'session_id')} END`))} AS s${i}`,
      `max(CASE WHEN ${m} THEN ${q.col('e', 'ts_ms')} END) AS l${i}`,
    );
  });
  const where = q.eventScope('e', scope, window.startMs, window.endMs);
  return { sql: `SELECT ${cols.join(', ')} FROM ${q.table('events', 'e')} WHERE ${where.join(' AND ')}`, params: q.params };
}
