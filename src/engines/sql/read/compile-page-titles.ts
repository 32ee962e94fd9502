// Page titles for listed paths: the title of the latest titled pageview of each path in the window
// (a page renamed inside the range shows its newest title), from the events or, for whole UTC days,
// from the page-title rollup (build/page-titles-build.ts): the same answer, since a maximum over
// (ts_ms, event_id) of per-day maxima is the maximum.
import type { PageTitlesRequest } from '../../../ports/analytics-engine.js';
import { DAY_MS } from '../../../domain/report-range.js';
import type { ReadOptions } from './compile-actions.js';
import { DEFAULT_TABLES } from './compile-query.js';
import type { Dialect } from '../dialect.js';
import { PAGE_TITLES_TABLE } from '../rollup-tables.js';
import { toStr, type CompiledRead } from './read-rows.js';
import { SqlWriter } from './sql-writer.js';

/** Columns o_path, o_title, and the latest titled pageview's o_ts, o_id (partial results combine by them). */
function titlesRead(q: SqlWriter, alias: string, from: string, where: string[]): CompiledRead {
  const order = [q.col(alias, 'ts_ms'), q.col(alias, 'event_id')];
  const path = q.col(alias, 'path_canon');
  const cols = [
    `${path} AS o_path`,
    `${q.d.argMax(q.col(alias, 'page_title'), order)} AS o_title`,
    `max(${q.col(alias, 'ts_ms')}) AS o_ts`,
    `${q.d.argMax(q.col(alias, 'event_id'), order)} AS o_id`,
  ];
  const sql = `SELECT ${cols.join(', ')} FROM ${from} WHERE ${where.join(' AND ')} GROUP BY ${path}`;
  return { ...q.done(sql), columns: ['o_path', 'o_title', 'o_ts', 'o_id'], text: ['o_path', 'o_title', 'o_id'], keys: ['o_path'], merge: {}, latestBy: ['o_ts', 'o_id'] };
}

/** From the events: any window. */
export function compilePageTitles(d: Dialect, req: PageTitlesRequest, options: ReadOptions = {}): CompiledRead {
  const t = options.tables ?? DEFAULT_TABLES;
  const q = new SqlWriter(d, options.rowFilter);
  const where = [
    ...q.inScope('e', 'ts_ms', req.scope, req.window.startMs, req.window.endMs),
    `${q.col('e', 'type')} = ${q.v('pageview')}`,
    `${q.col('e', 'page_title')} IS NOT NULL`,
    q.inList(q.col('e', 'path_canon'), req.paths),
    ...q.visible(['events', 'e']),
  ];
  return titlesRead(q, 'e', q.table(t.events, 'e'), where);
}

/** From the page-title rollup, or null when the window is not whole UTC days (read the events then). */
export function compilePageTitlesFromRollup(d: Dialect, req: PageTitlesRequest, options: { table?: string; rowFilter?: ReadOptions['rowFilter'] } = {}): CompiledRead | null {
  const { startMs, endMs } = req.window;
  if (startMs % DAY_MS !== 0 || (endMs + 1) % DAY_MS !== 0) return null;
  const q = new SqlWriter(d, options.rowFilter);
  const col = (n: string) => q.col('r', n);
  const where = [
    `${col('site_id')} = ${q.v(req.scope.siteId)}`,
    `${col('day_ms')} >= ${q.v(startMs)}`,
    `${col('day_ms')} <= ${q.v(endMs + 1 - DAY_MS)}`,
    q.inList(col('traffic_class'), req.scope.trafficClasses),
    q.inList(col('path_canon'), req.paths),
    ...q.visible(['titles', 'r']),
  ];
  if (req.scope.tenantIds !== null) where.push(q.inList(col('tenant_id'), req.scope.tenantIds));
  return titlesRead(q, 'r', q.table(options.table ?? PAGE_TITLES_TABLE, 'r'), where);
}

export function decodePageTitles(rows: readonly Record<string, unknown>[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of rows) {
    const p = toStr(r.o_path);
    const t = toStr(r.o_title);
    if (p !== null && t !== null) out.set(p, t);
  }
  return out;
}
