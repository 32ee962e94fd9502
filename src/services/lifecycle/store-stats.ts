// `footfall stats`: what the stores hold, counted, and a comparison with the stats taken earlier, e.g.
// when a backup was made (docs/decisions/upgrades.md: a restored stack is checked against them).
import type { CatalogStore } from '../../ports/catalog-store.js';
import type { Month, TableRows } from '../../ports/event-store.js';
import type { LifecycleStore } from './lifecycle-deps.js';

export interface SiteStats {
  workspace_id: string;
  /** stored UTC days with events, the first and last of them, and the events on them */
  days: number;
  first_day: string | null;
  last_day: string | null;
  events: number;
  /** stored events per UTC month of their timestamp */
  by_month: Record<string, number>;
  /** the event counts kept for usage (they outlive a purge) per month of by_month */
  counted: Record<string, number>;
}

export interface StoreStats {
  /** the footfall that counted (not compared) */
  version: string;
  /** rows per control-plane table */
  control: Record<string, number>;
  /** rows per table of the events store, per server; null when a running server owns the store (DuckDB) */
  event_tables: Record<string, Record<string, number>> | null;
  sites: Record<string, SiteStats>;
}

/** After every stored day, whatever the clock says: previewPurge before it lists every stored day. */
const AFTER_ALL = '9999-12-31';

export async function collectStats(deps: {
  version: string;
  catalog: CatalogStore;
  store: LifecycleStore;
  controlRows: () => Promise<Record<string, number>>;
  tableRows?: () => Promise<TableRows[]>;
}): Promise<StoreStats> {
  const sites: Record<string, SiteStats> = {};
  for (const ws of await deps.catalog.listWorkspaces())
    for (const site of await deps.catalog.listSites(ws.id)) {
      const stored = await deps.store.previewPurge(site.id, AFTER_ALL);
      const months = stored.byMonth.map((m) => m.month as Month);
      const counted = months.length ? await deps.store.eventCounts({ siteIds: [site.id], months }) : [];
      sites[site.id] = {
        workspace_id: ws.id,
        days: stored.days,
        first_day: stored.firstDay,
        last_day: stored.lastDay,
        events: stored.events,
        by_month: Object.fromEntries(stored.byMonth.map((m) => [m.month, m.events])),
        counted: Object.fromEntries(counted.map((c) => [c.month, c.events])),
      };
    }
  const tables = deps.tableRows ? await deps.tableRows() : null;
  return {
    version: deps.version,
    control: await deps.controlRows(),
    event_tables: tables ? Object.fromEntries(tables.map((t) => [t.server, t.tables])) : null,
    sites: Object.fromEntries(Object.entries(sites).sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}

/**
 * Every difference between stats taken earlier (`then`) and now, one line each ("control.sessions: 3
 * then, 2 now"); [] when they hold the same. The version that counted is not compared, and event tables
 * only when both counted them.
 */
export function compareStats(then: StoreStats, now: StoreStats): string[] {
  const out: string[] = [];
  const walk = (where: string, a: unknown, b: unknown) => {
    if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
      for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort())
        walk(where ? `${where}.${k}` : k, (a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]);
    } else if (a !== b)
      out.push(`${where}: ${a === undefined ? 'absent' : JSON.stringify(a)} then, ${b === undefined ? 'absent' : JSON.stringify(b)} now`);
  };
  walk('control', then.control, now.control);
  if (then.event_tables && now.event_tables) walk('event_tables', then.event_tables, now.event_tables);
  walk('sites', then.sites, now.sites);
  return out;
}

/** Whether `x` looks like the JSON `footfall stats --json` printed. */
export function isStoreStats(x: unknown): x is StoreStats {
  const s = x as Partial<StoreStats> | null;
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.control === 'object' &&
    s.control !== null &&
    typeof s.sites === 'object' &&
    s.sites !== null &&
    (s.event_tables === null || typeof s.event_tables === 'object')
  );
}
