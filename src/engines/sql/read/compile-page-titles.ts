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
  return {
    ...q.done(sql),
    columns: ['o_path', 'o_title', 'o_ts', 'o_id'],
    text: ['o_path', 'o_title', 'o_id'],
    keys: ['o_path'],
    merge: {},
    latestBy: ['o_ts', 'o_id'],
  };
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

/** Whether the rollup answers a window: whole UTC days. */
export function wholeDays(window: PageTitlesRequest['window']): boolean {
  return window.startMs % DAY_MS === 0 && (window.endMs + 1) % DAY_MS === 0;
}

/** From the page-title rollup, or null when the window is not whole UTC days (read the events then). */
export function compilePageTitlesFromRollup(
  d: Dialect,
  req: PageTitlesRequest,
  options: { table?: string; rowFilter?: ReadOptions['rowFilter'] } = {},
): CompiledRead | null {
  const { startMs, endMs } = req.window;
  if (!wholeDays(req.window)) return null;
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

/**
 * Title reads of one scope over whole days (a report's titles of its top pages and of its movers) as
 * one statement over the rollup: per path, each read's own columns (compilePageTitlesFromRollup's),
 * its rows ordered first by whether they are its own (its days and paths), so each read's latest
 * title is the one it gets alone; a read with no row of a path (`n` 0) gets none for it. `split`
 * gives each read its rows.
 */
export function compilePageTitlesSlice(
  d: Dialect,
  reqs: readonly PageTitlesRequest[],
  options: { table?: string; rowFilter?: ReadOptions['rowFilter'] } = {},
): { sql: string; columns: string[]; text: string[]; split(rows: readonly Record<string, unknown>[]): Record<string, unknown>[][] } {
  const q = new SqlWriter(d, options.rowFilter);
  const col = (n: string) => q.col('r', n);
  const { scope } = reqs[0];
  const firstDay = Math.min(...reqs.map((r) => r.window.startMs));
  const lastDay = Math.max(...reqs.map((r) => r.window.endMs + 1 - DAY_MS));
  const where = [
    `${col('site_id')} = ${q.v(scope.siteId)}`,
    `${col('day_ms')} >= ${q.v(firstDay)}`,
    `${col('day_ms')} <= ${q.v(lastDay)}`,
    q.inList(col('traffic_class'), scope.trafficClasses),
    q.inList(col('path_canon'), [...new Set(reqs.flatMap((r) => r.paths))]),
    ...q.visible(['titles', 'r']),
  ];
  if (scope.tenantIds !== null) where.push(q.inList(col('tenant_id'), scope.tenantIds));
  const cols = [`${col('path_canon')} AS o_path`];
  reqs.forEach((r, i) => {
    const own = `(${col('day_ms')} >= ${q.v(r.window.startMs)} AND ${col('day_ms')} <= ${q.v(r.window.endMs + 1 - DAY_MS)} AND ${q.inList(col('path_canon'), r.paths)})`;
    const order = [own, col('ts_ms'), col('event_id')];
    cols.push(
      `${q.sumIf(own)} AS n_${i}`,
      `${d.argMax(col('page_title'), order)} AS t_${i}`,
      `${d.argMax(col('ts_ms'), order)} AS ts_${i}`,
      `${d.argMax(col('event_id'), order)} AS id_${i}`,
    );
  });
  const { sql } = q.done(
    `SELECT ${cols.join(', ')} FROM ${q.table(options.table ?? PAGE_TITLES_TABLE, 'r')} WHERE ${where.join(' AND ')} GROUP BY ${col('path_canon')}`,
  );
  const each = reqs.map((_, i) => [`n_${i}`, `t_${i}`, `ts_${i}`, `id_${i}`]);
  return {
    sql,
    columns: ['o_path', ...each.flat()],
    text: ['o_path', ...each.flatMap(([, t, , id]) => [t, id])],
    split: (rows) =>
      reqs.map((_, i) =>
        rows
          .filter((r) => Number(r[`n_${i}`]) > 0)
          .map((r) => ({ o_path: r.o_path, o_title: r[`t_${i}`], o_ts: r[`ts_${i}`], o_id: r[`id_${i}`] })),
      ),
  };
}
