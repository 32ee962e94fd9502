// Parameter rules of /v1/metrics/* that a schema cannot say (docs/product.md §5), checked by the routes'
// `check` hook: after the schema, before site access, so plan refusals stay 403 and bad values 422.
import { ApiError, invalidParams } from '../../domain/errors.js';
import { allowsHourly, type ApiPolicy, type PlanId } from '../../domain/plans.js';
import { parseFilterParam, type Filters } from '../../domain/query/query-spec.js';

/** The `filters` parameter. tenant is not a filter: tenant_id scopes a request, with its access check. */
export function parseMetricsFilters(raw: string | undefined): Filters {
  if (raw === undefined) return {};
  return parseFilterParam(raw, 'filters', { tenant: 'tenant is not a filter dimension; pass tenant_id to scope the request to a tenant' });
}

export function checkInterval(interval: string | undefined, plan: PlanId): void {
  // Free plans have no API at all, so this only bites a plan added later without hourly data.
  if (interval === 'hour' && !allowsHourly(plan)) throw new ApiError('FORBIDDEN', 'The plan does not include the hourly interval.');
}

export function checkBreakdown(query: { dimension: string; limit?: number }, policy: ApiPolicy): void {
  if (query.dimension === 'tenant' && !policy.allow_tenant_dimension) {
    throw new ApiError('FORBIDDEN', 'The active API policy does not enable the tenant dimension.');
  }
  if (query.limit !== undefined && query.limit > policy.max_breakdown_limit) {
    throw invalidParams(`limit must be between 1 and ${policy.max_breakdown_limit} (api.max_breakdown_limit)`, {
      parameter: 'limit',
      max: policy.max_breakdown_limit,
    });
  }
}

export function metricsDimensions(filters: Filters, dimension?: string): string[] {
  return [...new Set([...(dimension ? [dimension] : []), ...Object.keys(filters)])];
}
