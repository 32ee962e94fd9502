// `footfall site create|list|update`.
import type { Command } from 'commander';
import type { CatalogStore, SiteStatus } from '../ports/catalog-store.js';
import type { Profile } from '../domain/plans.js';
import { withStoreOptions } from './options.js';
import { Args, collect, group, listParent, run, type Opts, type Result } from './catalog-command-kit.js';
import { lines, siteJson } from './catalog-json.js';

const PROFILES: readonly Profile[] = ['strict', 'extended'];
const STATUSES: readonly SiteStatus[] = ['ACTIVE', 'SUSPENDED'];

export function registerSiteCommands(program: Command): void {
  const site = group(program, 'site', 'manage sites');
  withStoreOptions(site.command('create').description('register a site and its hostnames'))
    .option('--workspace <id>', 'workspace id')
    .option('--name <name>', 'site name')
    .option('--hostname <host>', 'a hostname of the site (repeat for more)', collect, [])
    .option('--profile <profile>', 'collection profile: strict|extended')
    .option('--profile-effective-at <iso>', 'instant from which the profile applies (default: since the site began)')
    .option('--status <status>', 'ACTIVE|SUSPENDED', 'ACTIVE')
    .action(run(createSite));
  withStoreOptions(site.command('list').description('list the sites of a workspace'))
    .option('--workspace <id>', 'workspace id')
    .action(run(listSites));
  withStoreOptions(site.command('update').description("change a site's name, hostnames, status or collection profile").argument('<site-id>'))
    .option('--name <name>', 'new name')
    .option('--hostname <host>', 'the new hostname list, replacing the old (repeat for more)', collect, [])
    .option('--status <status>', 'ACTIVE|SUSPENDED')
    .option('--profile <profile>', 'strict|extended: applies from now (or --profile-effective-at) on, never to older events')
    .option('--profile-effective-at <iso>', 'when the new profile starts: now or later (alone: moves a switch not yet in force)')
    .action(run(updateSite));
}

async function createSite(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const a = new Args(opts);
  const workspaceId = a.need('workspace', '--workspace <id>');
  const name = a.need('name', '--name <name>');
  const hostnames = a.needMany('hostname', '--hostname <host> (repeat it for more hostnames)');
  const profile = a.oneOf('--profile', a.need('profile', '--profile strict|extended'), PROFILES);
  const status = a.oneOf('--status', a.optional('status'), STATUSES);
  a.done();
  const site = await catalog.createSite({
    workspaceId,
    name,
    hostnames,
    collectionProfile: profile!,
    profileEffectiveAt: a.optional('profileEffectiveAt') ?? null,
    status,
  });
  return {
    json: { site_id: site.id },
    text: `Created site ${site.id} "${site.name}" (${site.hostnames.join(', ')}), profile ${site.collectionProfile}, ${site.status}.`,
  };
}

async function listSites(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const sites = await catalog.listSites(await listParent(catalog, opts, 'workspace'));
  return { json: { sites: sites.map(siteJson) }, text: lines(sites, 'No sites.', siteLine) };
}

function siteLine(s: { id: string; name: string; hostnames: string[]; status: string; collectionProfile: string; profileEffectiveAt: string | null }): string {
  const since = s.profileEffectiveAt ? ` from ${s.profileEffectiveAt}` : '';
  return `${s.id}  ${s.status}  ${s.collectionProfile}${since}  "${s.name}"  ${s.hostnames.join(', ')}`;
}

async function updateSite(catalog: CatalogStore, opts: Opts, [id]: string[]): Promise<Result> {
  const a = new Args(opts);
  const hostnames = (opts.hostname as string[]).length ? (opts.hostname as string[]) : undefined;
  const patch = {
    name: a.optional('name'),
    hostnames,
    status: a.oneOf('--status', a.optional('status'), STATUSES),
    collectionProfile: a.oneOf('--profile', a.optional('profile'), PROFILES),
    profileEffectiveAt: a.optional('profileEffectiveAt'),
  };
  if (Object.values(patch).every((v) => v === undefined))
    a.problem('nothing to change: give --name, --hostname, --status, --profile or --profile-effective-at');
  a.done();
  const site = await catalog.updateSite(id, patch);
  return { json: { site: siteJson(site) }, text: `Updated site ${siteLine(site)}. The next API request sees it.` };
}
