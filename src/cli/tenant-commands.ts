// `footfall tenant create|list|update`.
import type { Command } from 'commander';
import type { CatalogStore, TenantStatus } from '../ports/catalog-store.js';
import { withStoreOptions } from './options.js';
import { Args, group, listParent, run, type Opts, type Result } from './catalog-command-kit.js';
import { lines, tenantJson } from './catalog-json.js';

const STATUSES: readonly TenantStatus[] = ['ACTIVE', 'INACTIVE'];

export function registerTenantCommands(program: Command): void {
  const tenant = group(program, 'tenant', 'manage tenants of a site');
  withStoreOptions(tenant.command('create').description('create a tenant of a site'))
    .option('--site <id>', 'site id')
    .option('--slug <slug>', 'routing slug, unique in the site')
    .option('--name <name>', 'display name')
    .option('--status <status>', 'ACTIVE|INACTIVE', 'ACTIVE')
    .action(run(createTenant));
  withStoreOptions(tenant.command('list').description('list the tenants of a site, inactive ones included'))
    .option('--site <id>', 'site id')
    .action(run(listTenants));
  withStoreOptions(tenant.command('update').description("change a tenant's slug, name or status").argument('<tenant-id>'))
    .option('--slug <slug>', 'new routing slug, unique in the site')
    .option('--name <name>', 'new display name')
    .option('--status <status>', 'ACTIVE|INACTIVE')
    .action(run(updateTenant));
}

async function createTenant(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const a = new Args(opts);
  const siteId = a.need('site', '--site <id>');
  const slug = a.need('slug', '--slug <slug>');
  const name = a.need('name', '--name <name>');
  const status = a.oneOf('--status', a.optional('status'), STATUSES);
  a.done();
  const t = await catalog.createTenant({ siteId, slug, name, status });
  return { json: { tenant_id: t.id }, text: `Created tenant ${t.id} "${t.slug}" on site ${t.siteId}, ${t.status}.` };
}

async function listTenants(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const tenants = await catalog.listTenants(await listParent(catalog, opts, 'site'));
  return {
    json: { tenants: tenants.map(tenantJson) },
    text: lines(tenants, 'No tenants.', (t) => `${t.id}  ${t.status}  ${t.slug}  "${t.name}"`),
  };
}

async function updateTenant(catalog: CatalogStore, opts: Opts, [id]: string[]): Promise<Result> {
  const a = new Args(opts);
  const patch = { slug: a.optional('slug'), name: a.optional('name'), status: a.oneOf('--status', a.optional('status'), STATUSES) };
  if (Object.values(patch).every((v) => v === undefined)) a.problem('nothing to change: give --slug, --name or --status');
  a.done();
  const t = await catalog.updateTenant(id, patch);
  return {
    json: { tenant: tenantJson(t) },
    text: `Updated tenant ${t.id}: ${t.slug} "${t.name}", ${t.status}. The next API request sees it.`,
  };
}
