// POST /api/v2/query after the HTTP pipeline (caller, rate limit, scope, site and tenant access, site
// status): the rest of the order /v1 keeps, in the site's time zone (docs/decisions/query-api.md):
//
//   body checked whole (422 naming the field) -> dimensions footfall collects (422) and the plan's
//   gates (403: hourly, tenant dimension, CSV) -> the profile (409 for what strict does not store)
//   -> date_range in the site's zone -> retention 422 RETENTION_EXCEEDED, max_range_days 422
//   -> hard cap 402 (ctx.meter reserves) -> the reads of both windows in parallel under the query
//   timeout (EngineError -> 503, nothing charged) -> results, 5 MiB budget -> commit -> the body.
//
// Answers are kept in the analytics response cache as /v1's are (the dashboard asks the same bodies on
// every load of a page): the key holds everything the answer depends on, the data version included, so
// an import or a load makes older entries unreachable; a hit is charged as a miss would be.
import { ApiError, EngineError, invalidParams } from '../../domain/errors.js';
import { queryUnits } from '../../domain/metering.js';
import {
  isTimeDimension,
  type QueryBody,
  type QueryDimension,
  type QueryFilter,
  type TimeDimension,
} from '../../domain/query-api/query-body.js';
import { queryGroupOf, type QueryGroup } from '../../domain/query-api/query-groups.js';
import { atomsOf, type QueryAtom } from '../../domain/query-api/query-metrics.js';
import { groupBaseKey, queryResults, type GroupedRow, type ResultRow, type WindowRows } from '../../domain/query-api/query-results.js';
import { bucketUnitOf, checkWindow, compareWindow, type QueryWindow } from '../../domain/query-api/query-window.js';
import { zonedBucketing, type ZonedBucketing } from '../../domain/query-api/zone-buckets.js';
import { HOURLY_REFUSAL, tenantDimensionRefusal } from '../../domain/read-policy.js';
import { isoInstant } from '../../domain/report-range.js';
import type { NamedGoal, QueryRowsRequest, ReadScope } from '../../ports/analytics-engine.js';
import { checkResponseBudget, MAX_RESPONSE_BYTES } from '../analytics/budget.js';
import { csvText } from '../analytics/csv.js';
import type { AnalyticsContext } from '../analytics/serve-analytics.js';
import { checkProfile, extendedNotes, filterGroups, goalsNamed, namesGoal, scopeOf, withDeadline, zonedRead } from './query-read-kit.js';
import { rollupRead } from './rollup-reads.js';

/** What the pipeline found: the caller's context, and whether the answer is CSV. */
export interface ServeQueryInput {
  ctx: AnalyticsContext;
  body: QueryBody;
  csv: boolean;
}

const nonTime = (dims: readonly QueryDimension[]) => dims.filter((d) => !isTimeDimension(d)) as Exclude<QueryDimension, TimeDimension>[];

/** What a strict site's event:action answer says it leaves out. */
export const STRICT_ACTIONS_NOTE =
  'This site collects under the strict profile, which keeps clicks, outbound links, downloads and form submissions only: custom events and errors are not listed.';

/**
 * The groups the dimensions read, in order; refuses what footfall does not collect. A strict site's
 * event:action lists the simple actions alone, as /v1's actions report does: actions of other families
 * stored before a switch to strict are not served.
 */
function groupsOf(body: QueryBody, strict: boolean): QueryGroup[] {
  return nonTime(body.dimensions).map((d) => {
    const g = queryGroupOf(d, `dimensions[${body.dimensions.indexOf(d)}]`);
    return g.kind === 'action' && strict ? { ...g, simpleOnly: true } : g;
  });
}

/** Plan gates (403) and the profile (409), before anything is read or charged. */
function checkAllowed(input: ServeQueryInput, groups: QueryGroup[]): void {
  const { ctx, body } = input;
  const policy = ctx.caller.policy;
  const timeDim = body.dimensions.find(isTimeDimension);
  if (timeDim === 'time:hour' && !policy.hourly) throw new ApiError('FORBIDDEN', HOURLY_REFUSAL);
  if (body.dimensions.includes('visit:tenant') && !policy.tenant_dimension) throw new ApiError('FORBIDDEN', tenantDimensionRefusal(policy));
  if (body.dimensions.includes('event:props') && body.dimensions.includes('event:goal'))
    throw invalidParams(
      `dimensions[${body.dimensions.indexOf('event:props')}]: event:props (the properties' keys) and event:goal are not grouped together: ask one, then filter by the other`,
      { field: `dimensions[${body.dimensions.indexOf('event:props')}]` },
    );
  checkProfile(ctx, [...groups, ...filterGroups(body.filters)]);
}

/** The filters without those on event:goal (at the top level and inside an "and"): the visitors conversions divide by. */
function withoutGoal(filters: readonly QueryFilter[]): QueryFilter[] {
  const out: QueryFilter[] = [];
  for (const f of filters) {
    if ('dimension' in f && f.dimension === 'event:goal') continue;
    if ('filters' in f && f.op === 'and') {
      const inner = withoutGoal(f.filters);
      if (inner.length) out.push({ op: 'and', filters: inner });
      continue;
    }
    out.push(f);
  }
  return out;
}

interface WindowPlan {
  window: QueryWindow;
  bucketing: ZonedBucketing | null;
}

/** The answer's text: the JSON envelope, or CSV when input.csv. */
export async function serveQuery(input: ServeQueryInput): Promise<string> {
  const { ctx, body } = input;
  const { deps, caller } = ctx;
  const site = ctx.site!;
  const groups = groupsOf(body, site.collectionProfile === 'strict');
  checkAllowed(input, groups);
  const goals = await goalsNamed(ctx, body.dimensions.includes('event:goal') || namesGoal(body.filters));
  const { engine, version, zone, range, window: current, limits, cache } = await zonedRead(ctx, body.dateRange);
  const compared = body.include.compare ? compareWindow(zone, current, range, body.include.compare) : null;
  if (compared) checkWindow(compared, limits, 'include.compare');
  const notes = extendedNotes(ctx, [...groups, ...filterGroups(body.filters)], compared ? [current, compared] : [current]);
  if (groups.some((g) => g.kind === 'action' && g.simpleOnly)) notes.push(STRICT_ACTIONS_NOTE);

  const timeDim = body.dimensions.find(isTimeDimension);
  const unit = timeDim ? bucketUnitOf(timeDim, current) : null;
  if (unit === 'hour' && !caller.policy.hourly) throw new ApiError('FORBIDDEN', HOURLY_REFUSAL);
  const planOf = (w: QueryWindow): WindowPlan => ({ window: w, bucketing: unit ? zonedBucketing(zone, w.from, w.to, unit, w) : null });
  const plans = [planOf(current), ...(compared ? [planOf(compared)] : [])];

  const units = queryUnits({ days: current.days, dimensions: body.dimensions.length, hourly: unit === 'hour', compare: compared !== null });
  const scope: ReadScope = scopeOf(ctx, body.traffic);

  // (a store still loading, the demo behind npm start, keeps no answer: zonedRead gives no cache then)
  const analytics = deps.analytics!;
  const key = cache
    ? JSON.stringify([
        'query',
        input.csv,
        site.id,
        site.collectionProfile,
        site.profileEffectiveAt,
        zone,
        version,
        scope.tenantIds === null ? null : [...scope.tenantIds].sort(),
        scope.trafficClasses,
        plans.map((p) => [p.window.startMs, p.window.endMs]),
        goals,
        body,
        // how it is read (the rollups can be turned off, as the tests that compare both ways do)
        analytics.queryRollups !== false,
      ])
    : null;
  const hit = key ? await cache!.get(key) : undefined;
  if (key) deps.metrics?.responseCache(hit ? 'hit' : 'miss');

  const { value, meta } = await ctx.meter(units, async (): Promise<Rendered> => {
    if (hit) return JSON.parse(hit.body.toString('utf8')) as Rendered;
    const deadline = Date.now() + deps.config.queryTimeoutMs;
    const read = (req: QueryRowsRequest): Promise<GroupedRow[]> => {
      const left = deadline - Date.now();
      if (left <= 0) return Promise.reject(new EngineError('timeout'));
      const options = { timeoutMs: left, asOf: version };
      // where the daily rollups answer exactly, /v1's read of them (rollup-reads.ts); else the events
      const rollup = deps.analytics!.queryRollups === false ? null : rollupRead(req);
      const rows = rollup ? engine.run(rollup.spec, options).then(rollup.rows) : engine.queryRows(req, options);
      return withDeadline(rows, left);
    };
    const windows = await Promise.all(plans.map((p) => readWindow(read, body, groups, goals, scope, p)));
    const { results, totalRows } = queryResults(body, windows[0], windows[1] ?? null);
    const answer = render(body, site.id, zone, current, plans[0].bucketing, results, totalRows, notes, input.csv);
    // the meta of the ledger is added after the commit: a few hundred bytes the budget allows for
    const bytes = Buffer.byteLength(answer.csv ?? answer.results) + 1024;
    checkResponseBudget(bytes, { include: 'full', rangeDays: current.days }, deps.analytics!.maxResponseBytes ?? MAX_RESPONSE_BYTES);
    if (key) await cache!.set(key, { body: Buffer.from(JSON.stringify(answer)) });
    return answer;
  });
  if (value.csv !== undefined) return value.csv;
  const fullMeta = { request_id: ctx.requestId, ...meta, ...value.meta };
  return `{"results":${value.results},"meta":${JSON.stringify(fullMeta)},"query":${JSON.stringify(value.query)}}`;
}

/** The rows of one window, and the visitors its shares divide by (percentage, conversion rates). */
async function readWindow(
  read: (req: QueryRowsRequest) => Promise<GroupedRow[]>,
  body: QueryBody,
  groups: QueryGroup[],
  goals: NamedGoal[],
  scope: ReadScope,
  plan: WindowPlan,
): Promise<WindowRows> {
  const base = {
    scope,
    window: { startMs: plan.window.startMs, endMs: plan.window.endMs },
    bucketing: plan.bucketing?.bucketing ?? null,
    goals,
  };
  const atoms: QueryAtom[] = atomsOf(body.metrics);
  const m = new Set(body.metrics);
  const visitorsBy = async (filters: readonly QueryFilter[], by: QueryGroup[]) =>
    read({ ...base, filters, groups: by, atoms: ['visitors'] });
  const noGoal = withoutGoal(body.filters);
  const goalAt = groups.findIndex((g) => g.kind === 'goal');
  const otherGroups = groups.filter((g) => g.kind !== 'goal');
  const [rows, totals, conversion, group] = await Promise.all([
    read({ ...base, filters: body.filters, groups, atoms }),
    m.has('percentage') ? visitorsBy(body.filters, []) : null,
    m.has('conversion_rate') ? visitorsBy(noGoal, []) : null,
    m.has('group_conversion_rate') ? visitorsBy(noGoal, otherGroups) : null,
  ]);
  const byBucket = (rs: GroupedRow[] | null) => (rs ? new Map(rs.map((r) => [r.bucket, r.atoms.visitors ?? 0])) : undefined);
  return {
    rows,
    label: plan.bucketing ? plan.bucketing.label : () => '',
    labels: plan.bucketing?.labels ?? [],
    totals: byBucket(totals),
    conversionBases: byBucket(conversion),
    groupBases: group ? new Map(group.map((r) => [groupBaseKey(r.keys, r.bucket), r.atoms.visitors ?? 0])) : undefined,
    baseKeys: (keys) => keys.filter((_, i) => i !== goalAt),
  };
}

/** The answer's parts: Plausible's JSON ({results, meta, query}; the results serialized) or CSV (dimensions then metrics). */
interface Rendered {
  results: string;
  meta: Record<string, unknown>;
  query: Record<string, unknown>;
  csv?: string;
}

function render(
  body: QueryBody,
  siteId: string,
  zone: string,
  w: QueryWindow,
  bucketing: ZonedBucketing | null,
  results: ResultRow[],
  totalRows: number,
  notes: string[],
  csv: boolean,
): Rendered {
  const meta: Record<string, unknown> = { timezone: zone, imports_included: false };
  if (body.include.timeLabels && bucketing) meta.time_labels = bucketing.labels;
  if (body.include.totalRows) meta.total_rows = totalRows;
  if (notes.length) meta.notes = notes;
  const query = {
    site_id: siteId,
    date_range: [isoInstant(w.startMs), isoInstant(w.endMs - 1)],
    metrics: body.metrics,
    dimensions: body.dimensions,
    order_by: body.orderBy,
    pagination: body.pagination,
  };
  if (!csv) return { results: JSON.stringify(results), meta, query };
  const header = [...body.dimensions, ...body.metrics];
  return {
    results: '',
    meta,
    query,
    csv: csvText(
      header,
      results.map((r) => [...r.dimensions, ...r.metrics]),
    ),
  };
}
