// The site every analytics bench reads: an enterprise workspace without limits that would get in the
// way, one extended site with three tenants and the demo's goals (so goal conversions have work to
// do). Not a bench itself (no `run`).
import { DEMO_WORKSPACES } from '../src/ingest/demo/seed-demo.js';
import type { CatalogStore } from '../src/ports/catalog-store.js';

export async function createBenchSite(catalog: CatalogStore): Promise<{ workspaceId: string; siteId: string; tenants: string[] }> {
  const ws = await catalog.createWorkspace({
    name: 'bench',
    plan: 'enterprise',
    apiPolicy: { rate_limit_rps: 1_000_000, hard_cap_units: null, monthly_included_units: 1_000_000_000 },
  });
  const site = await catalog.createSite({ workspaceId: ws.id, name: 'bench', hostnames: ['bench.example'], collectionProfile: 'extended' });
  const tenants = [];
  for (const slug of ['north', 'south', 'east']) tenants.push((await catalog.createTenant({ siteId: site.id, slug, name: slug })).id);
  for (const g of DEMO_WORKSPACES[0].sites[0].goals) {
    await catalog.createGoal({
      siteId: site.id,
      name: g.name,
      type: g.type,
      intent: g.intent,
      pattern: g.pattern,
      filters: g.filters ?? {},
    });
  }
  return { workspaceId: ws.id, siteId: site.id, tenants };
}
