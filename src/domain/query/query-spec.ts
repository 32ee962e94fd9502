// QuerySpec: the one description of an analytics query that every engine compiles
// (ARCHITECTURE principle 5: parse -> build -> normalize -> execute -> assemble).
import { invalidParams } from '../errors.js';
import { TRAFFIC_CLASSES, type TrafficClass } from '../events.js';
import { DIMENSION_DEFS, isDimension, type Dimension } from './dimensions.js';
import { isMetric, type Metric } from './metrics.js';

export type Interval = 'day' | 'hour';
export type Filters = Partial<Record<Dimension, string | null>>;

export interface QuerySpec {
  siteId: string;
  /** null = every tenant of the site; [] = none (an empty result) */
  tenantIds: readonly string[] | null;
  /** counting window, inclusive ms since epoch; events by ts, sessions by their start */
  startMs: number;
  endMs: number;
  trafficClasses: readonly TrafficClass[];
  /** every filter must equal; null selects the "none" value (e.g. no referrer) */
  filters: Filters;
  metrics: readonly Metric[];
  /** breakdown grouping */
  dimension?: Dimension;
  /**
   * A second breakdown grouping, of session attributes: one row per (dimension key, split key), e.g.
   * landing pages per channel in one query. Rows sort by value, then key, then split key.
   */
  splitBy?: Dimension;
  /** series grouping (may combine with dimension, e.g. per-page trends; then no limit) */
  interval?: Interval;
  /** restricts the dimension to these keys (null = the "none" key) */
  keyIn?: readonly (string | null)[];
  /** breakdown rows kept after sorting */
  limit?: number;
  /** the metric rows are sorted by; default metrics[0] */
  orderBy?: Metric;
}

/** A spec after normalize(): validated, canonical order, orderBy set. */
export type NormalizedSpec = QuerySpec & { orderBy: Metric };

function fail(message: string): never {
  throw new RangeError(`invalid QuerySpec: ${message}`);
}

/**
 * Checks a built spec (a programming error throws RangeError: user input was validated when parsed)
 * and puts it in canonical form so equal queries compile to equal SQL.
 */
export function normalizeSpec(spec: QuerySpec): NormalizedSpec {
  if (typeof spec.siteId !== 'string' || spec.siteId === '') fail('siteId is required');
  if (!Number.isSafeInteger(spec.startMs) || !Number.isSafeInteger(spec.endMs)) fail('startMs/endMs must be integers');
  if (spec.startMs > spec.endMs) fail('startMs after endMs');
  const traffic = [...new Set(spec.trafficClasses)];
  if (traffic.length === 0 || traffic.some((t) => !TRAFFIC_CLASSES.includes(t))) fail('trafficClasses');
  if (spec.metrics.length === 0) fail('at least one metric');
  if (spec.metrics.some((m) => !isMetric(m))) fail(`unknown metric in ${spec.metrics.join(',')}`);
  if (new Set(spec.metrics).size !== spec.metrics.length) fail('duplicate metric');
  const orderBy = spec.orderBy ?? spec.metrics[0];
  if (!spec.metrics.includes(orderBy)) fail('orderBy must be one of metrics');
  if (spec.dimension !== undefined && !isDimension(spec.dimension)) fail(`unknown dimension ${spec.dimension}`);
  if (spec.interval !== undefined && spec.interval !== 'day' && spec.interval !== 'hour') fail('interval');
  if (spec.limit !== undefined) {
    if (!Number.isSafeInteger(spec.limit) || spec.limit < 1) fail('limit must be a positive integer');
    if (spec.dimension === undefined || spec.interval !== undefined) fail('limit needs a dimension and no interval');
  }
  if (spec.keyIn !== undefined && spec.dimension === undefined) fail('keyIn needs a dimension');
  if (spec.splitBy !== undefined) {
    if (spec.dimension === undefined) fail('splitBy needs a dimension');
    if (!isDimension(spec.splitBy) || DIMENSION_DEFS[spec.splitBy].scope !== 'session')
      fail(`splitBy must be a session dimension, not ${spec.splitBy}`);
    if (spec.splitBy === spec.dimension) fail('splitBy must differ from dimension');
  }
  const filters: Filters = {};
  for (const key of Object.keys(spec.filters).sort()) {
    if (!isDimension(key)) fail(`unknown filter dimension ${key}`);
    const v = spec.filters[key];
    if (v !== null && typeof v !== 'string') fail(`filter ${key} must be a string or null`);
    filters[key] = v;
  }
  const tenantIds = spec.tenantIds === null ? null : [...new Set(spec.tenantIds)].sort();
  const out: NormalizedSpec = {
    siteId: spec.siteId,
    tenantIds,
    startMs: spec.startMs,
    endMs: spec.endMs,
    trafficClasses: TRAFFIC_CLASSES.filter((t) => traffic.includes(t)),
    filters,
    metrics: [...spec.metrics],
    orderBy,
  };
  if (spec.dimension !== undefined) out.dimension = spec.dimension;
  if (spec.splitBy !== undefined) out.splitBy = spec.splitBy;
  if (spec.interval !== undefined) out.interval = spec.interval;
  if (spec.keyIn !== undefined) out.keyIn = [...new Set(spec.keyIn)];
  if (spec.limit !== undefined) out.limit = spec.limit;
  return out;
}

/** The dimensions a spec reads (its groupings and its filters): what availability classifies. */
export function dimensionsUsed(spec: Pick<QuerySpec, 'dimension' | 'splitBy' | 'filters'>): Dimension[] {
  const used = new Set<Dimension>(Object.keys(spec.filters) as Dimension[]);
  if (spec.dimension) used.add(spec.dimension);
  if (spec.splitBy) used.add(spec.splitBy);
  return [...used];
}

/** The same query without its series grouping: its `total` is the range's own value (docs/product.md §8.4). */
export function totalSpec<T extends QuerySpec>(spec: T): T {
  const { interval: _interval, ...rest } = spec;
  return rest as T;
}

/** Maximum length of one filter value; longer values cannot match a stored page, host or label. */
export const MAX_FILTER_VALUE_LENGTH = 2048;

/**
 * Parse stage of the filter query parameter (docs/product.md §5: a JSON object string, dimension name to string
 * value). Throws 422 INVALID_PARAMS naming `param` on anything else. `refused` dimensions are not
 * filters on this route: each is refused with its own message and left out of the allowed list.
 */
export function parseFilterParam(raw: string, param = 'filters', refused: Partial<Record<Dimension, string>> = {}): Filters {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalidParams(`${param} must be a JSON object`, { parameter: param });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalidParams(`${param} must be a JSON object`, { parameter: param });
  }
  const out: Filters = {};
  for (const [key, value] of Object.entries(parsed)) {
    const refusal = Object.hasOwn(refused, key) ? refused[key as Dimension] : undefined;
    if (refusal !== undefined) throw invalidParams(`${param}: ${refusal}`, { parameter: param, dimension: key });
    if (!isDimension(key)) {
      const allowed = Object.keys(DIMENSION_DEFS).filter((d) => !Object.hasOwn(refused, d));
      throw invalidParams(`${param}: unknown dimension "${key}"; allowed: ${allowed.join(', ')}`, {
        parameter: param,
        dimension: key,
        allowed,
      });
    }
    if (typeof value !== 'string')
      throw invalidParams(`${param}: value of "${key}" must be a string`, { parameter: param, dimension: key });
    if (value.length > MAX_FILTER_VALUE_LENGTH) {
      throw invalidParams(`${param}: value of "${key}" is longer than ${MAX_FILTER_VALUE_LENGTH} characters`, {
        parameter: param,
        dimension: key,
      });
    }
    out[key] = value;
  }
  return out;
}
