// The Availability object of profile-aware reads (docs/availability.md; docs/product.md §4.8 route
// classes, §8.7 extended windows). Pure: the caller passes the site's profile, its first event and the
// requested windows; the result says what to count and whether the HTTP layer answers 409.
// Rules and the table of cases: docs/availability.md.
import { ApiError } from './errors.js';
import type { Profile } from './plans.js';
import { isExtendedOnlyDimension } from './query/dimensions.js';

export type RouteFamily =
  | 'overview'
  | 'content'
  | 'acquisition'
  | 'acquisition_summary'
  | 'acquisition_details'
  | 'audience_summary'
  | 'audience_dimensions'
  | 'audience_profiles'
  | 'technology'
  | 'performance'
  | 'actions'
  | 'goals'
  | 'robots'
  | 'timeseries'
  | 'timeseries_tenant'
  | 'breakdown'
  | 'breakdown_tenant';

/** The route families this API serves (the others are reserved ids of the spec). */
export type ServedRoute =
  | 'overview'
  | 'content'
  | 'acquisition'
  | 'actions'
  | 'goals'
  | 'timeseries'
  | 'timeseries_tenant'
  | 'breakdown'
  | 'breakdown_tenant';

export type Classification = 'strict_safe' | 'extended_only' | 'mixed';
export type WindowStatus =
  | 'available'
  | 'locked_by_profile'
  | 'partially_available_after_effective_at'
  | 'partially_available_outside_source_coverage'
  | 'not_available_for_requested_period';
export type WindowReason =
  | 'strict_safe_route'
  | 'extended_data_required'
  | 'requested_period_has_no_extended_data'
  | 'requested_period_crosses_profile_change'
  | 'outside_source_coverage'
  | 'section_not_collected_in_runtime';

export interface AvailabilityWindow {
  status: WindowStatus;
  reason: WindowReason | null;
  requestedStart: string;
  requestedEnd: string;
  compatibleStart: string | null;
  compatibleEnd: string | null;
}

export type SectionId =
  | 'overview_regions'
  | 'overview_cities'
  | 'acquisition_attribution'
  | 'actions_advanced'
  | 'audience_top_campaigns'
  | 'technology_regions'
  | 'technology_cities';

export type ReadModelSlice =
  | 'overview_core'
  | 'overview_geography'
  | 'acquisition_lite'
  | 'acquisition_attribution'
  | 'actions_simple'
  | 'actions_advanced'
  | 'audience_core'
  | 'audience_campaigns'
  | 'technology_core'
  | 'technology_geography';

export interface AvailabilitySection {
  id: SectionId;
  classification: Classification;
  current: AvailabilityWindow;
  compare: AvailabilityWindow | null;
}

export interface Availability {
  route: RouteFamily;
  classification: Classification;
  currentProfile: Profile;
  collectionProfileEffectiveAt: string | null;
  current: AvailabilityWindow;
  compare: AvailabilityWindow | null;
  sections: AvailabilitySection[];
  readModel?: { strictSafe: ReadModelSlice[]; extended: ReadModelSlice[] };
}

/** Inclusive ms window. */
export interface MsWindow {
  startMs: number;
  endMs: number;
}

export interface AvailabilityInput {
  route: ServedRoute;
  /** dimensions a metrics request groups or filters by (extended-only ones make it extended-only) */
  dimensions?: readonly string[];
  profile: Profile;
  /** collection_profile_effective_at (ISO instant) or null: the profile applied since the site began */
  effectiveAt: string | null;
  current: MsWindow;
  compare: MsWindow | null;
  /** ts of the site's first stored event, null when it has none */
  firstEventAtMs: number | null;
}

/** What to count: null = nothing (the window is locked or has no compatible data). */
export interface CountWindows {
  current: MsWindow | null;
  compare: MsWindow | null;
}

export interface AvailabilityDecision {
  availability: Availability;
  /** 409 to answer instead of data (REPORT_LOCKED_BY_PROFILE / REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD) */
  error: ApiError | null;
  /** the route-level counting windows (the whole range except on extended-only routes) */
  count: CountWindows;
  /** per section of a mixed route: the windows its enriched slice counts */
  sectionCount: Partial<Record<SectionId, CountWindows>>;
}

const MIXED_SECTIONS: Partial<Record<ServedRoute, SectionId[]>> = {
  overview: ['overview_regions', 'overview_cities'],
  acquisition: ['acquisition_attribution'],
  actions: ['actions_advanced'],
};

const READ_MODELS: Partial<Record<ServedRoute, Availability['readModel']>> = {
  overview: { strictSafe: ['overview_core', 'acquisition_lite'], extended: ['overview_geography'] },
  acquisition: { strictSafe: ['acquisition_lite'], extended: ['acquisition_attribution'] },
  actions: { strictSafe: ['actions_simple'], extended: ['actions_advanced'] },
};

export function classifyRoute(route: ServedRoute, dimensions: readonly string[] = []): Classification {
  switch (route) {
    case 'overview':
    case 'acquisition':
    case 'actions':
      return 'mixed';
    case 'content':
      return 'strict_safe';
    case 'goals':
      return 'extended_only';
    default:
      return dimensions.some(isExtendedOnlyDimension) ? 'extended_only' : 'strict_safe';
  }
}

/** The metrics route family: *_tenant when grouped by tenant or scoped to one tenant. */
export function metricsRoute(endpoint: 'timeseries' | 'breakdown', opts: { dimension?: string; tenantScoped: boolean }): ServedRoute {
  const tenant = opts.dimension === 'tenant' || opts.tenantScoped;
  return endpoint === 'timeseries' ? (tenant ? 'timeseries_tenant' : 'timeseries') : tenant ? 'breakdown_tenant' : 'breakdown';
}

const iso = (ms: number) => new Date(ms).toISOString();

function parseInstant(value: string | null): number | null {
  if (value === null) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new RangeError(`collection_profile_effective_at is not an instant: ${value}`);
  return ms;
}

interface Computed {
  window: AvailabilityWindow;
  count: MsWindow | null;
}

function make(w: MsWindow, status: WindowStatus, reason: WindowReason | null, compatible: MsWindow | null): AvailabilityWindow {
  return {
    status,
    reason,
    requestedStart: iso(w.startMs),
    requestedEnd: iso(w.endMs),
    compatibleStart: compatible ? iso(compatible.startMs) : null,
    compatibleEnd: compatible ? iso(compatible.endMs) : null,
  };
}

/** A window with data all the way, unless it starts before the site's first event. */
function coverage(w: MsWindow, firstEventAtMs: number | null, reason: WindowReason | null): Computed {
  if (firstEventAtMs === null || w.startMs >= firstEventAtMs) return { window: make(w, 'available', reason, w), count: w };
  const compatible = firstEventAtMs <= w.endMs ? { startMs: firstEventAtMs, endMs: w.endMs } : null;
  return { window: make(w, 'partially_available_outside_source_coverage', 'outside_source_coverage', compatible), count: w };
}

/** What the profile makes of an extended-only window: its status, and what is counted (null: nothing). */
interface ProfileRule {
  status: WindowStatus;
  reason: WindowReason;
  compatible: MsWindow | null;
}

/**
 * The profile's rule for an extended-only window, or null when the profile allows all of it (source
 * coverage decides). Only the current profile grants extended reads: a strict site is locked whatever
 * it collected before its switch (docs/availability.md). On an extended site data is extended from
 * effective_at (or always), so the window is counted from there.
 */
function profileRule(w: MsWindow, profile: Profile, effectiveAtMs: number | null): ProfileRule | null {
  if (profile === 'strict') return { status: 'locked_by_profile', reason: 'extended_data_required', compatible: null };
  if (effectiveAtMs !== null && w.endMs < effectiveAtMs)
    return { status: 'not_available_for_requested_period', reason: 'requested_period_has_no_extended_data', compatible: null };
  if (effectiveAtMs !== null && w.startMs < effectiveAtMs) {
    return {
      status: 'partially_available_after_effective_at',
      reason: 'requested_period_crosses_profile_change',
      compatible: { startMs: effectiveAtMs, endMs: w.endMs },
    };
  }
  return null;
}

/** An extended-only slice over one window. */
function extendedSlice(w: MsWindow, profile: Profile, effectiveAtMs: number | null, firstEventAtMs: number | null): Computed {
  const rule = profileRule(w, profile, effectiveAtMs);
  if (rule === null) return coverage(w, firstEventAtMs, null);
  return { window: make(w, rule.status, rule.reason, rule.compatible), count: rule.compatible };
}

/** The statuses that answer 409 on an extended-only route (its current window's). */
const REFUSING: ReadonlySet<WindowStatus> = new Set(['locked_by_profile', 'not_available_for_requested_period']);

/**
 * Whether buildAvailability(input) answers 409 (its `error` is set), without writing out its windows:
 * a cached answer holds them already, and only the refusal is decided per request.
 */
export function availabilityRefuses(input: AvailabilityInput): boolean {
  if (classifyRoute(input.route, input.dimensions) !== 'extended_only') return false;
  const rule = profileRule(input.current, input.profile, parseInstant(input.effectiveAt));
  return rule !== null && REFUSING.has(rule.status);
}

export function buildAvailability(input: AvailabilityInput): AvailabilityDecision {
  const classification = classifyRoute(input.route, input.dimensions);
  const effectiveAtMs = parseInstant(input.effectiveAt);
  const slice = (w: MsWindow) => extendedSlice(w, input.profile, effectiveAtMs, input.firstEventAtMs);
  const base = (w: MsWindow, reason: WindowReason | null) => coverage(w, input.firstEventAtMs, reason);

  let current: Computed;
  let compare: Computed | null;
  if (classification === 'extended_only') {
    current = slice(input.current);
    compare = input.compare ? slice(input.compare) : null;
  } else {
    // strict-safe data, and the strict-safe base slice of mixed routes, cover the whole range
    const reason: WindowReason | null = classification === 'strict_safe' ? 'strict_safe_route' : null;
    current = base(input.current, reason);
    compare = input.compare ? base(input.compare, reason) : null;
  }

  const sections: AvailabilitySection[] = [];
  const sectionCount: AvailabilityDecision['sectionCount'] = {};
  for (const id of MIXED_SECTIONS[input.route] ?? []) {
    const c = slice(input.current);
    const p = input.compare ? slice(input.compare) : null;
    sections.push({ id, classification: 'extended_only', current: c.window, compare: p ? p.window : null });
    sectionCount[id] = { current: c.count, compare: p ? p.count : null };
  }

  const availability: Availability = {
    route: input.route,
    classification,
    currentProfile: input.profile,
    collectionProfileEffectiveAt: effectiveAtMs === null ? null : iso(effectiveAtMs),
    current: current.window,
    compare: compare ? compare.window : null,
    sections,
  };
  const readModel = READ_MODELS[input.route];
  if (readModel) availability.readModel = { strictSafe: [...readModel.strictSafe], extended: [...readModel.extended] };

  let error: ApiError | null = null;
  if (classification === 'extended_only') {
    const status = current.window.status;
    if (REFUSING.has(status)) {
      const code = status === 'locked_by_profile' ? 'REPORT_LOCKED_BY_PROFILE' : 'REPORT_NOT_AVAILABLE_FOR_REQUESTED_PERIOD';
      error = new ApiError(code, undefined, {
        route: input.route,
        classification,
        currentProfile: input.profile,
        availability,
      });
    }
  }
  return {
    availability,
    error,
    count: { current: current.count, compare: compare ? compare.count : null },
    sectionCount,
  };
}
