// GET /v1/metrics/timeseries (docs/product.md §5): current = {metric, interval, total, points: [{start, value}]},
// one point per UTC day or hour of the requested range, zero-filled.
import { denseSeries, sumAtoms, type MetricRow } from '../../domain/query/assemble.js';
import { metricValue, type TimeseriesMetric } from '../../domain/query/metrics.js';
import { totalSpec, type Filters, type Interval, type QuerySpec } from '../../domain/query/query-spec.js';
import { metricsUnits } from '../../domain/metering.js';
import type { ResolvedRange } from '../../domain/report-range.js';
import { periodTable } from './csv.js';
import type { AnalyticsPlan, AnalyticsWindow } from './serve-analytics.js';

export interface TimeseriesPayload {
  metric: TimeseriesMetric;
  interval: Interval;
  total: number;
  points: { start: string; value: number }[];
}

export interface TimeseriesParams {
  metric: TimeseriesMetric;
  interval: Interval;
  filters: Filters;
}

export function timeseriesPlan(params: TimeseriesParams, range: ResolvedRange): AnalyticsPlan<TimeseriesPayload> {
  return {
    units: metricsUnits({ endpoint: 'timeseries', interval: params.interval, days: range.current.days, metric: params.metric }),
    cacheParams: { metric: params.metric, interval: params.interval, filters: params.filters },
    build: (w) => buildTimeseries(w, params),
  };
}

export async function buildTimeseries(w: AnalyticsWindow, params: TimeseriesParams): Promise<TimeseriesPayload> {
  const { metric, interval } = params;
  const metrics = [metric] as const;
  let rows: MetricRow[] = [];
  let total = 0;
  if (w.count) {
    const spec: QuerySpec = {
      ...w.scope,
      startMs: w.count.startMs,
      endMs: w.count.endMs,
      filters: params.filters,
      metrics,
      interval,
    };
    // Visitors are daily uniques (docs/product.md §8.4): an hourly series does not add up to the range's
    // visitors, so that one total is its own query. Every other atom adds up over the buckets (sessions
    // count in their start bucket), so the total is the metric of the summed atoms: rates from integer sums.
    const ownTotal = metric === 'visitors' && interval === 'hour';
    const [series, totals] = await Promise.all([w.run(spec), ownTotal ? w.run(totalSpec(spec)) : null]);
    rows = series;
    total = totals ? (totals[0]?.values[metric] ?? 0) : metricValue(metric, sumAtoms(series));
  }
  const points = denseSeries(rows, { startMs: w.days.startMs, endMs: w.days.endMs, interval, metrics }).map((r) => ({
    start: new Date(r.bucketMs!).toISOString(),
    value: r.values[metric],
  }));
  return { metric, interval, total, points };
}

/** The CSV of the points: `start,value` (the total is not a point; with compare, a leading period column). */
export function timeseriesCsv(data: { current: TimeseriesPayload; compare: TimeseriesPayload | null }): string {
  return periodTable(data, ['start', 'value'], (p) => p.points.map((x) => [x.start, x.value]));
}
