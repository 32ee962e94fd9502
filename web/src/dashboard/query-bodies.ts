// What each panel asks of the query API (POST /api/v2/query, Plausible's body), built from the page's
// state: the site, the period as two local dates of the site's zone, its traffic, tenant and filters.
// Built here only, so that two panels showing the same numbers ask the very same body (one answer), and
// a test can build the body a panel asked and post it itself. Pure.
import type { components } from '../../../src/client/api-types.js';
import type { Period } from './periods.js';
import type { DashboardState, Dimension, Filter, FilterDimension, Interval, TileMetric } from './query.js';
import { TILE_METRICS } from './query.js';

export type QueryBody = components['schemas']['QueryBody'];
export type QueryAnswer = components['schemas']['QueryAnswer'];
export type QueryRow = QueryAnswer['results'][number];

/** The query API's name of each dimension the panels show. */
export const QUERY_DIMENSIONS: Record<Dimension, string> = {
  page: 'event:page',
  entry_page: 'visit:entry_page',
  exit_page: 'visit:exit_page',
  referrer: 'visit:referrer',
  channel: 'visit:channel',
  source: 'visit:utm_source',
  medium: 'visit:utm_medium',
  campaign: 'visit:utm_campaign',
  country: 'visit:country',
  region: 'visit:region',
  city: 'visit:city',
  device: 'visit:device',
  browser: 'visit:browser',
  os: 'visit:os',
  tenant: 'visit:tenant',
  goal: 'event:goal',
  event: 'event:name',
  action: 'event:action',
};

/** The query API's name of what a filter or a list names: a panel's dimension, or `event:props:<key>`. */
export function queryDimension(d: FilterDimension): string {
  return d.startsWith('prop:') ? `event:props:${d.slice('prop:'.length)}` : QUERY_DIMENSIONS[d as Dimension];
}

/** A row without a value ("(none)" in the answer): shown in words, and not a filter. */
export const NONE = '(none)';

function queryFilter(f: Filter): unknown[] {
  // "contains" as a person means it: any case ("blog" finds /Blog/)
  return f.op === 'contains'
    ? [f.op, queryDimension(f.dimension), [f.value], { case_sensitive: false }]
    : [f.op, queryDimension(f.dimension), [f.value]];
}

/** Who and what every body of the page reads: the site, the period, the traffic, the tenant and the filters. */
export function scopeOf(
  state: DashboardState,
  siteId: string,
  period: Period,
): Pick<QueryBody, 'site_id' | 'date_range' | 'filters' | 'tenant_id' | 'traffic'> {
  return {
    site_id: siteId,
    date_range: [period.from, period.to],
    ...(state.filters.length ? { filters: state.filters.map(queryFilter) } : {}),
    ...(state.tenantId ? { tenant_id: state.tenantId } : {}),
    ...(state.traffic !== 'humans' ? { traffic: state.traffic } : {}),
  };
}

function compareOf(state: DashboardState): NonNullable<QueryBody['include']>['compare'] | undefined {
  if (state.compare === null) return undefined;
  return typeof state.compare === 'string' ? state.compare : [state.compare.from, state.compare.to];
}

/** The six tiles in one read: each metric's total over the period, and over the compared one. */
export function tilesBody(state: DashboardState, siteId: string, period: Period): QueryBody {
  const compare = compareOf(state);
  return { ...scopeOf(state, siteId, period), metrics: [...TILE_METRICS], ...(compare ? { include: { compare } } : {}) };
}

/** The chart: one metric per bucket of the interval, every bucket labelled (time_labels) so empty ones are drawn as zero. */
export function seriesBody(state: DashboardState, siteId: string, period: Period, metric: TileMetric, interval: Interval): QueryBody {
  const compare = compareOf(state);
  return {
    ...scopeOf(state, siteId, period),
    metrics: [metric],
    dimensions: [`time:${interval}`],
    include: { time_labels: true, ...(compare ? { compare } : {}) },
  };
}

/** A top list: visitors per value of one dimension, most first. */
export function listBody(state: DashboardState, siteId: string, period: Period, dimension: FilterDimension, limit: number): QueryBody {
  return {
    ...scopeOf(state, siteId, period),
    metrics: ['visitors'],
    dimensions: [queryDimension(dimension)],
    pagination: { limit },
  };
}

/** The custom properties' keys the period's events hold (footfall's event:props), most visitors first. */
export function propKeysBody(state: DashboardState, siteId: string, period: Period): QueryBody {
  return { ...scopeOf(state, siteId, period), metrics: ['visitors'], dimensions: ['event:props'], pagination: { limit: 100 } };
}

/** Actions: each action (name and detail) with the visits that did it and how many times, most visits first. */
export function actionsBody(state: DashboardState, siteId: string, period: Period, limit: number): QueryBody {
  return {
    ...scopeOf(state, siteId, period),
    metrics: ['visits', 'events'],
    dimensions: ['event:action'],
    pagination: { limit },
  };
}

/** Goal conversions: the visitors who reached each goal, its completions, and the share of the period's visitors. */
export function goalsBody(state: DashboardState, siteId: string, period: Period): QueryBody {
  return { ...scopeOf(state, siteId, period), metrics: ['visitors', 'events', 'conversion_rate'], dimensions: ['event:goal'] };
}

/** A row's value of one dimension as a key: null for "(none)". */
export function rowKey(row: QueryRow, index = 0): string | null {
  const v = row.dimensions[index];
  return v === NONE ? null : String(v);
}
