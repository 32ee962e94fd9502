// The actions report (/v1/reports/actions: each click, link, download and form with its details) takes
// the page's site, period, traffic and tenant, but counts whole UTC days and not the page's filters: the
// query API's rows do not carry an action's details. The panel says so rather than look filtered.
import type { PanelContext } from './context.js';
import type { DashboardState } from './query.js';

export function reportQuery(ctx: PanelContext) {
  const { state, siteId, period } = ctx;
  return {
    site_id: siteId,
    from: period.from,
    to: period.to,
    limit: 100,
    ...(state.traffic !== 'humans' ? { traffic: state.traffic } : {}),
    ...(state.tenantId ? { tenant_id: state.tenantId } : {}),
  };
}

export function NotFilteredNote({ state, zone }: { state: DashboardState; zone: string | null }) {
  const filtered = state.filters.length > 0;
  const zoned = zone !== null && zone !== 'UTC';
  if (!filtered && !zoned) return null;
  return (
    <p class="note">
      {zoned ? 'These counts are of whole UTC days, not the site’s local days' : 'Filters do not apply here'}
      {filtered && zoned ? ', and filters do not apply to them' : ''}: they cover the whole site for the period, traffic and tenant.
    </p>
  );
}
