// The query API's reads that the daily rollups answer exactly, asked as /v1's QuerySpecs (engine.run,
// which reads the rollups where exact): a window of whole UTC days in a zone at offset 0 throughout, at
// most one dimension /v1 has, equality filters on /v1's filter dimensions, and atoms the rollups keep.
// Daily rows add up to weeks and months exactly (visitors are a sum over UTC days by definition). The
// definitions are the same (docs/metrics.md): test/http/query-api-rollups.test.ts holds every shape this
// takes to the raw read's answer.
import type { Dimension } from '../../domain/query/dimensions.js';
import type { Atom, Metric } from '../../domain/query/metrics.js';
import type { MetricRow } from '../../domain/query/assemble.js';
import type { QuerySpec } from '../../domain/query/query-spec.js';
import type { QueryAtom } from '../../domain/query-api/query-metrics.js';
import type { QueryGroup } from '../../domain/query-api/query-groups.js';
import { queryGroupOf } from '../../domain/query-api/query-groups.js';
import type { EventDimension, VisitDimension } from '../../domain/query-api/query-body.js';
import { DAY_MS } from '../../domain/report-range.js';
import type { QueryRow, QueryRowsRequest } from '../../ports/analytics-engine.js';

/** /v1's dimension of each group the rollups hold. */
function dimensionOf(g: QueryGroup): Dimension | null {
  if (g.kind === 'page') return 'page';
  if (g.kind !== 'visit') return null;
  const byColumn: Record<string, Dimension> = {
    entry_page: 'entry_page',
    exit_page: 'exit_page',
    referrer_host: 'referrer',
    channel: 'channel',
    utm_source: 'source',
    utm_medium: 'medium',
    utm_campaign: 'campaign',
    country: 'country',
    region: 'region',
    city: 'city',
    device_type: 'device',
    browser_family: 'browser',
    os_family: 'os',
    tenant_id: 'tenant',
  };
  return byColumn[g.column] ?? null;
}

/** The /v1 metric whose atoms carry each query atom (events is always asked: every non-empty group has events). */
const METRIC_OF: Partial<Record<QueryAtom, Metric>> = {
  visitors: 'visitors',
  visits: 'sessions',
  pageviews: 'pageviews',
  events: 'events',
  bounces: 'bounce_rate',
  visit_eng_ms: 'avg_session_eng_time_ms',
};
const ATOM_OF: Partial<Record<QueryAtom, Atom>> = {
  visitors: 'visitors',
  visits: 'sessions',
  pageviews: 'pageviews',
  events: 'events',
  bounces: 'bounces',
  visit_eng_ms: 'session_eng_ms',
};

export interface RollupRead {
  spec: QuerySpec;
  rows(result: readonly MetricRow[]): QueryRow[];
}

/** The read as a QuerySpec, or null where only the raw events answer it. */
export function rollupRead(req: QueryRowsRequest): RollupRead | null {
  const { startMs, endMs } = req.window;
  if (startMs % DAY_MS !== 0 || endMs % DAY_MS !== 0) return null;
  const b = req.bucketing;
  if (b?.by === 'clock' && (b.unit === 'hour' || b.offsets.some((o) => o.offsetMs !== 0))) return null;
  if (b?.by === 'edges' && b.edges.some((e) => e % DAY_MS !== 0)) return null;
  if (req.groups.length > 1) return null;
  const dimension = req.groups.length ? dimensionOf(req.groups[0]) : undefined;
  if (dimension === null) return null;
  if (req.atoms.some((a) => METRIC_OF[a] === undefined)) return null;
  const filters: QuerySpec['filters'] = {};
  for (const f of req.filters) {
    if (!('dimension' in f) || f.op !== 'is' || f.clauses.length !== 1 || !f.caseSensitive) return null;
    const d = dimensionOf(queryGroupOf(f.dimension as EventDimension | VisitDimension, 'filters'));
    if (d === null || d === 'tenant' || d in filters) return null;
    filters[d] = f.clauses[0] === '(none)' ? null : f.clauses[0];
  }
  const metrics = [...new Set<Metric>(['events', ...req.atoms.map((a) => METRIC_OF[a]!)])];
  const spec: QuerySpec = {
    siteId: req.scope.siteId,
    tenantIds: req.scope.tenantIds,
    trafficClasses: req.scope.trafficClasses,
    startMs,
    endMs: endMs - 1,
    filters,
    metrics,
    orderBy: 'events',
    ...(dimension ? { dimension } : {}),
    ...(b ? { interval: 'day' as const } : {}),
  };
  const keyOf = (dayMs: number): number => {
    const day = dayMs / DAY_MS;
    if (!b) return 0;
    if (b.by === 'edges') {
      let i = 0;
      while (i + 1 < b.edges.length && b.edges[i + 1] <= dayMs) i++;
      return i;
    }
    // the Monday of the day's ISO week (day 0, 1970-01-01, was a Thursday), as the engines key weeks
    return b.unit === 'week' ? day - ((day + 3) % 7) : day;
  };
  return {
    spec,
    rows(result) {
      const out = new Map<string, QueryRow>();
      for (const r of result) {
        const bucket = b ? keyOf(r.bucketMs!) : null;
        const keys = dimension ? [r.key] : [];
        const id = JSON.stringify([keys, bucket]);
        let row = out.get(id);
        if (!row) {
          row = { keys, bucket, atoms: Object.fromEntries(req.atoms.map((a) => [a, 0])) };
          out.set(id, row);
        }
        for (const a of req.atoms) row.atoms[a] = (row.atoms[a] ?? 0) + r.atoms[ATOM_OF[a]!];
      }
      return [...out.values()];
    },
  };
}
