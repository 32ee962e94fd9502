// The body of POST /api/v2/query (Plausible's Stats API v2, with footfall's tenant_id and traffic),
// checked whole before anything is read: every refusal is one 422 naming the field by its JSON path
// (`filters[1][2][0]`) and saying what to send. What it means in a site's zone is resolved later
// (date-range.ts); which metrics and dimensions a site's plan and profile allow is the read policy's.
import { RE2JS } from 're2js';
import { invalidParams } from '../errors.js';
import { TRAFFIC_FILTERS, type TrafficFilter } from '../events.js';
import { MAX_FILTER_VALUE_LENGTH } from '../query/query-spec.js';
import { unstorableReason } from '../storable-text.js';
import { type DateRangeInput, parseDateRange } from './date-range.js';

export const QUERY_METRICS = [
  'visitors',
  'visits',
  'pageviews',
  'events',
  'views_per_visit',
  'bounce_rate',
  'visit_duration',
  'percentage',
  'conversion_rate',
  'group_conversion_rate',
] as const;
export type QueryMetric = (typeof QUERY_METRICS)[number];

/** Metrics of the visit: with an event dimension other than the page they have no meaning (a visit spans events). */
const SESSION_METRICS: readonly QueryMetric[] = ['views_per_visit', 'bounce_rate', 'visit_duration'];

/**
 * Footfall's own: `event:props`, the keys of the events' custom properties (then `event:props:<key>` for one's
 * values); `event:action`, the actions (never a pageview) by name and detail (ACTION_DETAIL_SEPARATOR).
 */
export const EVENT_DIMENSIONS = ['event:page', 'event:hostname', 'event:goal', 'event:name', 'event:props', 'event:action'] as const;

/**
 * An event:action value: the action's name, then its detail when it has one (an outbound link's host, a
 * form's id, else the element's id), as `name · detail`.
 */
export const ACTION_DETAIL_SEPARATOR = ' · ';
export const VISIT_DIMENSIONS = [
  'visit:entry_page',
  'visit:exit_page',
  'visit:source',
  'visit:referrer',
  'visit:channel',
  'visit:utm_source',
  'visit:utm_medium',
  'visit:utm_campaign',
  'visit:utm_content',
  'visit:utm_term',
  'visit:device',
  'visit:browser',
  'visit:os',
  'visit:country',
  'visit:region',
  'visit:city',
  'visit:country_name',
  'visit:region_name',
  'visit:city_name',
  'visit:tenant',
] as const;
export const TIME_DIMENSIONS = ['time', 'time:hour', 'time:day', 'time:week', 'time:month'] as const;

/** `event:props:<key>`: a custom property of the events. */
export type PropDimension = `event:props:${string}`;
export type EventDimension = (typeof EVENT_DIMENSIONS)[number] | PropDimension;
export type VisitDimension = (typeof VISIT_DIMENSIONS)[number];
export type TimeDimension = (typeof TIME_DIMENSIONS)[number];
export type QueryDimension = EventDimension | VisitDimension | TimeDimension;

/** A custom property's key: as collection and imports store them (1 to 300 characters). */
export const MAX_PROP_KEY_LENGTH = 300;
const PROP_PREFIX = 'event:props:';

export const MATCH_OPERATORS = ['is', 'is_not', 'contains', 'contains_not', 'matches', 'matches_not'] as const;
export type MatchOperator = (typeof MATCH_OPERATORS)[number];

export type QueryFilter =
  | { op: MatchOperator; dimension: EventDimension | VisitDimension; clauses: string[]; caseSensitive: boolean }
  | { op: 'and' | 'or'; filters: QueryFilter[] }
  | { op: 'not'; filter: QueryFilter }
  /** visits that hold (or do not hold) an event matching `filter`, an event filter */
  | { op: 'has_done' | 'has_not_done'; filter: QueryFilter };

export type CompareInput = { kind: 'previous_period' } | { kind: 'year_over_year' } | { kind: 'days'; from: string; to: string };

export interface QueryBody {
  /** a site id or one of its hostnames: the site is looked up, and checked against the token, later */
  siteId: string;
  dateRange: DateRangeInput;
  metrics: QueryMetric[];
  dimensions: QueryDimension[];
  /** the top level, joined by and */
  filters: QueryFilter[];
  orderBy: [string, 'asc' | 'desc'][];
  include: { totalRows: boolean; timeLabels: boolean; imports: boolean; compare: CompareInput | null };
  pagination: { limit: number; offset: number };
  tenantId: string | null;
  traffic: TrafficFilter;
}

export const MAX_QUERY_LIMIT = 10_000;
/** Nesting of and/or/not/has_done beyond this is refused: no question needs it, and a parser must not recurse without end. */
const MAX_FILTER_DEPTH = 8;
const MAX_FILTERS = 100;
const MAX_CLAUSES = 100;

const KEYS = ['site_id', 'date_range', 'metrics', 'dimensions', 'filters', 'order_by', 'include', 'pagination', 'tenant_id', 'traffic'];

const fail = (field: string, message: string) => invalidParams(`${field}: ${message}`, { field });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(field: string, v: unknown, max: number): string {
  if (typeof v !== 'string' || v.length === 0) throw fail(field, 'must be a non-empty string');
  if (v.length > max) throw fail(field, `is longer than ${max} characters`);
  const bad = unstorableReason(v);
  if (bad) throw fail(field, bad);
  return v;
}

function listOf(field: string, v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw fail(field, `must be a list of ${what}`);
  return v;
}

/** A dimension name as given, checked: the known event, visit and time dimensions, and `event:props:<key>`. */
export function parseDimension(field: string, v: unknown, opts: { time: boolean }): QueryDimension {
  if (typeof v !== 'string') throw fail(field, 'must be a dimension name such as "event:page" or "visit:country"');
  if (v.startsWith(PROP_PREFIX)) {
    const key = v.slice(PROP_PREFIX.length);
    if (key.length === 0 || key.length > MAX_PROP_KEY_LENGTH)
      throw fail(field, `a custom property dimension is event:props:<key>, the key 1 to ${MAX_PROP_KEY_LENGTH} characters`);
    const bad = unstorableReason(key);
    if (bad) throw fail(field, bad);
    return v as PropDimension;
  }
  if ((EVENT_DIMENSIONS as readonly string[]).includes(v) || (VISIT_DIMENSIONS as readonly string[]).includes(v))
    return v as QueryDimension;
  if ((TIME_DIMENSIONS as readonly string[]).includes(v)) {
    if (!opts.time) throw fail(field, `${v} is not a filter: set date_range to choose the period`);
    return v as TimeDimension;
  }
  const known = [...EVENT_DIMENSIONS, 'event:props:<key>', ...VISIT_DIMENSIONS, ...(opts.time ? TIME_DIMENSIONS : [])];
  throw fail(field, `unknown dimension "${v.slice(0, 60)}"; known: ${known.join(', ')}`);
}

export const isEventDimension = (d: string): d is EventDimension => d.startsWith('event:');
export const isTimeDimension = (d: string): d is TimeDimension => d === 'time' || d.startsWith('time:');

/** The kind of every match a filter holds: event or visit (an `or` or a `not` must hold one kind). */
function kindsOf(f: QueryFilter, out = new Set<'event' | 'visit'>()): Set<'event' | 'visit'> {
  if ('dimension' in f) out.add(isEventDimension(f.dimension) ? 'event' : 'visit');
  else if ('filters' in f) for (const g of f.filters) kindsOf(g, out);
  else if (f.op === 'not') kindsOf(f.filter, out);
  // has_done / has_not_done select visits, whatever their inner filter
  else out.add('visit');
  return out;
}

/** Every dimension a filter matches on, nested ones included. */
export function filterDimensions(f: QueryFilter): (EventDimension | VisitDimension)[] {
  if ('dimension' in f) return [f.dimension];
  if ('filters' in f) return f.filters.flatMap(filterDimensions);
  return filterDimensions(f.filter);
}

function parseFilter(field: string, v: unknown, depth: number): QueryFilter {
  if (!Array.isArray(v) || typeof v[0] !== 'string')
    throw fail(
      field,
      'a filter is [operator, dimension, [values]] (optionally with {"case_sensitive": false}), or ["and"|"or", [filters]], ["not", filter], ["has_done"|"has_not_done", filter]',
    );
  if (depth > MAX_FILTER_DEPTH) throw fail(field, `filters nest at most ${MAX_FILTER_DEPTH} deep`);
  const op = v[0];
  if (op === 'and' || op === 'or') {
    if (v.length !== 2) throw fail(field, `["${op}", [filters]] holds exactly one list of filters`);
    const inner = listOf(`${field}[1]`, v[1], 'filters');
    if (inner.length === 0) throw fail(`${field}[1]`, `${op} needs at least one filter`);
    const filters = inner.map((g, i) => parseFilter(`${field}[1][${i}]`, g, depth + 1));
    const f: QueryFilter = { op, filters };
    if (op === 'or' && kindsOf(f).size > 1) throw fail(field, 'an "or" holds event filters or visit filters, not both: split the question');
    return f;
  }
  if (op === 'not' || op === 'has_done' || op === 'has_not_done') {
    if (v.length !== 2) throw fail(field, `["${op}", filter] holds exactly one filter`);
    const filter = parseFilter(`${field}[1]`, v[1], depth + 1);
    if (op === 'not' && kindsOf(filter).size > 1) throw fail(field, 'a "not" holds event filters or visit filters, not both');
    if (op !== 'not' && [...kindsOf(filter)].some((k) => k !== 'event'))
      throw fail(
        `${field}[1]`,
        `${op} selects visits by the events they hold: its filter must be of event dimensions (event:page, event:goal, event:name, ...)`,
      );
    return { op, filter };
  }
  if (!(MATCH_OPERATORS as readonly string[]).includes(op))
    throw fail(
      `${field}[0]`,
      `unknown operator "${op.slice(0, 30)}"; known: ${[...MATCH_OPERATORS, 'and', 'or', 'not', 'has_done', 'has_not_done'].join(', ')}`,
    );
  if (v.length !== 3 && v.length !== 4) throw fail(field, `["${op}", dimension, [values]] with an optional {"case_sensitive": false}`);
  const dimension = parseDimension(`${field}[1]`, v[1], { time: false }) as EventDimension | VisitDimension;
  if (dimension === 'event:props')
    throw fail(`${field}[1]`, "event:props groups by the properties' keys: filter on one property as event:props:<key>");
  if (dimension === 'event:goal' && op !== 'is' && op !== 'contains')
    throw fail(`${field}[0]`, 'event:goal is filtered with "is" or "contains" only');
  const values = listOf(`${field}[2]`, v[2], 'strings');
  if (values.length === 0 || values.length > MAX_CLAUSES)
    throw fail(`${field}[2]`, `must hold 1 to ${MAX_CLAUSES} values (any one matching is a match)`);
  const clauses = values.map((c, i) => text(`${field}[2][${i}]`, c, MAX_FILTER_VALUE_LENGTH));
  if (op === 'matches' || op === 'matches_not') for (const [i, c] of clauses.entries()) checkRe2(`${field}[2][${i}]`, c);
  let caseSensitive = true;
  if (v.length === 4) {
    const m = v[3];
    if (!isObject(m) || Object.keys(m).some((k) => k !== 'case_sensitive') || typeof m.case_sensitive !== 'boolean')
      throw fail(`${field}[3]`, 'the modifiers are {"case_sensitive": true|false}');
    if (op === 'matches' || op === 'matches_not') throw fail(`${field}[3]`, 'a regular expression says its own case: start it with (?i)');
    caseSensitive = m.case_sensitive;
  }
  return { op: op as MatchOperator, dimension, clauses, caseSensitive };
}

/**
 * A pattern of `matches` must be RE2 (the syntax DuckDB and ClickHouse both run): checked here by a port
 * of RE2's own parser, so that a lookaround or a backreference is a 422 naming the clause, not an
 * engine's error.
 */
function checkRe2(field: string, pattern: string): void {
  try {
    RE2JS.compile(pattern);
  } catch (err) {
    const why = err instanceof Error ? err.message.replace(/^error parsing regexp: /, '') : 'not a pattern';
    throw fail(field, `is not a regular expression in RE2 syntax (${why}): lookarounds and backreferences are not supported`);
  }
}

function flag(field: string, v: unknown): boolean {
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw fail(field, 'must be true or false');
  return v;
}

function parseCompare(field: string, v: unknown): CompareInput | null {
  if (v === undefined || v === null) return null;
  if (v === 'previous_period' || v === 'year_over_year') return { kind: v };
  const range = (() => {
    try {
      return parseDateRange(v);
    } catch {
      return null;
    }
  })();
  if (range?.kind === 'days') return range;
  throw fail(field, 'is "previous_period", "year_over_year" or two dates ["2024-01-01", "2024-01-31"]');
}

function wholeNumber(field: string, v: unknown, min: number, max: number, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max)
    throw fail(field, `must be a whole number from ${min} to ${max}`);
  return v;
}

/** Checks a query body; the first problem is refused with its field. */
export function parseQueryBody(body: unknown): QueryBody {
  if (!isObject(body)) throw invalidParams('the body must be a JSON object: {"site_id", "date_range", "metrics", ...}', { field: '' });
  const unknown = Object.keys(body).find((k) => !KEYS.includes(k));
  if (unknown !== undefined) throw fail(unknown, `unknown field; the query's fields are ${KEYS.join(', ')}`);

  const siteId = parseSiteId(body.site_id);
  const dateRange = parseDateRange(body.date_range);

  const metricsIn = listOf('metrics', body.metrics ?? null, 'metric names');
  if (metricsIn.length === 0) throw fail('metrics', `name at least one of ${QUERY_METRICS.join(', ')}`);
  const metrics = metricsIn.map((m, i) => {
    if (typeof m !== 'string' || !(QUERY_METRICS as readonly string[]).includes(m))
      throw fail(`metrics[${i}]`, `unknown metric ${JSON.stringify(m)?.slice(0, 40)}; known: ${QUERY_METRICS.join(', ')}`);
    return m as QueryMetric;
  });
  const twice = metrics.find((m, i) => metrics.indexOf(m) !== i);
  if (twice) throw fail('metrics', `${twice} is named twice`);

  const dimensions = listOf('dimensions', body.dimensions ?? [], 'dimension names').map((d, i) =>
    parseDimension(`dimensions[${i}]`, d, { time: true }),
  );
  const dimTwice = dimensions.find((d, i) => dimensions.indexOf(d) !== i);
  if (dimTwice) throw fail('dimensions', `${dimTwice} is named twice`);
  if (dimensions.filter(isTimeDimension).length > 1)
    throw fail('dimensions', 'at most one time dimension (time, time:hour, time:day, time:week or time:month)');

  const filters = parseFilters(body.filters);

  const eventDimension = dimensions.find((d) => isEventDimension(d) && d !== 'event:page');
  const sessionMetric = metrics.find((m) => SESSION_METRICS.includes(m));
  if (eventDimension && sessionMetric)
    throw fail(
      'metrics',
      `${sessionMetric} is a metric of visits, which ${eventDimension} does not divide: ask it without that dimension (or by event:page)`,
    );
  if (metrics.includes('percentage') && dimensions.filter((d) => !isTimeDimension(d)).length === 0)
    throw fail('metrics', 'percentage is a share of the total: it needs a dimension other than time');
  const goalUsed = dimensions.includes('event:goal') || filters.some((f) => filterDimensions(f).includes('event:goal'));
  const conversion = metrics.find((m) => m === 'conversion_rate' || m === 'group_conversion_rate');
  if (conversion && !goalUsed) throw fail('metrics', `${conversion} needs an event:goal filter or dimension: whose conversions?`);

  const orderIn = listOf('order_by', body.order_by ?? [], '[name, "asc"|"desc"] pairs');
  const orderBy = orderIn.map((o, i): [string, 'asc' | 'desc'] => {
    if (!Array.isArray(o) || o.length !== 2 || typeof o[0] !== 'string' || (o[1] !== 'asc' && o[1] !== 'desc'))
      throw fail(`order_by[${i}]`, 'each is [metric or dimension, "asc" or "desc"]');
    if (!(metrics as string[]).includes(o[0]) && !(dimensions as string[]).includes(o[0]))
      throw fail(`order_by[${i}][0]`, `${o[0].slice(0, 60)} is neither a metric nor a dimension of this query`);
    return [o[0], o[1]];
  });

  const inc = body.include ?? {};
  if (!isObject(inc)) throw fail('include', 'must be an object: {"total_rows", "time_labels", "imports", "compare"}');
  const badInclude = Object.keys(inc).find((k) => !['total_rows', 'time_labels', 'imports', 'compare'].includes(k));
  if (badInclude !== undefined)
    throw fail(`include.${badInclude}`, 'unknown option; the options are total_rows, time_labels, imports, compare');
  const include = {
    totalRows: flag('include.total_rows', inc.total_rows),
    timeLabels: flag('include.time_labels', inc.time_labels),
    imports: flag('include.imports', inc.imports),
    compare: parseCompare('include.compare', inc.compare),
  };
  if (include.timeLabels && !dimensions.some(isTimeDimension)) throw fail('include.time_labels', 'needs a time dimension');

  const page = body.pagination ?? {};
  if (!isObject(page) || Object.keys(page).some((k) => k !== 'limit' && k !== 'offset'))
    throw fail('pagination', 'is {"limit": 1 to 10000, "offset": 0 or more}');
  const pagination = {
    limit: wholeNumber('pagination.limit', page.limit, 1, MAX_QUERY_LIMIT, MAX_QUERY_LIMIT),
    offset: wholeNumber('pagination.offset', page.offset, 0, Number.MAX_SAFE_INTEGER, 0),
  };

  return { siteId, dateRange, metrics, dimensions, filters, orderBy, include, pagination, ...parseAudience(body) };
}

/** `filters` of a body (the query API's, the funnel's): a list joined by and, absent meaning none. */
export function parseFilters(v: unknown): QueryFilter[] {
  const filtersIn = listOf('filters', v ?? [], 'filters');
  if (filtersIn.length > MAX_FILTERS) throw fail('filters', `at most ${MAX_FILTERS} filters`);
  return filtersIn.map((f, i) => parseFilter(`filters[${i}]`, f, 1));
}

/** `site_id` of a body: a site id or one of its hostnames. */
export function parseSiteId(v: unknown): string {
  return text('site_id', v, 253);
}

/** Whose events a body counts: `tenant_id` (absent or null: every tenant the caller may read) and `traffic` (default humans). */
export function parseAudience(body: Record<string, unknown>): { tenantId: string | null; traffic: TrafficFilter } {
  const tenantId = body.tenant_id === undefined || body.tenant_id === null ? null : text('tenant_id', body.tenant_id, 64);
  const trafficIn = body.traffic ?? 'humans';
  if (typeof trafficIn !== 'string' || !Object.hasOwn(TRAFFIC_FILTERS, trafficIn))
    throw fail('traffic', `is one of ${Object.keys(TRAFFIC_FILTERS).join(', ')} (default humans)`);
  return { tenantId, traffic: trafficIn as TrafficFilter };
}
