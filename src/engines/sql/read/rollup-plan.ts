// The rollup planner: decides, per QuerySpec, whether the daily rollups answer it EXACTLY, and
// which stored rows they read. Pure (no SQL, no I/O), so it is tested alone; compile-rollup.ts turns
// a plan into SQL through the shared Dialect hooks (docs/decisions/rollups.md).
import { trafficFilterOf, type TrafficFilter } from '../../../domain/events.js';
import { atomsFor } from '../../../domain/query/metrics.js';
import type { Dimension } from '../../../domain/query/dimensions.js';
import type { NormalizedSpec } from '../../../domain/query/query-spec.js';
import { DAY_MS } from '../../../domain/report-range.js';
import { ROLLUP_DIMENSIONS, ROLLUP_PAIRS, type RollupGrouping } from '../rollup-tables.js';

/**
 * Which tenant scope the rows are read from. Visitors are distinct keys per day over the WHOLE
 * query scope, so per-tenant rows cannot be summed into an all-tenants answer: both scopes are
 * stored. `all`: the all-tenants rows. `each`: every per-tenant row (a tenant breakdown of the whole
 * site). `tenants`: the per-tenant rows of these tenants (null = the events without tenant), summed
 * (only when that is exact) or, for the tenant dimension, one row each.
 */
export type TenantScope = { kind: 'all' } | { kind: 'each' } | { kind: 'tenants'; ids: readonly (string | null)[] };

export interface RollupPlan {
  siteId: string;
  /** first and last day start (ms) of the window, inclusive */
  firstDayMs: number;
  lastDayMs: number;
  traffic: TrafficFilter;
  tenants: TenantScope;
  grouping: RollupGrouping;
  /** equality conditions on the stored key columns (from the spec's filters) */
  dimKeyEq?: string | null;
  filterKeyEq?: string | null;
  /** which stored column is the output key: none (no dimension), a key column, or the tenant */
  keyFrom: 'dim_key' | 'filter_key' | 'tenant_id' | null;
  /** which stored key column is the split key (the spec's splitBy), if any */
  splitFrom?: 'dim_key' | 'filter_key';
  keyIn?: readonly (string | null)[];
  byDay: boolean;
}

export type RollupDecision = { use: 'rollup'; plan: RollupPlan } | { use: 'raw'; reason: string };

const raw = (reason: string): RollupDecision => ({ use: 'raw', reason });

/** The stored grouping holding exactly these (one or two) dimensions, and which slot each is in. */
function groupingFor(dims: readonly Dimension[]): RollupGrouping | null {
  if (dims.length === 0) return { dim: '', filterDim: '' };
  if (dims.length === 1) return ROLLUP_DIMENSIONS.includes(dims[0]) ? { dim: dims[0], filterDim: '' } : null;
  if (dims.length !== 2) return null;
  for (const [a, b] of ROLLUP_PAIRS) {
    if ((dims[0] === a && dims[1] === b) || (dims[0] === b && dims[1] === a)) return { dim: a, filterDim: b };
  }
  return null;
}

/**
 * Whether the rollups answer `spec` exactly, and how. Raw (with the reason) for: hourly series,
 * windows that are not whole UTC days, a traffic set that is not one of the five traffic filters,
 * visitors over several (but not all) tenants, and dimension combinations that are not stored.
 */
export function planRollup(spec: NormalizedSpec): RollupDecision {
  if (spec.interval === 'hour') return raw('hourly series');
  if (spec.startMs % DAY_MS !== 0 || (spec.endMs + 1) % DAY_MS !== 0) return raw('window is not whole UTC days');
  const traffic = trafficFilterOf(spec.trafficClasses);
  if (traffic === null) return raw('traffic classes are not one of the traffic filters');

  // The tenant filter and the tenant list narrow the same column: fold them into one scope.
  let tenantIds: readonly (string | null)[] | null = spec.tenantIds;
  if ('tenant' in spec.filters) {
    const v = spec.filters.tenant ?? null;
    tenantIds = tenantIds === null || (v !== null && tenantIds.includes(v)) ? [v] : [];
  }
  const byTenant = spec.dimension === 'tenant';
  let tenants: TenantScope;
  if (byTenant) tenants = tenantIds === null ? { kind: 'each' } : { kind: 'tenants', ids: tenantIds };
  else if (tenantIds === null) tenants = { kind: 'all' };
  else if (tenantIds.length <= 1 || !atomsFor(spec.metrics).includes('visitors')) tenants = { kind: 'tenants', ids: tenantIds };
  else return raw('visitors over several tenants are not a sum of per-tenant rows');

  const filterDims = (Object.keys(spec.filters) as Dimension[]).filter((d) => d !== 'tenant');
  // A filter on the "none" key (only internal callers send one) keeps rows the raw path would not
  // have for session metrics (a day bucket with no matching session): read raw, which is exact.
  if (!spec.dimension && filterDims.some((d) => spec.filters[d] === null)) return raw('a series filtered on the "none" key');
  const dims = [
    ...new Set([...(spec.dimension && !byTenant ? [spec.dimension] : []), ...(spec.splitBy ? [spec.splitBy] : []), ...filterDims]),
  ];
  const grouping = groupingFor(dims);
  if (grouping === null) return raw(`dimensions ${dims.join('+')} are not stored together`);

  const plan: RollupPlan = {
    siteId: spec.siteId,
    firstDayMs: spec.startMs,
    lastDayMs: spec.endMs + 1 - DAY_MS,
    traffic,
    tenants,
    grouping,
    keyFrom: null,
    byDay: spec.interval === 'day',
  };
  if (grouping.dim !== '' && grouping.dim in spec.filters) plan.dimKeyEq = spec.filters[grouping.dim] ?? null;
  if (grouping.filterDim !== '' && grouping.filterDim in spec.filters) plan.filterKeyEq = spec.filters[grouping.filterDim] ?? null;
  if (byTenant) plan.keyFrom = 'tenant_id';
  else if (spec.dimension) plan.keyFrom = spec.dimension === grouping.dim ? 'dim_key' : 'filter_key';
  if (spec.splitBy) plan.splitFrom = spec.splitBy === grouping.dim ? 'dim_key' : 'filter_key';
  if (spec.keyIn) plan.keyIn = spec.keyIn;
  return { use: 'rollup', plan };
}
