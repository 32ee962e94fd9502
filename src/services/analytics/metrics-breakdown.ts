// GET /v1/metrics/breakdown (docs/product.md §5): current = {metric, dimension, rows: [{key, value}]}, sorted by
// value then key, rows without data left out; tenant rows add tenant_id, tenant_slug, tenant_name.
import type { Dimension } from '../../domain/query/dimensions.js';
import type { PublicMetric } from '../../domain/query/metrics.js';
import type { Filters } from '../../domain/query/query-spec.js';
import { metricsUnits } from '../../domain/metering.js';
import type { ResolvedRange } from '../../domain/report-range.js';
import type { Tenant } from '../../ports/catalog-store.js';
import { periodTable } from './csv.js';
import type { AnalyticsPlan, AnalyticsWindow } from './serve-analytics.js';

export interface BreakdownRow {
  key: string | null;
  value: number;
  tenant_id?: string;
  tenant_slug?: string;
  tenant_name?: string;
}

export interface BreakdownPayload {
  metric: PublicMetric;
  dimension: Dimension;
  rows: BreakdownRow[];
}

export interface BreakdownParams {
  metric: PublicMetric;
  dimension: Dimension;
  limit: number;
  filters: Filters;
  /** the site's tenants, for the labels of a tenant breakdown */
  tenants?: readonly Tenant[];
}

export function breakdownPlan(params: BreakdownParams, range: ResolvedRange): AnalyticsPlan<BreakdownPayload> {
  const labels = params.dimension === 'tenant' ? tenantLabels(params.tenants ?? []) : null;
  return {
    units: metricsUnits({
      endpoint: 'breakdown',
      days: range.current.days,
      limit: params.limit,
      dimension: params.dimension,
      metric: params.metric,
    }),
    // Tenant labels are part of the payload: a renamed tenant must not be served from the cache.
    cacheParams: {
      metric: params.metric,
      dimension: params.dimension,
      limit: params.limit,
      filters: params.filters,
      ...(labels ? { labels: [...labels.entries()] } : {}),
    },
    build: (w) => buildBreakdown(w, params, labels),
  };
}

function tenantLabels(tenants: readonly Tenant[]): Map<string, { slug: string; name: string }> {
  return new Map([...tenants].sort((a, b) => (a.id < b.id ? -1 : 1)).map((t) => [t.id, { slug: t.slug, name: t.name }]));
}

export async function buildBreakdown(
  w: AnalyticsWindow,
  params: BreakdownParams,
  labels: Map<string, { slug: string; name: string }> | null,
): Promise<BreakdownPayload> {
  const { metric, dimension } = params;
  if (!w.count) return { metric, dimension, rows: [] };
  const found = await w.run({
    ...w.scope,
    startMs: w.count.startMs,
    endMs: w.count.endMs,
    filters: params.filters,
    metrics: [metric],
    dimension,
    limit: params.limit,
  });
  const rows = found.map((r): BreakdownRow => {
    const row: BreakdownRow = { key: r.key, value: r.values[metric] };
    if (labels && r.key !== null) {
      // Events name tenants the importer checked against the catalog; the id stands in for a label
      // only if a tenant was since removed from it.
      const label = labels.get(r.key);
      row.tenant_id = r.key;
      row.tenant_slug = label?.slug ?? r.key;
      row.tenant_name = label?.name ?? r.key;
    }
    return row;
  });
  return { metric, dimension, rows };
}

const TENANT_COLUMNS = ['tenant_id', 'tenant_slug', 'tenant_name'] as const;

/** The CSV of the rows: `key,value`, plus the tenant columns by tenant (with compare, a leading period column). */
export function breakdownCsv(data: { current: BreakdownPayload; compare: BreakdownPayload | null }): string {
  const tenant = data.current.dimension === 'tenant';
  const columns = tenant ? ['key', 'value', ...TENANT_COLUMNS] : ['key', 'value'];
  return periodTable(data, columns, (p) =>
    p.rows.map((r) => (tenant ? [r.key, r.value, r.tenant_id, r.tenant_slug, r.tenant_name] : [r.key, r.value])),
  );
}
