// The analytics store as the read API sees it: every read a report or a metrics endpoint needs, as
// a typed request whose scope (site, tenants, traffic, window) is data, plus the coverage facts that
// freshness and availability need. Implementations compile the requests to SQL themselves
// (engines/sql): nothing above this port writes or reads SQL.
// Implementations: engines/duckdb, engines/clickhouse. Contract: test/engines (reference models).
import type { ActionIdentity } from '../domain/action-key.js';
import type { MsWindow } from '../domain/availability.js';
import type { ActionFamily, TrafficClass } from '../domain/events.js';
import type { MetricRow } from '../domain/query/assemble.js';
import type { QuerySpec } from '../domain/query/query-spec.js';
import type { QueryFilter } from '../domain/query-api/query-body.js';
import type { QueryBucketing, QueryGroup } from '../domain/query-api/query-groups.js';
import type { QueryAtom } from '../domain/query-api/query-metrics.js';
import type { FunnelStep } from '../domain/funnels.js';
import type { GoalFilters, GoalType } from './catalog-store.js';

export interface RunOptions {
  /** the query is interrupted after this long and fails with EngineError('timeout') */
  timeoutMs: number;
  /**
   * Read the site's data as of this data version (from dataVersion()): every read of one request
   * then sees the same imports, whatever commits meanwhile. Absent: the newest committed data.
   */
  asOf?: string;
}

/** Who and what a read counts: the site, the tenants the caller may see, the traffic classes. */
export interface ReadScope {
  siteId: string;
  /** null = every tenant (and events without tenant); a list = those only */
  tenantIds: readonly string[] | null;
  trafficClasses: readonly TrafficClass[];
}

/**
 * The actions a read counts (docs/product.md §4.9): the simple actions over the whole window;
 * every other action only inside `advanced` (null: never, e.g. a strict site).
 */
export interface ActionSelection {
  scope: ReadScope;
  window: MsWindow;
  advanced: MsWindow | null;
  family?: ActionFamily;
  action?: ActionIdentity;
}

/** Grouping keys of action rows. `action` = the ActionIdentity columns; the session keys are the session's. */
export type ActionGroupKey = 'day' | 'family' | 'action' | 'page' | 'channel' | 'device' | 'country' | 'browser';

export interface ActionRowsRequest {
  selection: ActionSelection;
  groupBy: readonly ActionGroupKey[];
}

/** One group of action rows: the keys grouped by (absent otherwise), distinct sessions and occurrences. */
export interface ActionRow {
  /** UTC day start, ms */
  day?: number;
  family?: ActionFamily | null;
  action?: ActionIdentity;
  page?: string | null;
  channel?: string | null;
  device?: string | null;
  country?: string | null;
  browser?: string | null;
  sessions: number;
  occurrences: number;
}

export interface ActionTotalsRequest {
  selection: ActionSelection;
  byDay: boolean;
}

/** Sessions with a meaningful action, meaningful occurrences, sessions with an error, with instrumentation. */
export interface ActionTotals {
  /** UTC day start (ms) when by day */
  day?: number;
  meaningfulSessions: number;
  meaningfulOccurrences: number;
  errorSessions: number;
  instrumentationSessions: number;
}

/** A goal's matching rule (docs/product.md §4.10, §8.5). */
export interface GoalMatcher {
  type: GoalType;
  pattern: string;
  filters: GoalFilters | null;
}

export interface GoalMatchRequest {
  scope: ReadScope;
  window: MsWindow;
  goals: readonly GoalMatcher[];
}

/** Per goal, in request order: matching events, distinct sessions with one, the newest match (ms). */
export interface GoalMatch {
  conversions: number;
  sessions: number;
  lastMs: number | null;
}

export interface PageTitlesRequest {
  scope: ReadScope;
  window: MsWindow;
  paths: readonly string[];
}

/** A goal as the query API matches it: by name (event:goal keys and filters) with its rule. */
export interface NamedGoal extends GoalMatcher {
  name: string;
}

/**
 * One read of /api/v2/query: integer sums over the raw events and sessions of a site, grouped by the
 * groups and the time bucket, with Plausible's filters. Events count by their time in [startMs, endMs),
 * visits by their first event; visitors are distinct keys per UTC day, summed (keys rotate at 00:00 UTC).
 */
export interface QueryRowsRequest {
  scope: ReadScope;
  /** [startMs, endMs) */
  window: { startMs: number; endMs: number };
  groups: readonly QueryGroup[];
  bucketing: QueryBucketing | null;
  /** the top level, joined by and; every dimension already checked against the site's profile */
  filters: readonly QueryFilter[];
  /** the site's goals event:goal keys and filters refer to (by name) */
  goals: readonly NamedGoal[];
  atoms: readonly QueryAtom[];
}

/** One group of a query API read: its keys in `groups` order (null: none), its bucket key, its sums. */
export interface QueryRow {
  keys: (string | null)[];
  bucket: number | null;
  atoms: Partial<Record<QueryAtom, number>>;
}

/**
 * One funnel read (docs/metrics.md "Funnels"): the sessions starting in [startMs, endMs) in scope that
 * pass the visit filters; a session reaches step k when its kept events (scope and event filters) match
 * steps 1..k at non-decreasing times, each step at the earliest match not before the step before it.
 */
export interface FunnelStepsRequest {
  scope: ReadScope;
  /** [startMs, endMs) of the sessions' starts */
  window: { startMs: number; endMs: number };
  steps: readonly FunnelStep[];
  /** the top level, joined by and (query API filters) */
  filters: readonly QueryFilter[];
  /** the site's goals event:goal filters refer to */
  goals: readonly NamedGoal[];
}

export interface AnalyticsEngine {
  /**
   * Visitors of each step, in order: distinct visitor keys per UTC day of the sessions reaching it,
   * summed (sessions never cross 00:00 UTC).
   */
  funnelSteps(request: FunnelStepsRequest, options: RunOptions): Promise<number[]>;
  /** a query API read (every group, unsorted): the domain sorts, cuts and forms the metrics */
  queryRows(request: QueryRowsRequest, options: RunOptions): Promise<QueryRow[]>;
  /**
   * Runs a spec and returns assembled rows (domain/query/assemble.ts): breakdowns sorted by value
   * then key and cut to `limit`, series sparse and by bucket (densify with denseSeries), a plain
   * total exactly one row. Throws EngineError('timeout' | 'unavailable') on store faults, like
   * every read below.
   */
  run(spec: QuerySpec, options: RunOptions): Promise<MetricRow[]>;
  /** occurrences and distinct sessions of the selected actions, grouped (no order) */
  actionRows(request: ActionRowsRequest, options: RunOptions): Promise<ActionRow[]>;
  /** one row, or one per UTC day with actions when byDay */
  actionTotals(request: ActionTotalsRequest, options: RunOptions): Promise<ActionTotals[]>;
  /** one result per goal, in order (one scan for all of them) */
  goalMatches(request: GoalMatchRequest, options: RunOptions): Promise<GoalMatch[]>;
  /** the title of the latest titled pageview of each listed path in the window (missing: never titled) */
  pageTitles(request: PageTitlesRequest, options: RunOptions): Promise<Map<string, string>>;
  /**
   * A token that changes whenever a committed import adds events to the site: response cache keys,
   * and RunOptions.asOf. Opaque; compare for equality only.
   */
  dataVersion(siteId: string): Promise<string>;
  /** ts of the site's newest stored event (data_health.last_event_at, freshness), or null */
  newestEventAt(siteId: string): Promise<Date | null>;
  /** ts of the site's oldest stored event (availability source coverage), or null */
  firstEventAt(siteId: string): Promise<Date | null>;
}

/** The reads of an engine with the options applied (a request's deadline): what report builders call. */
export type AnalyticsReads = {
  [K in 'run' | 'actionRows' | 'actionTotals' | 'goalMatches' | 'pageTitles' | 'queryRows' | 'funnelSteps']: (
    request: Parameters<AnalyticsEngine[K]>[0],
  ) => ReturnType<AnalyticsEngine[K]>;
};
