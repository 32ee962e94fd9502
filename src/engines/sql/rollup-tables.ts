// The three rollup tables as the build writes them and the reads read them: names, column order
// and the groupings stored. The build side and the read side of engines/sql share these and nothing
// else of each other; what the rows count is said where they are built.
import { ACTION_ATTRIBUTES } from '../../domain/action-key.js';
import type { Dimension } from '../../domain/query/dimensions.js';
import { ATOMS } from '../../domain/query/metrics.js';

/** The rollup table: one row per (site, day, tenant scope, traffic filter, grouping, key(s)). */
export const ROLLUP_TABLE = 'daily_rollups';

/** Column order of the rollup table (schema and INSERT agree on it). */
export const ROLLUP_COLUMNS = [
  'site_id',
  'day_ms',
  'all_tenants',
  'tenant_id',
  'traffic',
  'dim',
  'dim_key',
  'filter_dim',
  'filter_key',
  ...ATOMS,
] as const;

/**
 * Pairs of dimensions stored together (a breakdown of the first under a filter on the second, or
 * the other way round): the ones the reports run on every overview and acquisition request
 * (landing pages and referrers per channel, regions and cities per country).
 */
export const ROLLUP_PAIRS: readonly (readonly [Dimension, Dimension])[] = [
  ['entry_page', 'channel'],
  ['referrer', 'channel'],
  ['region', 'country'],
  ['city', 'country'],
];

/** Dimensions stored alone. The tenant is not one: it is the rows' tenant scope (see TenantScope). */
export const ROLLUP_DIMENSIONS: readonly Dimension[] = [
  'page',
  'entry_page',
  'exit_page',
  'referrer',
  'channel',
  'source',
  'medium',
  'campaign',
  'country',
  'region',
  'city',
  'device',
  'browser',
  'os',
];

/** One stored grouping: `dim` ('' = the total) and `filterDim` ('' = none). */
export interface RollupGrouping {
  dim: Dimension | '';
  filterDim: Dimension | '';
}

/** Every grouping the build writes, in build order. */
export const ROLLUP_GROUPINGS: readonly RollupGrouping[] = [
  { dim: '', filterDim: '' },
  ...ROLLUP_DIMENSIONS.map((dim) => ({ dim, filterDim: '' as const })),
  ...ROLLUP_PAIRS.map(([dim, filterDim]) => ({ dim, filterDim })),
];

/** The actions rollup (build/actions-build.ts builds it). */
export const ACTIONS_TABLE = 'daily_actions';
export const ACTION_IDENTITY = ['family', 'action_name', ...ACTION_ATTRIBUTES] as const;
export const ACTION_DIMS = ['page', 'channel', 'device', 'country', 'browser'] as const;
export type ActionDim = (typeof ACTION_DIMS)[number];
export type ActionLevel = 'action' | 'family' | 'any' | 'meaningful';
export type Eligible = 'simple' | 'all';

/** Key columns, then the two counts (schema and INSERT agree on this order). */
export const ACTIONS_KEY_COLUMNS = [
  'site_id',
  'day_ms',
  'tenant_id',
  'traffic',
  'grp',
  'eligible',
  'dim',
  ...ACTION_IDENTITY,
  'dim_key',
] as const;
export const ACTIONS_COLUMNS = [...ACTIONS_KEY_COLUMNS, 'sessions', 'occurrences'] as const;

/**
 * Groupings (`grp`): 'action' (the ActionIdentity columns), 'family', 'any' (no action key) and
 * 'meaningful' (the sessions with an action of a MEANINGFUL family: not a sum over families), each
 * with no dimension or one of the session's channel/device/country/browser or the event's page.
 * `eligible`: 'all' counts every action, 'simple' only SIMPLE_ACTIONS (the actions counted outside
 * the advanced window); the 'action' grouping stores 'all' only (its key says whether it is simple).
 */
export interface ActionGrouping {
  grp: ActionLevel;
  eligible: Eligible;
  dim: ActionDim | '';
}

const DIMS_AND_NONE: readonly (ActionDim | '')[] = ['', ...ACTION_DIMS];

/** Every grouping the build writes. */
export const ACTION_GROUPINGS: readonly ActionGrouping[] = [
  ...DIMS_AND_NONE.map((dim) => ({ grp: 'action' as const, eligible: 'all' as const, dim })),
  ...(['family', 'any'] as const).flatMap((grp) =>
    (['simple', 'all'] as const).flatMap((eligible) => DIMS_AND_NONE.map((dim) => ({ grp, eligible, dim }))),
  ),
  ...(['simple', 'all'] as const).map((eligible) => ({ grp: 'meaningful' as const, eligible, dim: '' as const })),
];

/** The identity columns a grouping keeps (the others are NULL in its rows). */
export function identityOf(grp: ActionLevel): readonly (typeof ACTION_IDENTITY)[number][] {
  return grp === 'action' ? ACTION_IDENTITY : grp === 'family' ? ['family'] : [];
}

/** The page-title rollup (build/page-titles-build.ts builds it). */
export const PAGE_TITLES_TABLE = 'daily_page_titles';
export const PAGE_TITLES_COLUMNS = [
  'site_id',
  'day_ms',
  'tenant_id',
  'traffic_class',
  'path_canon',
  'ts_ms',
  'event_id',
  'page_title',
] as const;

/** A quarter of an hour: the grain of the rollup rows that answer a time zone's days (QUARTER_GROUPINGS). */
export const QUARTER_MS = 900_000;
/** Quarters in a UTC day. */
export const QUARTERS_PER_DAY = 96;

/**
 * The quarter-hour grouping of the rollup table (`dim` = QUARTER_GROUPING, `dim_key` = the quarter's number
 * in its UTC day, 0 to 95, as two digits: quarterKey; no filter dimension), built beside the groupings of a dimension and read
 * only by the query API (docs/decisions/query-api.md "Quarter-hour rollups"). Its rows are per site, UTC
 * day, tenant scope and traffic filter as every rollup row, one per quarter, and its atoms count:
 * - `events`, `pageviews`: the events of the quarter (`pv_eng_ms` is not kept: 0);
 * - `sessions`, `bounces`, `engaged`, `session_eng_ms`: the sessions starting in it;
 * - `visitors`: the visitor-days whose FIRST event is in it;
 * and two columns hold what a quarter has and a day's grouping does not (QUARTER_COLUMNS):
 * - `exits`: the visitor-days whose LAST event is in it;
 * - `entries`: the pageviews of the sessions starting in it.
 * One grouping, not three, so that a read is one range of the table's order (on ClickHouse a read of three
 * groupings cost about twice one of the same rows). A visitor-day counts in a span [start, end) of its day
 * when its first event is before `end` and its last at or after `start`: so a span that starts at the day's
 * start counts `visitors`, one that ends at the day's end counts `exits`, and a day cut once is counted
 * exactly, whatever the zone.
 */
export const QUARTER_GROUPING = 'quarter';
export const QUARTER_COLUMNS = { lastVisitors: 'exits', sessionPageviews: 'entries' } as const;

/** A quarter's `dim_key`: its number in two digits, so that keys compare as the quarters do (no read parses them). */
export const quarterKey = (quarter: number): string => String(quarter).padStart(2, '0');

/**
 * The custom-property groupings of the rollup table, read only by the query API's breakdowns by
 * `event:props:<key>` (docs/decisions/query-api.md "Custom properties from the rollups"). Per site, UTC day,
 * tenant scope and traffic filter, with `filter_dim` = PROP_GROUPINGS.filter and `filter_key` = the key:
 * - `dim` = PROP_GROUPINGS.value, `dim_key` = a value: `visitors` the visitor-days with an event of that
 *   value, `events` and `pageviews` those events;
 * - `dim` = PROP_GROUPINGS.every, `dim_key` NULL: `visitors` the visitor-days EVERY event of which carries
 *   the key;
 * and one row per day and scope with no key (`dim` = PROP_GROUPINGS.total, `filter_key` ''): the day's
 * visitors, events and pageviews as the query API counts them. So the events without the key (its
 * "(none)") are the total less the values' events, and their visitors the total less the visitor-days
 * whose every event has it: each a sum over visitor-days, which an import's delta moves exactly, with no
 * row for a key a day never saw.
 */
export const PROP_GROUPINGS = { value: 'prop', every: 'prop_every', total: 'prop_total', filter: 'prop_key' } as const;
