// What the POST reads over raw events (/api/v2/query, /api/v2/funnel) do alike after the pipeline:
// the site's facts and data version, date_range in the site's zone with retention and the plan's
// longest range, the scope of the caller, the goals event:goal names, the profile's refusal, and a
// deadline for engines that do not stop by themselves (serve-analytics' withDeadline, re-exported).
import { ApiError } from '../../domain/errors.js';
import { TRAFFIC_FILTERS, type TrafficFilter } from '../../domain/events.js';
import { type DateRangeInput, resolveDateRange, type ResolvedDateRange } from '../../domain/query-api/date-range.js';
import { filterDimensions, type QueryFilter } from '../../domain/query-api/query-body.js';
import { isExtendedOnlyGroup, type QueryGroup, queryGroupOf } from '../../domain/query-api/query-groups.js';
import { checkWindow, type QueryWindow, type RangeLimits, windowOf } from '../../domain/query-api/query-window.js';
import { retentionName } from '../../domain/read-policy.js';
import { localDay } from '../../domain/zoned-time.js';
import type { AnalyticsEngine, NamedGoal, ReadScope } from '../../ports/analytics-engine.js';
import type { ResponseCache } from '../../ports/response-cache.js';
import type { AnalyticsContext } from '../analytics/serve-analytics.js';
export { withDeadline } from '../analytics/serve-analytics.js';
import { siteFacts } from '../analytics/site-facts.js';

/** The groups of the filters (each named by its JSON path), for the profile's check. */
export function filterGroups(filters: readonly QueryFilter[]): QueryGroup[] {
  return filters.flatMap((f, i) => filterDimensions(f).map((d) => queryGroupOf(d, `filters[${i}]`)));
}

/** 409 on a strict site for what strict does not store (campaigns, region, city, custom properties). */
export function checkProfile(ctx: AnalyticsContext, groups: readonly QueryGroup[]): void {
  if (ctx.site!.collectionProfile !== 'strict' || !groups.some(isExtendedOnlyGroup)) return;
  throw new ApiError(
    'REPORT_LOCKED_BY_PROFILE',
    'This site collects under the strict profile, which stores no campaign (utm_*), region, city or custom properties: leave those dimensions and filters out, or switch the site to Extended collection.',
    { field: 'dimensions' },
  );
}

/**
 * What a window can say of fields only Extended collection stores, on a site that switched to Extended:
 * a window wholly before the switch is 409 (nothing was stored then); one that starts before it is
 * answered with a note saying from when those fields count.
 */
export function extendedNotes(ctx: AnalyticsContext, groups: readonly QueryGroup[], windows: readonly QueryWindow[]): string[] {
  const site = ctx.site!;
  if (site.collectionProfile !== 'extended' || site.profileEffectiveAt === null || !groups.some(isExtendedOnlyGroup)) return [];
  const since = Date.parse(site.profileEffectiveAt);
  if (windows.some((w) => w.endMs <= since))
    throw new ApiError(
      'REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD',
      `utm_*, region, city and custom properties are stored since ${site.profileEffectiveAt} (the site's switch to Extended collection): ask for a range after it, or leave those dimensions and filters out`,
      { field: 'date_range', available_from: site.profileEffectiveAt },
    );
  return windows.some((w) => w.startMs < since)
    ? [`utm_*, region, city and custom properties are stored since ${site.profileEffectiveAt}: earlier events count as "(none)" for them`]
    : [];
}

/** Every goal of the site when event:goal is named (its keys and filters refer to goals by name), else none. */
export async function goalsNamed(ctx: AnalyticsContext, named: boolean): Promise<NamedGoal[]> {
  if (!named) return [];
  const goals = await ctx.deps.catalog.listGoals(ctx.site!.id);
  return goals.map((g) => ({ name: g.name, type: g.type, pattern: g.pattern, filters: g.filters }));
}

export const namesGoal = (filters: readonly QueryFilter[]) => filters.some((f) => filterDimensions(f).includes('event:goal'));

/** The caller's scope: the tenant named (checked by the pipeline's site rule) or the grant's, and the traffic. */
export function scopeOf(ctx: AnalyticsContext, traffic: TrafficFilter): ReadScope {
  return {
    siteId: ctx.site!.id,
    tenantIds: ctx.tenant ? [ctx.tenant.id] : ctx.caller.grant.tenantIds,
    trafficClasses: TRAFFIC_FILTERS[traffic],
  };
}

export interface ZonedRead {
  engine: AnalyticsEngine;
  /** the data version every read of the request is pinned to */
  version: string;
  zone: string;
  range: ResolvedDateRange;
  window: QueryWindow;
  limits: RangeLimits;
  /** where answers and site facts are kept; null while the store is still loading (its notes say so) or without one */
  cache: ResponseCache | null;
}

/** The engine, the data version, and date_range as a window of the site's zone, checked (422s name `field`). */
export async function zonedRead(ctx: AnalyticsContext, dateRange: DateRangeInput, field = 'date_range'): Promise<ZonedRead> {
  const { deps, caller } = ctx;
  const site = ctx.site!;
  const zone = site.timezone;
  const analytics = deps.analytics;
  if (!analytics) throw new ApiError('ANALYTICS_DB_UNAVAILABLE');
  const engine = analytics.engine;
  // the site's first and newest event, kept under the data version where answers are kept (as /v1 does);
  // without a cache they are read alongside the version: one round trip, not two
  const cache = (analytics.notes?.(site.id) ?? []).length === 0 ? (analytics.cache ?? null) : null;
  const versionRead = engine.dataVersion(site.id);
  const [version, facts] = await Promise.all([
    versionRead,
    cache ? versionRead.then((v) => siteFacts(engine, site.id, { cache, version: v })) : siteFacts(engine, site.id, null),
  ]);
  const nowMs = ctx.arrivedAt.getTime();
  const range = resolveDateRange(dateRange, {
    zone,
    nowMs,
    firstDay: facts.firstEventMs === null ? null : localDay(zone, facts.firstEventMs),
  });
  const limits: RangeLimits = {
    zone,
    nowMs,
    retentionDays: caller.policy.retention_days,
    retentionName: retentionName(caller.policy),
    maxRangeDays: caller.policy.max_range_days,
  };
  const window = windowOf(zone, range);
  checkWindow(window, limits, field);
  return { engine, version, zone, range, window, limits, cache };
}
