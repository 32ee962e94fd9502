// The analytics store as the read API sees it: run one QuerySpec, plus the data-coverage facts
// that freshness and availability need. Implementations: engines/duckdb, later engines/clickhouse.
import type { MetricRow } from '../domain/query/assemble.js';
import type { QuerySpec } from '../domain/query/query-spec.js';

export interface RunOptions {
  /** the query is interrupted after this long and fails with EngineError('timeout') */
  timeoutMs: number;
}

export interface AnalyticsEngine {
  /**
   * Runs a spec and returns assembled rows (domain/query/assemble.ts): breakdowns sorted by value
   * then key and cut to `limit`, series sparse and by bucket (densify with denseSeries), a plain
   * total exactly one row. Throws EngineError('timeout' | 'unavailable') on store faults.
   */
  run(spec: QuerySpec, options: RunOptions): Promise<MetricRow[]>;
  /** ts of the site's newest stored event (data_health.last_event_at, freshness), or null */
  newestEventAt(siteId: string): Promise<Date | null>;
  /** ts of the site's oldest stored event (availability source coverage), or null */
  firstEventAt(siteId: string): Promise<Date | null>;
}
