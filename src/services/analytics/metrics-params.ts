// Parameter rules of /v1/metrics/* that a schema cannot say (docs/product.md §5), checked by the routes'
// `check` hook: after the schema, before site access, so plan refusals stay 403 and bad values 422.
import { ApiError, invalidParams } from '../../domain/errors.js';
import { parseFilterParam, type Filters } from '../../domain/query/query-spec.js';
import { breakdownLimitName, HOURLY_REFUSAL, tenantDimensionRefusal, type ReadPolicy } from '../../domain/read-policy.js';

/** The `filters` parameter. tenant is not a filter: tenant_id scopes a request, with its access check. */
export function parseMetricsFilters(raw: string | undefined): Filters {
  if (raw === undefined) return {};
  return parseFilterParam(raw, 'filters', { tenant: 'tenant is not a filter dimension; pass tenant_id to scope the request to a tenant' });
}

export function checkInterval(interval: string | undefined, policy: ReadPolicy): void {
  // Free plans have no API at all: on /v1 this only bites a plan added later without hourly data.
  if (interval === 'hour' && !policy.hourly) throw new ApiError('FORBIDDEN', HOURLY_REFUSAL);
}

export function checkBreakdown(query: { dimension: string; limit?: number }, policy: ReadPolicy): void {
  if (query.dimension === 'tenant' && !policy.tenant_dimension) throw new ApiError('FORBIDDEN', tenantDimensionRefusal(policy));
  if (query.limit !== undefined && query.limit > policy.max_breakdown_limit) {
    throw invalidParams(`limit must be between 1 and ${policy.max_breakdown_limit} (${breakdownLimitName(policy)})`, {
      parameter: 'limit',
      max: policy.max_breakdown_limit,
    });
  }
}

export function metricsDimensions(filters: Filters, dimension?: string): string[] {
  return [...new Set([...(dimension ? [dimension] : []), ...Object.keys(filters)])];
}
