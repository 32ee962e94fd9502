import { Type } from '@sinclair/typebox';
import { metricsRoute } from '../../domain/availability.js';
import { DIMENSIONS } from '../../domain/query/dimensions.js';
import { PUBLIC_METRICS } from '../../domain/query/metrics.js';
import { breakdownCsv, breakdownPlan } from '../../services/analytics/metrics-breakdown.js';
import { checkBreakdown, metricsDimensions, parseMetricsFilters } from '../../services/analytics/metrics-params.js';
import { defineRoute } from '../pipeline/define-route.js';
import { metricsAnswer } from './metrics-answer.js';
import { CommonAnalyticsParams, MetricsFiltersParam, reportEnvelope } from '../schemas/analytics.js';
import { Nullable, StringEnum } from '../schemas/common.js';

export const DEFAULT_BREAKDOWN_LIMIT = 100;

/** 100, or a smaller api.max_breakdown_limit of an enterprise policy. */
function defaultLimit(max: number): number {
  return Math.max(1, Math.min(DEFAULT_BREAKDOWN_LIMIT, max));
}

const BreakdownPayload = Type.Object(
  {
    metric: StringEnum(PUBLIC_METRICS),
    dimension: StringEnum(DIMENSIONS),
    rows: Type.Array(
      Type.Object(
        {
          key: Nullable(Type.String()),
          value: Type.Number(),
          tenant_id: Type.Optional(Type.String()),
          tenant_slug: Type.Optional(Type.String()),
          tenant_name: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
      { description: 'Sorted by value descending, then key; null key ("none", e.g. no referrer) last among equals' },
    ),
  },
  { additionalProperties: false, title: 'Breakdown' },
);

export const metricsBreakdownRoute = defineRoute({
  url: '/v1/metrics/breakdown',
  operationId: 'getBreakdown',
  family: 'metrics',
  scopes: ['metrics:read'],
  surface: 'overview',
  embed: 'breakdown',
  tags: ['Metrics'],
  summary: 'One metric grouped by a dimension',
  description:
    'dimension: page, entry_page, exit_page, referrer, channel, source, medium, campaign, country, region, city, device, browser, os, tenant. ' +
    'source, medium, campaign, region and city need Extended data (409 otherwise); tenant needs api.allow_tenant_dimension (403 otherwise) and ' +
    'groups by stable tenant_id (a tenant-restricted token sees only its tenants). limit: 1 to api.max_breakdown_limit, default 100. ' +
    'Units = 4 x ceil(days / 30) x ceil(limit / 100) x dimension (page 2, others 1) x metric (events 1, others 2). ' +
    'Accept: text/csv answers the rows as CSV (plans with exports.csv, 403 otherwise), metered the same.',
  querystring: Type.Object(
    {
      ...CommonAnalyticsParams,
      metric: Type.Optional(StringEnum(PUBLIC_METRICS, { description: 'Default pageviews' })),
      dimension: StringEnum(DIMENSIONS),
      limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Default 100, at most api.max_breakdown_limit' })),
      filters: MetricsFiltersParam,
    },
    { additionalProperties: false },
  ),
  response: reportEnvelope(BreakdownPayload, 'Report envelope with breakdown rows'),
  csv: {
    description:
      'RFC 4180, UTF-8, CRLF: a header row `key,value` (by tenant `key,value,tenant_id,tenant_slug,tenant_name`), then one record per ' +
      'row; a null key is an empty field. With compare=prev_period a leading `period` column (current rows, then compare rows). ' +
      'Sent as an attachment <site_id>-<metric>-by-<dimension>-<from>-<to>.csv.',
  },
  errors: [402, 409, 503],
  // A restricted token may group by tenant without naming one: its rows are then its tenants only.
  site: { inactive: 'reject', tenantRequiredForRestrictedToken: (q) => q.dimension !== 'tenant' },
  check(query, { caller }) {
    checkBreakdown(query, caller.policy);
    parseMetricsFilters(query.filters);
  },
  async handler(ctx) {
    const { query, deps, site } = ctx;
    const filters = parseMetricsFilters(query.filters);
    const dimension = query.dimension;
    const tenants = dimension === 'tenant' ? await deps.catalog.listTenants(site!.id) : undefined;
    const params = {
      metric: query.metric ?? 'pageviews',
      dimension,
      limit: query.limit ?? defaultLimit(ctx.caller.policy.max_breakdown_limit),
      filters,
      tenants,
    };
    return metricsAnswer(
      ctx,
      {
        route: metricsRoute('breakdown', { dimension, tenantScoped: ctx.tenant !== null }),
        dimensions: metricsDimensions(filters, dimension),
        query,
        plan: (range) => breakdownPlan(params, range),
      },
      { name: `${params.metric}-by-${dimension}`, table: breakdownCsv },
    );
  },
});
