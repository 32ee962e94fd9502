// Who and what a report reads: the site, the tenants the caller may see, the traffic classes.
import type { TrafficClass } from '../../domain/events.js';
import type { QuerySpec } from '../../domain/query/query-spec.js';
import type { MsWindow } from '../../domain/availability.js';

export interface ReportScope {
  siteId: string;
  /** null = every tenant (and events without tenant); a list = those only */
  tenantIds: readonly string[] | null;
  trafficClasses: readonly TrafficClass[];
}

/** A QuerySpec over the scope and a counting window; the rest (metrics, grouping) from `rest`. */
export function specFor(scope: ReportScope, window: MsWindow, rest: Omit<QuerySpec, 'siteId' | 'tenantIds' | 'trafficClasses' | 'startMs' | 'endMs' | 'filters'> & { filters?: QuerySpec['filters'] }): QuerySpec {
  return {
    siteId: scope.siteId,
    tenantIds: scope.tenantIds,
    trafficClasses: scope.trafficClasses,
    startMs: window.startMs,
    endMs: window.endMs,
    filters: rest.filters ?? {},
    ...rest,
  };
}
