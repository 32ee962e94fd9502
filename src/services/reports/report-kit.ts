// What every report shares: the limit rule of its parameters, and for its builder the engine's reads
// (under the request's deadline), the scope and the small row helpers (days, titles, per-channel
// pairs). Builders assemble payloads only: every number comes from a typed read of the AnalyticsEngine port.
import type { MsWindow, SectionId } from '../../domain/availability.js';
import { invalidParams } from '../../domain/errors.js';
import { denseSeries, type MetricRow } from '../../domain/query/assemble.js';
import type { Metric } from '../../domain/query/metrics.js';
import type { Dimension } from '../../domain/query/dimensions.js';
import type { QuerySpec } from '../../domain/query/query-spec.js';
import { formatDay, type DayWindow } from '../../domain/report-range.js';
import { CHANNELS, type Channel } from '../../domain/events.js';
import type { AnalyticsEngine, AnalyticsReads, ReadScope, RunOptions } from '../../ports/analytics-engine.js';
import type { Goal } from '../../ports/catalog-store.js';
import type { AnalyticsContext, AnalyticsWindow } from '../analytics/serve-analytics.js';

export const DEFAULT_REPORT_LIMIT = 200;

export interface ReportParams {
  limit?: number;
}

/** limit: 1 to 2000 by schema, and at most the plan's api.max_report_limit (docs/product.md §7.1). */
export function checkReportLimit(limit: number | undefined, maxReportLimit: number): void {
  if (limit !== undefined && limit > maxReportLimit) {
    throw invalidParams(`limit may be at most ${maxReportLimit} on this plan`, { parameter: 'limit', max_report_limit: maxReportLimit });
  }
}

/** The goals configured for the request's site. */
export function goalsOf(ctx: AnalyticsContext): Promise<Goal[]> {
  return ctx.deps.catalog.listGoals(ctx.site!.id);
}

/** An engine's reads with fixed options (tests, tools); serveAnalytics binds its own under the request's deadline. */
export function readsOf(engine: AnalyticsEngine, options: RunOptions): AnalyticsReads {
  return {
    run: (spec) => engine.run(spec, options),
    actionRows: (r) => engine.actionRows(r, options),
    actionTotals: (r) => engine.actionTotals(r, options),
    goalMatches: (r) => engine.goalMatches(r, options),
    pageTitles: (r) => engine.pageTitles(r, options),
    queryRows: (r) => engine.queryRows(r, options),
    funnelSteps: (r) => engine.funnelSteps(r, options),
  };
}

/** A QuerySpec over the scope and a counting window; the rest (metrics, grouping) from `rest`. */
export function specFor(
  scope: ReadScope,
  window: MsWindow,
  rest: Omit<QuerySpec, 'siteId' | 'tenantIds' | 'trafficClasses' | 'startMs' | 'endMs' | 'filters'> & { filters?: QuerySpec['filters'] },
): QuerySpec {
  return {
    siteId: scope.siteId,
    tenantIds: scope.tenantIds,
    trafficClasses: scope.trafficClasses,
    startMs: window.startMs,
    endMs: window.endMs,
    filters: rest.filters ?? {},
    ...rest,
  };
}

/** One payload's windows (current or compare), as availability decided them. */
export interface PayloadWindow {
  /** the requested days: dense series cover them */
  days: DayWindow;
  /** the route-level counting window; null = nothing to count (locked or no compatible data) */
  count: MsWindow | null;
  /** per section of a mixed route: its counting window, null when locked */
  sections: Partial<Record<SectionId, MsWindow | null>>;
}

export class ReportKit {
  constructor(
    readonly reads: AnalyticsReads,
    readonly scope: ReadScope,
  ) {}

  run(window: MsWindow, rest: Parameters<typeof specFor>[2]): Promise<MetricRow[]> {
    return this.reads.run(specFor(this.scope, window, rest));
  }

  /** The window's single total row. */
  async total(window: MsWindow, metrics: readonly Metric[], filters: QuerySpec['filters'] = {}): Promise<MetricRow> {
    const [row] = await this.run(window, { metrics, filters });
    return row;
  }

  /** A dense daily series over the payload's days. */
  async daily(days: DayWindow, window: MsWindow, metrics: readonly Metric[]): Promise<MetricRow[]> {
    const rows = await this.run(window, { metrics, interval: 'day' });
    return denseSeries(rows, { startMs: days.startMs, endMs: days.endMs, interval: 'day', metrics });
  }

  /** Latest page title of each path in the window (missing = never titled). */
  async titles(window: MsWindow, paths: readonly (string | null)[]): Promise<Map<string, string>> {
    const list = [...new Set(paths.filter((p): p is string => p !== null))];
    if (!list.length) return new Map();
    return this.reads.pageTitles({ scope: this.scope, window, paths: list });
  }

  /**
   * Rows of (key, channel) pairs by sessions, one grouped query: sorted by sessions desc, then key,
   * then channel (code points), without the "none" key, cut to `limit`. Exact: a channel has at most
   * one "none" row, so the top `limit` pairs with a key are within the first `limit` + 7.
   */
  async channelPairs(
    window: MsWindow,
    dimension: Dimension,
    limit: number,
    metrics: readonly Metric[] = ['sessions'],
  ): Promise<{ key: string; channel: Channel; row: MetricRow }[]> {
    const rows = await this.run(window, { metrics, dimension, splitBy: 'channel', limit: limit + CHANNELS.length });
    return rows
      .filter((r) => r.key !== null && r.split != null)
      .slice(0, limit)
      .map((row) => ({ key: row.key!, channel: row.split as Channel, row }));
  }
}

/** The kit a builder reads one payload window with. */
export function kitFor(w: AnalyticsWindow): ReportKit {
  return new ReportKit(w.reads, w.scope);
}

export function dayOf(ms: number | null): string {
  return formatDay(ms ?? 0);
}

/** The rows of a breakdown without the null key ("none"), cut to `limit`. */
export function known(rows: readonly MetricRow[], limit: number): MetricRow[] {
  return rows.filter((r) => r.key !== null).slice(0, limit);
}
