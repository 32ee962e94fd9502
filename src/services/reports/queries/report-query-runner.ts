// The one extension of the query layer the reports need: queries a QuerySpec cannot say (action rows,
// goal matching, page titles). They are compiled here through the shared Dialect hooks, and an
// engine adapter runs the compiled statement. No existing metric is redefined here: every count
// of pageviews, visitors or sessions comes from a QuerySpec run by the AnalyticsEngine.
import type { Dialect, SqlParam } from '../../../engines/sql/dialect.js';
import type { RunOptions } from '../../../ports/analytics-engine.js';
import type { MsWindow } from '../../../domain/availability.js';
import type { ReportScope } from '../report-scope.js';

export interface CompiledReportQuery {
  sql: string;
  /** bound values in placeholder order (empty for literal-encoding dialects) */
  params: SqlParam[];
}

/** Runs compiled report queries; faults surface as EngineError like AnalyticsEngine.run. */
export interface ReportQueryRunner {
  readonly dialect: Dialect;
  rows(query: CompiledReportQuery, options: RunOptions): Promise<Record<string, unknown>[]>;
  /**
   * The engine's own page-title query (columns path_canon, page_title; the same answer as
   * compilePageTitles) when it has a cheaper one for this window, else null or absent.
   */
  pageTitles?(scope: ReportScope, window: MsWindow, paths: readonly string[]): CompiledReportQuery | null;
}

/** Integer columns come back as bigint (DuckDB) or strings (old ClickHouse JSON). */
export function toInt(v: unknown): number {
  if (v === null || v === undefined) return 0;
  const n = typeof v === 'bigint' ? Number(v) : typeof v === 'string' ? Number(v) : (v as number);
  if (!Number.isSafeInteger(n)) throw new Error(`not an exact integer: ${String(v)}`);
  return n;
}

export function toStr(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}
