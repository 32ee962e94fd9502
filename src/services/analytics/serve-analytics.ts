// serveAnalytics: the one path every analytics endpoint (metrics, reports, goal conversions) takes
// after the HTTP pipeline has checked the caller, rate limit, plan, scope, parameters, site and tenant
// access and site status. It runs the rest of docs/product.md §7.2 in order:
//
//   range (defaults, prev_period) -> retention 422 RETENTION_EXCEEDED -> max_range_days 422
//   -> plan(range): the route's own range rules (e.g. content include, 422), its units and builder
//   -> availability 409 (REPORT_LOCKED_BY_PROFILE / REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD)
//   -> response cache hit that fits the budget: charged in one step (402 at the cap), answered
//   -> hard cap 402 (ctx.meter reserves) -> build current and compare in parallel under the
//      query timeout (EngineError -> 503, nothing charged)
//   -> envelope, JSON.stringify, 5 MiB budget (422 REPORT_RESPONSE_TOO_LARGE, nothing charged,
//      nothing cached) -> cache store -> commit -> the serialized body.
//
// serveAnalyticsAs runs the same path with another rendering of the data (rendering.ts: the metrics
// routes' CSV), whose bytes the budget measures and the cache keeps apart from the envelope's.
//
// Usage from a route (the body is already JSON; wrap it so the pipeline sends it as is):
//
//   async handler(ctx) {
//     return new RawJson(await serveAnalytics(ctx, {
//       route: 'content',                         // availability route family
//       dimensions: [],                           // metrics only: grouping + filter dimensions
//       query: ctx.query,                         // from, to, compare, traffic as sent
//       plan: (range) => {                        // after retention and max_range_days
//         const include = resolveContentInclude({ include: ctx.query.include, days: range.current.days, compare: range.compare !== null });
//         return {
//           units: reportUnits({ report: 'content', days: range.current.days, limit, compare: range.compare !== null, include }),
//           cacheParams: { include, limit },      // everything else the payload depends on
//           include,                              // details.include of REPORT_RESPONSE_TOO_LARGE
//           build: (w) => buildContent(w, include, limit),   // once for current, once for compare
//         };
//       },
//     }));
//   }
//
// A builder reads only through `w.run(spec)` or `w.reads` with `w.scope` (site, tenant scope, traffic) and
// counts `w.count` (null: nothing compatible to count, return the empty payload) or, for a
// section of a mixed route, `w.sections[id]`; `w.days` is the requested window for dense series.
import type { Availability, MsWindow, SectionId, ServedRoute } from '../../domain/availability.js';
import { availabilityRefuses, buildAvailability, type AvailabilityInput } from '../../domain/availability.js';
import { ApiError, EngineError } from '../../domain/errors.js';
import { TRAFFIC_FILTERS, type TrafficFilter } from '../../domain/events.js';
import type { MetricRow } from '../../domain/query/assemble.js';
import type { QuerySpec } from '../../domain/query/query-spec.js';
import { retentionName } from '../../domain/read-policy.js';
import { resolveReportRange, type DayWindow, type ResolvedRange } from '../../domain/report-range.js';
import type { AnalyticsReads, ReadScope, RunOptions } from '../../ports/analytics-engine.js';
import type { Site, Tenant } from '../../ports/catalog-store.js';
import type { Caller } from '../caller.js';
import type { AnalyticsDeps, AppDeps } from '../deps.js';
import { termsOf, type MeteredMeta } from '../metering.js';
import { MAX_RESPONSE_BYTES, checkResponseBudget } from './budget.js';
import { envelopeRendering, type Rendering } from './rendering.js';
import { metaUpperBound, serializeMeta, type EnvelopeData, type SerializedData } from './report-envelope.js';
import { siteFacts, type SiteFacts } from './site-facts.js';
import { buildSurface, dataFreshness } from './surface.js';

/** What serveAnalytics needs of the route context (RouteContext satisfies it). */
export interface AnalyticsContext {
  /** the route's declared url: the cache namespace, so no two routes share an entry */
  routeUrl: string;
  deps: AppDeps;
  caller: Caller;
  requestId: string;
  arrivedAt: Date;
  site: Site | null;
  tenant: Tenant | null;
  meter<T>(units: number, run: () => Promise<T>): Promise<{ value: T; meta: MeteredMeta }>;
  /** reserve and commit in one step (a cache hit that fits the budget) */
  charge(units: number): Promise<MeteredMeta>;
}

/** The common parameters as sent (validated by the route schema; dates checked here). */
export interface AnalyticsQuery {
  from?: string;
  to?: string;
  compare?: string;
  traffic?: string;
}

/** Who and what a query may count: put these into every read. */
export type AnalyticsScope = ReadScope;

export interface AnalyticsWindow {
  which: 'current' | 'compare';
  /** the requested UTC days (dense series, dates in the payload) */
  days: DayWindow;
  /** the route-level counting window; null = nothing compatible to count (empty payload) */
  count: MsWindow | null;
  /** mixed routes: each enriched section's counting window (null = locked or no data: empty slice) */
  sections: Partial<Record<SectionId, MsWindow | null>>;
  scope: AnalyticsScope;
  availability: Availability;
  /** the site's first and newest stored event (ms, null without data), e.g. for data_health */
  facts: SiteFacts;
  /** runs a spec on the analytics engine within what is left of the request's query timeout */
  run(spec: QuerySpec): Promise<MetricRow[]>;
  /** every read of the analytics engine, likewise (reads.run is run) */
  reads: AnalyticsReads;
}

export interface AnalyticsPlan<P> {
  /** metered units of this request (cache hits cost the same) */
  units: number;
  /**
   * Everything else the payload depends on, normalized: request parameters, and catalog facts an
   * import does not change (goal definitions, tenant labels). Range, traffic, site profile, tenant
   * scope and the stored events (data version) are in the key already.
   */
  cacheParams: Record<string, unknown>;
  /** details.include of REPORT_RESPONSE_TOO_LARGE; default 'full' */
  include?: string;
  build(window: AnalyticsWindow): Promise<P>;
}

export interface ServeAnalyticsRequest<P> {
  /** availability route family */
  route: ServedRoute;
  /** dimensions grouped or filtered by (extended-only ones make a metrics route extended-only) */
  dimensions?: readonly string[];
  query: AnalyticsQuery;
  /** route rules after the range is resolved (may throw 422), then units and the builder */
  plan(range: ResolvedRange): AnalyticsPlan<P> | Promise<AnalyticsPlan<P>>;
}

/** Resolves the request to its serialized envelope, UTF-8 (wrap in RawJson), or throws the ApiError to answer. */
export async function serveAnalytics<P>(ctx: AnalyticsContext, req: ServeAnalyticsRequest<P>): Promise<Buffer> {
  return (await serveAnalyticsAs(ctx, req, envelopeRendering)).body;
}

/**
 * The same path, written by `rendering` (e.g. CSV): the body, and the range it resolved (a CSV's file
 * name says it). Units, cache and budget are the envelope's, applied to the rendering's bytes.
 */
export async function serveAnalyticsAs<P>(
  ctx: AnalyticsContext,
  req: ServeAnalyticsRequest<P>,
  rendering: Rendering<P>,
): Promise<{ body: Buffer; range: ResolvedRange }> {
  const { deps, caller } = ctx;
  const site = ctx.site;
  if (!site) throw new Error('serveAnalytics needs a route that declares `site`');

  const range = resolveReportRange({
    from: req.query.from,
    to: req.query.to,
    compare: req.query.compare,
    retentionDays: caller.policy.retention_days,
    retentionName: retentionName(caller.policy),
    maxRangeDays: caller.policy.max_range_days,
    clock: { now: () => ctx.arrivedAt },
  });
  const plan = await req.plan(range);

  const analytics = deps.analytics;
  if (!analytics) throw new ApiError('ANALYTICS_DB_UNAVAILABLE');
  // a store still loading (the demo behind npm start) says so in notes, and its answers are not cached
  const notes = analytics.notes?.(site.id) ?? [];
  const cache = notes.length === 0 ? (analytics.cache ?? null) : null;
  // one version per request: the cache key, and the snapshot every read of this request sees
  // (without a cache to remember the facts under the version, they are read alongside it: one round trip, not two)
  const versionRead = analytics.engine.dataVersion(site.id);
  const factsRead = cache
    ? versionRead.then((version) => siteFacts(analytics.engine, site.id, { cache, version }))
    : siteFacts(analytics.engine, site.id, null);
  const [version, facts] = await withDeadline(Promise.all([versionRead, factsRead]), deps.config.queryTimeoutMs);

  const availabilityInput: AvailabilityInput = {
    route: req.route,
    dimensions: req.dimensions,
    profile: site.collectionProfile,
    effectiveAt: site.profileEffectiveAt,
    current: range.current,
    compare: range.compare,
    firstEventAtMs: facts.firstEventMs,
  };
  // The 409 is decided on every request; the windows themselves are written only into a fresh answer
  // (a cached one holds them already, and its key holds everything they depend on).
  if (availabilityRefuses(availabilityInput)) throw buildAvailability(availabilityInput).error!;

  const scope: AnalyticsScope = {
    siteId: site.id,
    tenantIds: ctx.tenant ? [ctx.tenant.id] : caller.grant.tenantIds,
    trafficClasses: TRAFFIC_FILTERS[(req.query.traffic ?? 'humans') as TrafficFilter] ?? TRAFFIC_FILTERS.humans,
  };
  const key = cache
    ? cacheKey({
        routeUrl: ctx.routeUrl,
        rendering: rendering.cacheName,
        site,
        scope,
        range,
        version,
        params: plan.cacheParams,
        traffic: req.query.traffic ?? 'humans',
      })
    : null;
  const hit = key ? await cache!.get(key) : undefined;
  if (key) deps.metrics?.responseCache(hit ? 'hit' : 'miss');

  const terms = termsOf(caller.api);
  const surface = buildSurface({
    site,
    workspace: caller.workspace,
    range,
    freshness: dataFreshness(
      facts.newestEventMs,
      ctx.arrivedAt.getTime(),
      hit !== undefined,
      notes,
      deps.collector?.progress(site.id) ?? null,
    ),
  });
  const maxBytes = analytics.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const surfaceJson = JSON.stringify(surface);
  const charged = caller.metering === 'metered' ? plan.units : 0;
  const bound = metaUpperBound({ requestId: ctx.requestId, units: charged, included: terms.included, hardCap: terms.hardCap, surfaceJson });

  // A hit that fits the budget can fail no more: charge it in one ledger step. (One that does not
  // fit takes the metered path below, which answers 402 before 422 like a miss.)
  const cached: SerializedData | null = hit ? { buf: hit.body } : null;
  if (cached && rendering.bytes(cached, bound) <= maxBytes) {
    const meta = await ctx.charge(plan.units);
    return { body: rendering.body(cached, serializeMeta({ request_id: ctx.requestId, ...meta }, surfaceJson)), range };
  }

  const { value: data, meta } = await ctx.meter(plan.units, async (): Promise<SerializedData> => {
    const serialized: SerializedData =
      cached ??
      rendering.serialize(
        await buildData(analytics, deps.config.queryTimeoutMs, version, plan, range, buildAvailability(availabilityInput), scope, facts),
      );
    // Inside the metered run: a rejection releases the reservation, so it costs nothing.
    checkResponseBudget(rendering.bytes(serialized, bound), { include: plan.include ?? 'full', rangeDays: range.current.days }, maxBytes);
    if (!cached && key) await cache!.set(key, { body: serialized.buf });
    return serialized;
  });
  return { body: rendering.body(data, serializeMeta({ request_id: ctx.requestId, ...meta }, surfaceJson)), range };
}

/** The data part of a fresh answer: current and compare built in parallel under the query timeout. */
async function buildData<P>(
  analytics: AnalyticsDeps,
  timeoutMs: number,
  version: string,
  plan: AnalyticsPlan<P>,
  range: ResolvedRange,
  decision: ReturnType<typeof buildAvailability>,
  scope: AnalyticsScope,
  facts: SiteFacts,
): Promise<EnvelopeData<P>> {
  const deadline = Date.now() + timeoutMs;
  const engine = analytics.engine;
  const within = <T>(read: (options: RunOptions) => Promise<T>): Promise<T> => {
    const left = deadline - Date.now();
    if (left <= 0) return Promise.reject(new EngineError('timeout'));
    return withDeadline(read({ timeoutMs: left, asOf: version }), left);
  };
  const reads: AnalyticsReads = {
    run: (spec) => within((o) => engine.run(spec, o)),
    actionRows: (r) => within((o) => engine.actionRows(r, o)),
    actionTotals: (r) => within((o) => engine.actionTotals(r, o)),
    goalMatches: (r) => within((o) => engine.goalMatches(r, o)),
    pageTitles: (r) => within((o) => engine.pageTitles(r, o)),
    queryRows: (r) => within((o) => engine.queryRows(r, o)),
    funnelSteps: (r) => within((o) => engine.funnelSteps(r, o)),
  };
  const windowOf = (which: 'current' | 'compare', days: DayWindow): AnalyticsWindow => {
    const sections: AnalyticsWindow['sections'] = {};
    for (const [id, counts] of Object.entries(decision.sectionCount)) sections[id as SectionId] = counts?.[which] ?? null;
    return {
      which,
      days,
      count: decision.count[which],
      sections,
      scope,
      availability: decision.availability,
      facts,
      run: reads.run,
      reads,
    };
  };
  const [current, compare] = await withDeadline(
    Promise.all([plan.build(windowOf('current', range.current)), range.compare ? plan.build(windowOf('compare', range.compare)) : null]),
    timeoutMs,
  );
  return { current, compare, range: range.range, availability: decision.availability };
}

/** Rejects with EngineError('timeout') after `ms`, for an engine that does not stop by itself. */
export function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EngineError('timeout')), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Everything the data part of the envelope depends on. The site's profile and effective_at are in
 * it because availability is part of the cached text; the data version makes every entry written
 * before an import unreachable.
 */
export function cacheKey(input: {
  routeUrl: string;
  /** a rendering other than the envelope (csv) */
  rendering?: string | null;
  site: Site;
  scope: AnalyticsScope;
  range: ResolvedRange;
  version: string;
  traffic: string;
  params: Record<string, unknown>;
}): string {
  const { site, range } = input;
  // Only the plan's parameters are written in an order that can vary (stableJson); the rest in this one.
  const fixed = JSON.stringify([
    input.rendering ? `${input.routeUrl} ${input.rendering}` : input.routeUrl,
    site.id,
    site.collectionProfile,
    site.profileEffectiveAt,
    input.scope.tenantIds === null ? null : [...input.scope.tenantIds].sort(),
    input.traffic,
    range.current.from,
    range.current.to,
    range.compare !== null,
    input.version,
  ]);
  return fixed + stableJson(input.params);
}

/** JSON with object keys sorted, so equal parameters give equal keys whatever order built them. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v as object)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}
