// The dashboard's state lives in the URL, under the API's own parameter names, so a link reproduces the
// view: from, to, compare, traffic, tenant_id, filters (a JSON object, dimension -> value), and the
// chart's metric and interval. This module turns the query string into state, state back into a query
// string, and state into the read routes' parameters. Pure: no DOM.
import type { ReadQuery } from '../api/read.js';
import { DEFAULT_PRESET, isDay, presetPeriod, type Day, type Period } from './periods.js';

type TimeseriesQuery = ReadQuery<'/v1/metrics/timeseries'>;
export type Traffic = NonNullable<TimeseriesQuery['traffic']>;
export type Interval = NonNullable<TimeseriesQuery['interval']>;
export type Dimension = ReadQuery<'/v1/metrics/breakdown'>['dimension'];
/** A metric of the timeseries route: the tiles and the chart draw six of them (TILE_METRICS). */
export type TileMetric = NonNullable<TimeseriesQuery['metric']>;

export const TRAFFIC: Record<Traffic, string> = {
  humans: 'People',
  humans_including_ai: 'People and AI agents',
  bots_only: 'Bots and AI crawlers',
  ai_bots_only: 'AI crawlers',
  all: 'All traffic',
};
const DEFAULT_TRAFFIC: Traffic = 'humans';
const TILE_METRICS: readonly TileMetric[] = [
  'visitors',
  'sessions',
  'pageviews',
  'avg_pages_per_session',
  'bounce_rate',
  'avg_session_eng_time_ms',
];
export const DEFAULT_METRIC: TileMetric = 'visitors';
const INTERVALS: readonly Interval[] = ['day', 'hour'];

export interface DashboardState {
  /** null: the default period (the last 30 days, relative to the day the link is opened) */
  period: Period | null;
  compare: boolean;
  traffic: Traffic;
  tenantId: string | null;
  filters: Readonly<Record<string, string>>;
  metric: TileMetric;
  /** the interval the reader picked; null: the period's own (chartInterval) */
  interval: Interval | null;
}

/** The query parameters this module owns; any other (site_id of an embed, theme, accent) is kept as is. */
const OWN = ['from', 'to', 'compare', 'traffic', 'tenant_id', 'filters', 'metric', 'interval'];

function parseFilters(raw: string | null): Record<string, string> {
  if (!raw) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') out[k] = v;
    return out;
  } catch {
    return {};
  }
}

export function stateFromSearch(search: string): DashboardState {
  const q = new URLSearchParams(search);
  const from = q.get('from');
  const to = q.get('to');
  const traffic = q.get('traffic');
  const metric = q.get('metric');
  return {
    period: from && to && isDay(from) && isDay(to) && from <= to ? { from, to } : null,
    compare: q.get('compare') === 'prev_period',
    traffic: traffic && traffic in TRAFFIC ? (traffic as Traffic) : DEFAULT_TRAFFIC,
    tenantId: q.get('tenant_id') || null,
    filters: parseFilters(q.get('filters')),
    metric: TILE_METRICS.find((m) => m === metric) ?? DEFAULT_METRIC,
    interval: INTERVALS.find((i) => i === q.get('interval')) ?? null,
  };
}

/** The query string of a state; defaults are left out, and parameters of others kept. */
export function searchFromState(state: DashboardState, current = ''): string {
  const q = new URLSearchParams(current);
  for (const k of OWN) q.delete(k);
  if (state.period) {
    q.set('from', state.period.from);
    q.set('to', state.period.to);
  }
  if (state.compare) q.set('compare', 'prev_period');
  if (state.traffic !== DEFAULT_TRAFFIC) q.set('traffic', state.traffic);
  if (state.tenantId) q.set('tenant_id', state.tenantId);
  if (Object.keys(state.filters).length) q.set('filters', JSON.stringify(state.filters));
  if (state.metric !== DEFAULT_METRIC) q.set('metric', state.metric);
  if (state.interval) q.set('interval', state.interval);
  const s = q.toString();
  return s ? `?${s}` : '';
}

export function periodOf(state: DashboardState, today: Day): Period {
  return state.period ?? presetPeriod(DEFAULT_PRESET, today);
}

/**
 * The chart's interval. One picked by the reader is kept, even where the plan refuses it (the chart
 * then shows the refusal, and the buttons to pick again). Otherwise the period decides: one day is
 * charted by the hour (a single day's point would be one dot), where the plan has hours; a longer
 * period, or a plan without hours, by the day. `hourly` null: the plan's rules are still on their
 * way, and a one-day period's interval is not known yet (null) rather than asked twice.
 */
export function chartInterval(state: DashboardState, period: Period, hourly: boolean | null): Interval | null {
  if (state.interval) return state.interval;
  if (period.from !== period.to) return 'day';
  return hourly === null ? null : hourly ? 'hour' : 'day';
}

/** The parameters every read of the page shares (site, period, compare, traffic, tenant). */
export interface CommonParams {
  site_id: string;
  from: Day;
  to: Day;
  traffic?: Traffic;
  tenant_id?: string;
}

export function commonParams(state: DashboardState, siteId: string, today: Day): CommonParams {
  const { from, to } = periodOf(state, today);
  return {
    site_id: siteId,
    from,
    to,
    ...(state.traffic !== DEFAULT_TRAFFIC ? { traffic: state.traffic } : {}),
    ...(state.tenantId ? { tenant_id: state.tenantId } : {}),
  };
}

/** `filters` as the metrics routes take it, or nothing when there is no filter. */
export function filtersParam(state: DashboardState): { filters?: string } {
  return Object.keys(state.filters).length ? { filters: JSON.stringify(state.filters) } : {};
}

export function withFilter(state: DashboardState, dimension: Dimension, value: string): DashboardState {
  return { ...state, filters: { ...state.filters, [dimension]: value } };
}

export function withoutFilter(state: DashboardState, dimension: string | null): DashboardState {
  if (dimension === null) return { ...state, filters: {} };
  const { [dimension]: _removed, ...rest } = state.filters;
  return { ...state, filters: rest };
}

/**
 * One series read, built in one place so that a tile and the chart showing the same series ask the
 * very same URL (and share one answer).
 */
export function seriesQuery(state: DashboardState, params: CommonParams, metric: TileMetric, interval: Interval): TimeseriesQuery {
  return {
    ...params,
    metric,
    ...(interval !== 'day' ? { interval } : {}),
    ...(state.compare ? { compare: 'prev_period' as const } : {}),
    ...filtersParam(state),
  };
}

export function breakdownQuery(
  state: DashboardState,
  params: CommonParams,
  dimension: Dimension,
  limit: number,
): ReadQuery<'/v1/metrics/breakdown'> {
  return { ...params, metric: 'visitors', dimension, limit, ...filtersParam(state) };
}
