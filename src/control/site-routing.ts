// Which site collects for a host that no exact hostname names (docs/decisions/site-ownership.md "How collection finds
// a site"): the longest proven hostname pattern, else the proven domain scope. One indexed query.
import { sql, type Kysely } from 'kysely';
import { patternSuffixesOf, registrableDomain } from '../domain/site-ownership.js';
import type { ControlDB } from './schema.js';

const HOST_RE = /^[a-z0-9.-]{1,253}$/;

/**
 * The id of the site whose proven pattern or scope covers `host` (lower case), or null. Both come
 * from the workspace that proved the host's registrable domain: domain_owners by its primary key,
 * then that workspace's patterns (their primary key) and scope (a unique index).
 */
export async function siteIdByProvenDomain(db: Kysely<ControlDB>, host: string): Promise<string | null> {
  if (!HOST_RE.test(host)) return null;
  const domain = registrableDomain(host);
  if (domain === null) return null;
  const suffixes = patternSuffixesOf(host, domain);
  const byScope = db
    .selectFrom('domain_owners as o')
    .innerJoin('sites as s', (j) => j.onRef('s.workspace_id', '=', 'o.workspace_id').onRef('s.domain_scope', '=', 'o.domain'))
    .select(['s.id as site_id', sql<string>`''`.as('suffix')])
    .where('o.domain', '=', domain);
  const rows = suffixes.length
    ? await db
        .selectFrom('domain_owners as o')
        .innerJoin('site_hostname_patterns as p', (j) =>
          j.onRef('p.workspace_id', '=', 'o.workspace_id').onRef('p.domain', '=', 'o.domain'),
        )
        .select(['p.site_id as site_id', 'p.suffix as suffix'])
        .where('o.domain', '=', domain)
        .where('p.suffix', 'in', suffixes)
        .unionAll(byScope)
        .execute()
    : await byScope.execute();
  // The longest suffix is the most specific pattern; the scope ('') comes last.
  let best: { site_id: string; suffix: string } | undefined;
  for (const r of rows) if (!best || r.suffix.length > best.suffix.length) best = r;
  return best?.site_id ?? null;
}
