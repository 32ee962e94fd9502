// ReportQueryRunner over DuckDB: the report queries (services/reports/queries) run through the same
// connections, binding and fault mapping as the DuckDB AnalyticsEngine (runDuckQuery).
import { duckdbDialect } from '../sql/dialect.js';
import type { RunOptions } from '../../ports/analytics-engine.js';
import type { CompiledReportQuery, ReportQueryRunner } from '../../services/reports/queries/report-query-runner.js';
import { runDuckQuery, type DuckConnection, type DuckDbAnalyticsEngineOptions } from './analytics-engine.js';

export function duckdbReportRunner<C extends DuckConnection>(opts: Pick<DuckDbAnalyticsEngineOptions<C>, 'connect' | 'release'>): ReportQueryRunner {
  return {
    dialect: duckdbDialect,
    rows: (query: CompiledReportQuery, options: RunOptions) => runDuckQuery(opts, query.sql, query.params, options.timeoutMs),
  };
}
