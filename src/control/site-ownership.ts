// Claims beyond exact hostnames (domain scopes, hostname patterns) and the proof of a domain, shared by
// site create, site update and verification (docs/decisions/site-ownership.md). Dialect-independent.
import { sql, type Kysely, type Transaction } from 'kysely';
import { CatalogError } from '../ports/catalog-store.js';
import { liesInside, registrableDomain, VERIFICATION_CODE_LENGTH } from '../domain/site-ownership.js';
import { randomBase62, type RandomBytes } from '../domain/tokens.js';
import { checkDomainScope, normalizePatterns, patternDomains } from './ownership-validation.js';
import type { ControlDB } from './schema.js';

/** What a site create or update claims; undefined = unchanged by this update. */
export interface Claim {
  workspaceId: string;
  siteId: string;
  hostnames?: string[];
  /** null = the scope is removed */
  scope?: string | null;
  /** pattern suffixes (without `*.`), each with the registrable domain it lies in */
  patterns?: Array<{ suffix: string; domain: string }>;
}

/** The domains a workspace has asked for (by any site's scope, now or before). */
async function askedDomains(db: Kysely<ControlDB>, workspaceId: string): Promise<Set<string>> {
  const rows = await db.selectFrom('workspace_domains').select('domain').where('workspace_id', '=', workspaceId).execute();
  return new Set(rows.map((r) => r.domain));
}

/**
 * A create's or update's scope and patterns, checked (ownership-validation.ts): each pattern must lie
 * inside a domain the workspace has asked for, this scope included. undefined = not given.
 */
export async function checkOwnershipRequest(
  db: Kysely<ControlDB>,
  workspaceId: string,
  input: { domainScope?: string | null; hostnamePatterns?: string[] },
): Promise<Pick<Claim, 'scope' | 'patterns'>> {
  const scope = input.domainScope === undefined || input.domainScope === null ? input.domainScope : checkDomainScope(input.domainScope);
  if (input.hostnamePatterns === undefined) return { scope };
  const suffixes = normalizePatterns(input.hostnamePatterns);
  const asked = await askedDomains(db, workspaceId);
  if (scope) asked.add(scope);
  const domains = patternDomains(suffixes, asked);
  return { scope, patterns: suffixes.map((suffix, i) => ({ suffix, domain: domains[i] })) };
}

/**
 * Takes the row lock of each domain (created when missing), in one order so that two claims never
 * wait for each other. Inside a transaction: a proof of the same domain then waits for this claim to
 * commit, or this claim for the proof, and the later one sees the earlier.
 */
async function lockDomains(trx: Transaction<ControlDB>, domains: Iterable<string>): Promise<void> {
  for (const domain of [...new Set(domains)].sort()) {
    await trx
      .insertInto('domain_owners')
      .values({ domain, workspace_id: null, verified_at: null, claims: 0 })
      .onConflict((oc) => oc.column('domain').doNothing())
      .execute();
    await trx.updateTable('domain_owners').set({ claims: sql`claims + 1` }).where('domain', '=', domain).execute();
  }
}

/**
 * Inside the site's write transaction (after its first write): locks the domains the claim touches,
 * refuses what another workspace proved or another site of this workspace holds, then stores the
 * scope (asking for its domain) and the patterns. Exact hostnames are stored by the caller.
 */
export async function claimInTransaction(trx: Transaction<ControlDB>, claim: Claim, now: string, random: RandomBytes): Promise<void> {
  const named: Array<{ what: string; domain: string }> = [];
  for (const h of claim.hostnames ?? []) {
    const domain = registrableDomain(h);
    if (domain) named.push({ what: `hostname "${h}"`, domain });
  }
  if (claim.scope) named.push({ what: `domain scope "${claim.scope}"`, domain: claim.scope });
  for (const p of claim.patterns ?? []) named.push({ what: `hostname pattern "*.${p.suffix}"`, domain: p.domain });
  if (named.length === 0 && claim.scope === undefined && claim.patterns === undefined) return;

  await lockDomains(
    trx,
    named.map((n) => n.domain),
  );
  if (named.length) {
    const proven = await trx
      .selectFrom('domain_owners')
      .select('domain')
      .where('domain', 'in', [...new Set(named.map((n) => n.domain))])
      .where('workspace_id', 'is not', null)
      .where('workspace_id', '<>', claim.workspaceId)
      .execute();
    const taken = new Set(proven.map((r) => r.domain));
    const first = named.find((n) => taken.has(n.domain));
    if (first)
      throw new CatalogError(
        'SITE_SCOPE_ALREADY_CLAIMED',
        `${first.what} lies inside ${first.domain}, which another workspace has verified`,
        {
          domain: first.domain,
        },
      );
  }

  if (claim.scope !== undefined) {
    if (claim.scope !== null) {
      const holder = await trx
        .selectFrom('sites')
        .select('id')
        .where('workspace_id', '=', claim.workspaceId)
        .where('domain_scope', '=', claim.scope)
        .where('id', '<>', claim.siteId)
        .executeTakeFirst();
      if (holder)
        throw new CatalogError(
          'SITE_SCOPE_ALREADY_CLAIMED',
          `domain scope "${claim.scope}" already belongs to site ${holder.id} of this workspace; remove it there first`,
          {
            field: 'domain_scope',
            value: claim.scope,
          },
        );
      await trx
        .insertInto('workspace_domains')
        .values({
          workspace_id: claim.workspaceId,
          domain: claim.scope,
          code: randomBase62(random, VERIFICATION_CODE_LENGTH),
          created_at: now,
        })
        .onConflict((oc) => oc.columns(['workspace_id', 'domain']).doNothing())
        .execute();
    }
    await trx.updateTable('sites').set({ domain_scope: claim.scope }).where('id', '=', claim.siteId).execute();
  }

  if (claim.patterns !== undefined) {
    const suffixes = claim.patterns.map((p) => p.suffix);
    if (suffixes.length) {
      const held = await trx
        .selectFrom('site_hostname_patterns')
        .select(['suffix', 'site_id'])
        .where('workspace_id', '=', claim.workspaceId)
        .where('suffix', 'in', suffixes)
        .where('site_id', '<>', claim.siteId)
        .orderBy('suffix')
        .executeTakeFirst();
      if (held)
        throw new CatalogError('CONFLICT', `hostname pattern "*.${held.suffix}" already belongs to site ${held.site_id} of this workspace`);
    }
    await trx.deleteFrom('site_hostname_patterns').where('site_id', '=', claim.siteId).execute();
    if (suffixes.length)
      await trx
        .insertInto('site_hostname_patterns')
        .values(
          claim.patterns.map((p, ordinal) => ({
            workspace_id: claim.workspaceId,
            suffix: p.suffix,
            site_id: claim.siteId,
            domain: p.domain,
            ordinal,
          })),
        )
        .execute();
  }
}

/**
 * Records the workspace's proof of `domain` and releases every exact hostname inside it held by
 * another workspace's site (kept in released_hostnames). A second proof by the same workspace keeps
 * the first time; one by another workspace is SITE_SCOPE_ALREADY_CLAIMED.
 */
export async function markDomainVerified(
  db: Kysely<ControlDB>,
  workspaceId: string,
  domain: string,
  now: string,
): Promise<{ verifiedAt: string }> {
  return db.transaction().execute(async (trx) => {
    await lockDomains(trx, [domain]);
    const owner = await trx
      .selectFrom('domain_owners')
      .select(['workspace_id', 'verified_at'])
      .where('domain', '=', domain)
      .executeTakeFirstOrThrow();
    if (owner.workspace_id === workspaceId && owner.verified_at !== null) return { verifiedAt: owner.verified_at };
    if (owner.workspace_id !== null)
      throw new CatalogError('SITE_SCOPE_ALREADY_CLAIMED', `${domain} is already verified by another workspace`, { domain });
    await trx.updateTable('domain_owners').set({ workspace_id: workspaceId, verified_at: now }).where('domain', '=', domain).execute();

    // Domains hold only [a-z0-9.-], so the LIKE pattern has no wildcard but its own '%'.
    const lost = await trx
      .selectFrom('site_hostnames')
      .innerJoin('sites', 'sites.id', 'site_hostnames.site_id')
      .select(['site_hostnames.hostname', 'site_hostnames.site_id'])
      .where('sites.workspace_id', '<>', workspaceId)
      .where((eb) => eb.or([eb('site_hostnames.hostname', '=', domain), eb('site_hostnames.hostname', 'like', `%.${domain}`)]))
      .execute();
    const released = lost.filter((l) => liesInside(l.hostname, domain));
    if (released.length) {
      await trx
        .insertInto('released_hostnames')
        .values(released.map((l) => ({ site_id: l.site_id, hostname: l.hostname, released_at: now })))
        .onConflict((oc) => oc.columns(['site_id', 'hostname']).doNothing())
        .execute();
      await trx
        .deleteFrom('site_hostnames')
        .where(
          'hostname',
          'in',
          released.map((l) => l.hostname),
        )
        .execute();
    }
    return { verifiedAt: now };
  });
}
