// The dashboard's state lives in the URL, so a link reproduces the view: from, to, compare (and a custom
// compare range), traffic, tenant_id, filters (a JSON list of [operator, dimension, value]), and the
// chart's metric and interval. This module turns the query string into state and state back into a
// query string. Pure: no DOM. What the panels ask of the query API is query-bodies.ts.
import { DIMENSION_LABELS } from './dimensions.js';
import { DEFAULT_PRESET, isDay, presetPeriod, type Day, type Period } from './periods.js';

export type Traffic = 'humans' | 'humans_including_ai' | 'bots_only' | 'ai_bots_only' | 'all';
/** a time bucket of the chart: hours, the site's local days, ISO weeks (from Monday) or months */
export type Interval = 'hour' | 'day' | 'week' | 'month';
/** The dimensions the panels show, by the dashboard's short names (query-bodies.ts maps them to the query API's). */
export type Dimension =
  | 'page'
  | 'entry_page'
  | 'exit_page'
  | 'referrer'
  | 'channel'
  | 'source'
  | 'medium'
  | 'campaign'
  | 'country'
  | 'region'
  | 'city'
  | 'device'
  | 'browser'
  | 'os'
  | 'tenant'
  /** a goal by its name (event:goal), from a goal conversions row */
  | 'goal'
  /** an event by its name (event:name: an action's event_name, else its action_name), from older links */
  | 'event'
  /** an action by its name and detail (event:action, e.g. "outbound.click · partner.example"), from an actions row */
  | 'action';
/** A metric of the tiles and the chart, by the query API's name. */
export type TileMetric = 'visitors' | 'visits' | 'pageviews' | 'views_per_visit' | 'bounce_rate' | 'visit_duration';
export type FilterOperator = 'is' | 'is_not' | 'contains';
/** What a filter may name: a dimension of the panels, or one custom property (`prop:<key>`, from the Properties panel). */
export type FilterDimension = Dimension | `prop:${string}`;
export interface Filter {
  op: FilterOperator;
  dimension: FilterDimension;
  value: string;
}
/** off, the period just before, the same period a year before, or two dates of the reader's */
export type Compare = null | 'previous_period' | 'year_over_year' | Period;

export const TRAFFIC: Record<Traffic, string> = {
  humans: 'People',
  humans_including_ai: 'People and AI agents',
  bots_only: 'Bots and AI crawlers',
  ai_bots_only: 'AI crawlers',
  all: 'All traffic',
};
const DEFAULT_TRAFFIC: Traffic = 'humans';
export const TILE_METRICS: readonly TileMetric[] = ['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'visit_duration'];
export const DEFAULT_METRIC: TileMetric = 'visitors';
/** the names links made before the dashboard read the query API carry (/v1's), kept working */
const OLD_METRICS: Record<string, TileMetric> = {
  sessions: 'visits',
  avg_pages_per_session: 'views_per_visit',
  avg_session_eng_time_ms: 'visit_duration',
};
export const INTERVALS: readonly Interval[] = ['hour', 'day', 'week', 'month'];
export const OPERATORS: Record<FilterOperator, string> = { is: 'is', is_not: 'is not', contains: 'contains' };
const DIMENSIONS = new Set<string>(Object.keys(DIMENSION_LABELS));
export const isDimension = (d: string): d is Dimension => DIMENSIONS.has(d);
/** A custom property's key is 1 to 300 characters, as collection stores them. */
const isFilterDimension = (d: string): d is FilterDimension =>
  isDimension(d) || (d.startsWith('prop:') && d.length > 'prop:'.length && d.length <= 'prop:'.length + 300);
/** Filters a URL may hold: more would only make a link nobody can read. */
const MAX_FILTERS = 20;

export interface DashboardState {
  /** null: the default period (the last 30 days, relative to the day the link is opened, in the site's zone) */
  period: Period | null;
  compare: Compare;
  traffic: Traffic;
  tenantId: string | null;
  filters: readonly Filter[];
  metric: TileMetric;
  /** the interval the reader picked; null: the period's own (chartInterval) */
  interval: Interval | null;
}

/** The query parameters this module owns; any other (site_id of an embed, theme, accent) is kept as is. */
const OWN = ['from', 'to', 'compare', 'compare_from', 'compare_to', 'traffic', 'tenant_id', 'filters', 'metric', 'interval'];

/**
 * The filters of a URL: a list of [operator, dimension, value], or the object of dimension -> value that
 * links made before operators carry (each an "is"). Anything else is dropped, not guessed at.
 */
export function parseFilters(raw: string | null): Filter[] {
  if (!raw) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return [];
  }
  const out: Filter[] = [];
  if (Array.isArray(parsed)) {
    for (const f of parsed) {
      if (!Array.isArray(f) || f.length !== 3) continue;
      const [op, dimension, value] = f as unknown[];
      if (
        typeof op === 'string' &&
        op in OPERATORS &&
        typeof dimension === 'string' &&
        isFilterDimension(dimension) &&
        typeof value === 'string'
      )
        out.push({ op: op as FilterOperator, dimension, value });
    }
  } else if (typeof parsed === 'object' && parsed !== null) {
    for (const [dimension, value] of Object.entries(parsed))
      if (isDimension(dimension) && typeof value === 'string') out.push({ op: 'is', dimension, value });
  }
  return out.slice(0, MAX_FILTERS);
}

function parseCompare(q: URLSearchParams): Compare {
  const c = q.get('compare');
  if (c === 'prev_period' || c === 'previous_period') return 'previous_period';
  if (c === 'year_over_year') return 'year_over_year';
  const from = q.get('compare_from');
  const to = q.get('compare_to');
  if (c === 'custom' && from && to && isDay(from) && isDay(to) && from <= to) return { from, to };
  return null;
}

export function stateFromSearch(search: string): DashboardState {
  const q = new URLSearchParams(search);
  const from = q.get('from');
  const to = q.get('to');
  const traffic = q.get('traffic');
  const metric = q.get('metric') ?? '';
  return {
    period: from && to && isDay(from) && isDay(to) && from <= to ? { from, to } : null,
    compare: parseCompare(q),
    traffic: traffic && traffic in TRAFFIC ? (traffic as Traffic) : DEFAULT_TRAFFIC,
    tenantId: q.get('tenant_id') || null,
    filters: parseFilters(q.get('filters')),
    metric: TILE_METRICS.find((m) => m === metric) ?? OLD_METRICS[metric] ?? DEFAULT_METRIC,
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
  if (state.compare === 'previous_period') q.set('compare', 'prev_period');
  else if (state.compare === 'year_over_year') q.set('compare', 'year_over_year');
  else if (state.compare) {
    q.set('compare', 'custom');
    q.set('compare_from', state.compare.from);
    q.set('compare_to', state.compare.to);
  }
  if (state.traffic !== DEFAULT_TRAFFIC) q.set('traffic', state.traffic);
  if (state.tenantId) q.set('tenant_id', state.tenantId);
  if (state.filters.length) q.set('filters', JSON.stringify(state.filters.map((f) => [f.op, f.dimension, f.value])));
  if (state.metric !== DEFAULT_METRIC) q.set('metric', state.metric);
  if (state.interval) q.set('interval', state.interval);
  const s = q.toString();
  return s ? `?${s}` : '';
}

export function periodOf(state: DashboardState, today: Day): Period {
  return state.period ?? presetPeriod(DEFAULT_PRESET, today);
}

const DAY_MS = 86_400_000;
const spanDays = (p: Period) => Math.round((Date.parse(`${p.to}T00:00:00Z`) - Date.parse(`${p.from}T00:00:00Z`)) / DAY_MS) + 1;

/**
 * The interval a period is charted by when the reader picked none: one day by the hour (where the plan
 * has hours: a single day's point would be one dot), up to 92 days by the day, up to 183 by the week, and
 * a longer period by the month, so that a year draws 12 or 13 points rather than 365. `hourly` null: the
 * plan's rules are on their way, and a one-day period's interval is not known yet (null) rather than asked twice.
 */
export function defaultInterval(period: Period, hourly: boolean | null): Interval | null {
  const days = spanDays(period);
  if (days === 1) return hourly === null ? null : hourly ? 'hour' : 'day';
  if (days <= 92) return 'day';
  return days <= 183 ? 'week' : 'month';
}

/** The chart's interval: the reader's (kept even where the plan refuses it: the chart says so), else the period's. */
export function chartInterval(state: DashboardState, period: Period, hourly: boolean | null): Interval | null {
  return state.interval ?? defaultInterval(period, hourly);
}

/** The state with one more filter; a filter on the same dimension and operator is replaced. */
export function withFilter(state: DashboardState, filter: Filter): DashboardState {
  const rest = state.filters.filter((f) => !(f.dimension === filter.dimension && f.op === filter.op));
  return { ...state, filters: [...rest, filter] };
}

/** The state without the filter at `index`; null: without any. */
export function withoutFilter(state: DashboardState, index: number | null): DashboardState {
  return { ...state, filters: index === null ? [] : state.filters.filter((_, i) => i !== index) };
}

/** The value an "is" filter of the page holds for a dimension (its row is shown as the current one). */
export function isValueOf(state: DashboardState, dimension: FilterDimension): string | undefined {
  return state.filters.find((f) => f.dimension === dimension && f.op === 'is')?.value;
}

/** What the compared period is, in words ("the previous period", "the same period a year before"). */
export function compareLabel(compare: Compare): string {
  if (compare === 'year_over_year') return 'the same period a year before';
  if (compare && typeof compare === 'object') return 'the period compared';
  return 'the previous period';
}
