// Events used per UTC month against the plan's included events (docs/product.md §10), next to the API units
// of the same month. From the event store's counts kept at commit: never a scan of events. Collection never
// stops past the allowance: the overage is a preview.
import { apiPolicyFor, includedEventsFor, type PlanId } from '../../domain/plans.js';
import { periodOf } from '../../domain/periods.js';
import type { Clock } from '../../domain/clock.js';
import type { CatalogStore, Workspace } from '../../ports/catalog-store.js';
import type { UsageLedger } from '../../ports/usage-ledger.js';
import { CatalogError } from '../../ports/catalog-store.js';
import { checkedMonth } from '../../ports/event-store.js';
import { termsOf } from '../metering.js';
import type { LifecycleStore } from './lifecycle-deps.js';

export interface EventUsage {
  workspace_id: string;
  plan: PlanId;
  /** YYYY-MM (UTC) */
  period: string;
  events_used: number;
  /** null: unlimited (enterprise without max_events_per_month) */
  events_included: number | null;
  events_overage: number;
  units_used: number;
  units_included: number;
  units_overage: number;
  sites: { site_id: string; name: string; events_used: number }[];
}

export interface EventUsageDeps {
  catalog: Pick<CatalogStore, 'getWorkspace' | 'listSites'>;
  ledger: Pick<UsageLedger, 'used'>;
  store: Pick<LifecycleStore, 'eventCounts'>;
  clock: Clock;
}

/** The workspace's sites and their counts of the month. */
async function workspaceCounts(
  deps: { catalog: Pick<CatalogStore, 'listSites'>; store: Pick<LifecycleStore, 'eventCounts'> },
  workspaceId: string,
  period: string,
) {
  const sites = await deps.catalog.listSites(workspaceId);
  const counts = sites.length ? await deps.store.eventCounts({ siteIds: sites.map((s) => s.id), months: [period] }) : [];
  return { sites, counts };
}

/** The workspace's events and units of `period` (default: the current UTC month). NOT_FOUND for an unknown workspace. */
export async function eventUsage(deps: EventUsageDeps, workspaceId: string, period?: string): Promise<EventUsage> {
  const ws = await deps.catalog.getWorkspace(workspaceId);
  if (!ws) throw new CatalogError('NOT_FOUND', `unknown workspace "${workspaceId}"`);
  return eventUsageOf(deps, ws, period === undefined ? periodOf(deps.clock.now()) : checkedMonth(period));
}

/** eventUsage for a workspace already read. */
export async function eventUsageOf(
  deps: Omit<EventUsageDeps, 'catalog'> & { catalog: Pick<CatalogStore, 'listSites'> },
  ws: Workspace,
  period: string,
): Promise<EventUsage> {
  const { sites, counts } = await workspaceCounts(deps, ws.id, period);
  const bySite = new Map(counts.map((c) => [c.site_id, c.events]));
  const eventsUsed = counts.reduce((n, c) => n + c.events, 0);
  const included = includedEventsFor(ws.plan, ws.apiPolicy);
  const terms = termsOf(apiPolicyFor(ws.plan, ws.apiPolicy));
  const unitsUsed = await deps.ledger.used(ws.id, period);
  return {
    workspace_id: ws.id,
    plan: ws.plan,
    period,
    events_used: eventsUsed,
    events_included: included,
    events_overage: included === null ? 0 : Math.max(0, eventsUsed - included),
    units_used: unitsUsed,
    units_included: terms.included,
    units_overage: Math.max(0, unitsUsed - terms.included),
    sites: sites.map((s) => ({ site_id: s.id, name: s.name, events_used: bySite.get(s.id) ?? 0 })),
  };
}

/** Every workspace's events of the current UTC month and its included events (the metrics gauges). */
export async function allowanceSamples(deps: {
  catalog: Pick<CatalogStore, 'listWorkspaces' | 'listSites'>;
  store: Pick<LifecycleStore, 'eventCounts'>;
  clock: Clock;
}) {
  const period = periodOf(deps.clock.now());
  const out: { workspace_id: string; used: number; included: number | null }[] = [];
  for (const ws of await deps.catalog.listWorkspaces()) {
    const { counts } = await workspaceCounts(deps, ws.id, period);
    out.push({ workspace_id: ws.id, used: counts.reduce((n, c) => n + c.events, 0), included: includedEventsFor(ws.plan, ws.apiPolicy) });
  }
  return out;
}
