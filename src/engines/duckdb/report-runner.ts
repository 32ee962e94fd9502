// ReportQueryRunner over DuckDB: the report queries (services/reports/queries) run through the same
// connections, binding and fault mapping as the DuckDB AnalyticsEngine (runDuckQuery).
import { duckdbDialect } from '../sql/dialect.js';
import { compilePageTitlesFromRollup } from '../sql/page-titles-rollup.js';
import type { RunOptions } from '../../ports/analytics-engine.js';
import type { CompiledReportQuery, ReportQueryRunner } from '../../services/reports/queries/report-query-runner.js';
import { runDuckQuery, type DuckConnection, type DuckDbAnalyticsEngineOptions } from './analytics-engine.js';

/**
 * `pageTitlesRollup`: the database keeps daily_page_titles current (the DuckDB event store does,
 * from open and in every import), so whole-day windows read titles from it instead of events.
 */
export function duckdbReportRunner<C extends DuckConnection>(
  opts: Pick<DuckDbAnalyticsEngineOptions<C>, 'connect' | 'release'> & { pageTitlesRollup?: boolean },
): ReportQueryRunner {
  return {
    dialect: duckdbDialect,
    rows: (query: CompiledReportQuery, options: RunOptions) => runDuckQuery(opts, query.sql, query.params, options.timeoutMs),
    pageTitles: opts.pageTitlesRollup ? (scope, window, paths) => compilePageTitlesFromRollup(duckdbDialect, scope, window, paths) : undefined,
  };
}
