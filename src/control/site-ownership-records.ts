// Sites' ownership records (scope, patterns, the proof of each domain, released hostnames) as the
// CatalogStore port shows them. A handful of queries for any number of sites.
import type { Kysely } from 'kysely';
import type { DomainProof, SiteOwnership } from '../ports/catalog-store.js';
import { verificationRecord } from '../domain/site-ownership.js';
import type { ControlDB } from './schema.js';

type SiteRow = { id: string; workspace_id: string; domain_scope: string | null };

export async function siteOwnerships(db: Kysely<ControlDB>, sites: SiteRow[]): Promise<SiteOwnership[]> {
  if (sites.length === 0) return [];
  const ids = sites.map((s) => s.id);
  const [patterns, released] = await Promise.all([
    db
      .selectFrom('site_hostname_patterns')
      .select(['site_id', 'suffix', 'domain'])
      .where('site_id', 'in', ids)
      .orderBy('site_id')
      .orderBy('ordinal')
      .execute(),
    db.selectFrom('released_hostnames').selectAll().where('site_id', 'in', ids).orderBy('released_at').orderBy('hostname').execute(),
  ]);
  const domainsOf = new Map<string, string[]>();
  for (const s of sites) domainsOf.set(s.id, s.domain_scope ? [s.domain_scope] : []);
  for (const p of patterns) {
    const list = domainsOf.get(p.site_id)!;
    if (!list.includes(p.domain)) list.push(p.domain);
  }
  const allDomains = [...new Set([...domainsOf.values()].flat())];
  const workspaceIds = [...new Set(sites.map((s) => s.workspace_id))];
  const [codes, owners] = allDomains.length
    ? await Promise.all([
        db
          .selectFrom('workspace_domains')
          .selectAll()
          .where('workspace_id', 'in', workspaceIds)
          .where('domain', 'in', allDomains)
          .execute(),
        db.selectFrom('domain_owners').select(['domain', 'workspace_id', 'verified_at']).where('domain', 'in', allDomains).execute(),
      ])
    : [[], []];
  const code = new Map(codes.map((c) => [`${c.workspace_id} ${c.domain}`, c.code]));
  const owner = new Map(owners.map((o) => [o.domain, o]));

  return sites.map((s) => {
    const domains: DomainProof[] = [];
    for (const domain of domainsOf.get(s.id)!) {
      const c = code.get(`${s.workspace_id} ${domain}`);
      if (c === undefined) continue;
      const record = verificationRecord(domain, c);
      const o = owner.get(domain);
      const ours = o?.workspace_id === s.workspace_id;
      domains.push({
        domain,
        recordName: record.name,
        recordValue: record.value,
        verifiedAt: ours ? (o!.verified_at ?? null) : null,
        claimedElsewhere: !ours && (o?.workspace_id ?? null) !== null,
      });
    }
    return {
      siteId: s.id,
      workspaceId: s.workspace_id,
      domainScope: s.domain_scope ?? null,
      hostnamePatterns: patterns.filter((p) => p.site_id === s.id).map((p) => `*.${p.suffix}`),
      domains,
      releasedHostnames: released.filter((r) => r.site_id === s.id).map((r) => ({ hostname: r.hostname, releasedAt: r.released_at })),
    };
  });
}
