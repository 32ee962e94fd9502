// `footfall site create|list|update|verify`.
import type { Command } from 'commander';
import type { CatalogStore, Site, SiteOwnership, SiteStatus } from '../ports/catalog-store.js';
import type { Profile } from '../domain/plans.js';
import { openDnsTxtResolver } from '../container.js';
import { verifySite } from '../services/ownership/verify-site.js';
import { scopeProof, siteViews } from '../services/manage/sites.js';
import { siteVerificationJson, siteViewJson, verificationJson } from '../services/manage/records-json.js';
import { withStoreOptions } from './options.js';
import { Args, collect, group, listParent, run, type CommandContext, type Opts, type Result } from './catalog-command-kit.js';
import { lines, siteJson } from './catalog-json.js';
import { addSiteDelete } from './lifecycle-commands.js';

const PROFILES: readonly Profile[] = ['strict', 'extended'];
const STATUSES: readonly SiteStatus[] = ['ACTIVE', 'SUSPENDED'];

export function registerSiteCommands(program: Command): void {
  const site = group(program, 'site', 'manage sites');
  withStoreOptions(site.command('create').description('register a site and its hostnames'))
    .option('--workspace <id>', 'workspace id')
    .option('--name <name>', 'site name')
    .option('--hostname <host>', 'a hostname of the site (repeat for more)', collect, [])
    .option('--domain-scope <domain>', 'a registrable domain the site collects for, with every subdomain, once verified (site verify)')
    .option(
      '--hostname-pattern <pattern>',
      '*.<suffix>: hosts ending in .<suffix>, inside a domain this workspace asked for; collects once verified (repeat for more)',
      collect,
      [],
    )
    .option('--profile <profile>', 'collection profile: strict|extended')
    .option('--profile-effective-at <iso>', 'instant from which the profile applies (default: since the site began)')
    .option('--status <status>', 'ACTIVE|SUSPENDED', 'ACTIVE')
    .option('--timezone <zone>', "IANA time zone the site's reports are to count days in, e.g. Europe/Berlin (default UTC)")
    .action(run(createSite));
  withStoreOptions(site.command('list').description('list the sites of a workspace'))
    .option('--workspace <id>', 'workspace id')
    .action(run(listSites));
  withStoreOptions(
    site
      .command('update')
      .description("change a site's name, hostnames, scope, patterns, status, collection profile or time zone")
      .argument('<site-id>'),
  )
    .option('--name <name>', 'new name')
    .option('--hostname <host>', 'the new hostname list, replacing the old (repeat for more)', collect, [])
    .option('--domain-scope <domain>', 'the new domain scope')
    .option('--clear-domain-scope', 'remove the domain scope')
    .option('--hostname-pattern <pattern>', 'the new pattern list, replacing the old (repeat for more)', collect, [])
    .option('--clear-hostname-patterns', 'remove every hostname pattern')
    .option('--status <status>', 'ACTIVE|SUSPENDED')
    .option('--profile <profile>', 'strict|extended: applies from now (or --profile-effective-at) on, never to older events')
    .option('--profile-effective-at <iso>', 'when the new profile starts: now or later (alone: moves a switch not yet in force)')
    .option('--timezone <zone>', "the IANA time zone the site's reports are to count days in, e.g. Europe/Berlin")
    .action(run(updateSite));
  withStoreOptions(
    site
      .command('verify')
      .description("look up the site's TXT record now and, if it is there, verify its domain scope")
      .argument('<site-id>'),
  )
    .option('--dns-servers <list>', "resolvers to ask, ip[:port] comma-separated (FOOTFALL_DNS_SERVERS, default the system's)")
    .action(run(verify));
  addSiteDelete(site);
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
    domainScope: a.optional('domainScope'),
    hostnamePatterns: opts.hostnamePattern as string[],
    timezone: a.optional('timezone'),
  });
  const created = `Created site ${site.id} "${site.name}" (${site.hostnames.join(', ')}), profile ${site.collectionProfile}, time zone ${site.timezone}, ${site.status}.`;
  const ownership = await catalog.getSiteOwnership(site.id);
  const proof = ownership ? scopeProof(ownership) : undefined;
  if (!proof) return { json: { site_id: site.id }, text: created };
  const verification = verificationJson(proof);
  const next = proof.verifiedAt
    ? `${proof.domain} is verified already: its hosts collect now.`
    : `To collect for all of ${proof.domain}, publish a TXT record named ${proof.recordName} with the value ${proof.recordValue}, then run: footfall site verify ${site.id}`;
  return { json: { site_id: site.id, verification }, text: `${created}\n${next}` };
}

async function listSites(catalog: CatalogStore, opts: Opts): Promise<Result> {
  const views = await siteViews(catalog, await listParent(catalog, opts, 'workspace'));
  return {
    json: { sites: views.map(siteViewJson) },
    text: lines(views, 'No sites.', (v) => siteLines(v.site, v.ownership)),
  };
}

function withOwnership(site: Site, ownership: SiteOwnership | null) {
  return ownership ? siteViewJson({ site, ownership }) : siteJson(site);
}

function siteLines(s: Site, o: SiteOwnership | null | undefined): string {
  const since = s.profileEffectiveAt ? ` from ${s.profileEffectiveAt}` : '';
  const out = [`${s.id}  ${s.status}  ${s.collectionProfile}${since}  ${s.timezone}  "${s.name}"  ${s.hostnames.join(', ')}`];
  if (o?.domainScope) out.push(`  domain scope ${o.domainScope}`);
  if (o?.hostnamePatterns.length) out.push(`  hostname patterns ${o.hostnamePatterns.join(', ')}`);
  for (const d of o?.domains ?? []) {
    const state = d.verifiedAt
      ? `verified ${d.verifiedAt}`
      : d.claimedElsewhere
        ? 'verified by another workspace: collects nothing here'
        : `not verified: publish TXT ${d.recordName} "${d.recordValue}", then site verify`;
    out.push(`  ${d.domain}: ${state}`);
  }
  for (const r of o?.releasedHostnames ?? [])
    out.push(`  released ${r.hostname} at ${r.releasedAt} (another workspace verified its domain)`);
  return out.join('\n');
}

async function updateSite(catalog: CatalogStore, opts: Opts, [id]: string[]): Promise<Result> {
  const a = new Args(opts);
  const many = (key: string) => ((opts[key] as string[]).length ? (opts[key] as string[]) : undefined);
  const scope = a.optional('domainScope');
  const patterns = many('hostnamePattern');
  if (scope !== undefined && opts.clearDomainScope) a.problem('give --domain-scope or --clear-domain-scope, not both');
  if (patterns && opts.clearHostnamePatterns) a.problem('give --hostname-pattern or --clear-hostname-patterns, not both');
  const patch = {
    name: a.optional('name'),
    hostnames: many('hostname'),
    status: a.oneOf('--status', a.optional('status'), STATUSES),
    collectionProfile: a.oneOf('--profile', a.optional('profile'), PROFILES),
    profileEffectiveAt: a.optional('profileEffectiveAt'),
    domainScope: opts.clearDomainScope ? null : scope,
    hostnamePatterns: opts.clearHostnamePatterns ? [] : patterns,
    timezone: a.optional('timezone'),
  };
  if (Object.values(patch).every((v) => v === undefined))
    a.problem(
      'nothing to change: give --name, --hostname, --domain-scope, --hostname-pattern, --status, --profile, --profile-effective-at or --timezone',
    );
  a.done();
  const site = await catalog.updateSite(id, patch);
  const ownership = await catalog.getSiteOwnership(id);
  return {
    json: { site: withOwnership(site, ownership) },
    text: `Updated site ${siteLines(site, ownership)}\nThe next API request sees it.`,
  };
}

async function verify(catalog: CatalogStore, _opts: Opts, [id]: string[], ctx: CommandContext): Promise<Result> {
  const v = await verifySite({ catalog, dns: openDnsTxtResolver(ctx.config) }, id);
  return {
    json: siteVerificationJson(v),
    text: `Verified ${v.domain} for site ${v.siteId} (${v.verifiedAt}): its hosts and patterns collect now, for every site of the workspace.`,
  };
}
