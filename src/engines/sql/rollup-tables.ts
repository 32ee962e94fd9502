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
