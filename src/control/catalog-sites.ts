// The sites half of the catalog (catalog-store.ts delegates here): creating a site under the plan's limit and
// the ownership rules, and the site reads that are not the request path's one-statement lookup.
// Dialect-independent like the rest of the catalog.
import type { Kysely } from 'kysely';
import { CatalogError, type NewSite, type Site, type SiteOwnership, type Workspace } from '../ports/catalog-store.js';
import { DEFAULT_TIME_ZONE } from '../domain/canonical-time-zone.js';
import { planLimitsFor } from '../domain/plans.js';
import { newId, type RandomBytes } from '../domain/tokens.js';
import { toSite } from './catalog-rows.js';
import { isUniqueViolation } from './db-errors.js';
import type { ControlDB, SitesTable } from './schema.js';
import { refuseTakenHostnames } from './site-hostnames.js';
import { checkOwnershipRequest, claimInTransaction } from './site-ownership.js';
import { siteOwnerships } from './site-ownership-records.js';
import { siteIdByProvenDomain } from './site-routing.js';
import { checkInstant, checkName, checkProfile, checkSiteStatus, checkTimeZone, normalizeHostnames } from './validation.js';
import { countOf, lockWorkspace } from './workspace-lock.js';

export interface SitesContext {
  db: Kysely<ControlDB>;
  random: RandomBytes;
  now(): string;
  requireWorkspace(id: string): Promise<Workspace>;
  getSite(id: string): Promise<Site | null>;
}

export async function createSite(ctx: SitesContext, input: NewSite): Promise<Site> {
  const name = checkName('site name', input.name);
  const hostnames = normalizeHostnames(input.hostnames);
  const profile = checkProfile(input.collectionProfile);
  const effectiveAt = checkInstant('profile effective-at', input.profileEffectiveAt);
  const status = checkSiteStatus(input.status ?? 'ACTIVE');
  const timezone = checkTimeZone(input.timezone ?? DEFAULT_TIME_ZONE);
  const ws = await ctx.requireWorkspace(input.workspaceId);
  const { scope, patterns } = await checkOwnershipRequest(ctx.db, input.workspaceId, input);
  await refuseTakenHostnames(ctx.db, input.workspaceId, hostnames);
  const limit = planLimitsFor(ws.plan, ws.apiPolicy).max_sites;

  const row: SitesTable = {
    id: newId('site', ctx.random),
    workspace_id: input.workspaceId,
    name,
    status,
    collection_profile: profile,
    profile_effective_at: effectiveAt,
    created_at: ctx.now(),
    // set by the claim below, once the scope is known to be free
    domain_scope: null,
    timezone,
  };
  try {
    // The workspace row first: the transaction then holds the write lock (SQLite) or the row lock
    // (PostgreSQL) before it counts, so two creations cannot both take the last place.
    await ctx.db.transaction().execute(async (trx) => {
      await lockWorkspace(trx, ws.id);
      if (limit !== null) {
        const used = await countOf(trx, 'sites', ws.id);
        if (used >= limit)
          throw new CatalogError(
            'SITE_LIMIT_REACHED',
            `the ${ws.plan} plan of workspace ${ws.id} includes ${limit} sites and all are in use`,
            { limit, used },
          );
      }
      await trx.insertInto('sites').values(row).execute();
      await claimInTransaction(
        trx,
        { workspaceId: row.workspace_id, siteId: row.id, hostnames, scope: scope ?? undefined, patterns },
        row.created_at,
        ctx.random,
      );
      await trx
        .insertInto('site_hostnames')
        .values(hostnames.map((hostname, ordinal) => ({ hostname, site_id: row.id, ordinal })))
        .execute();
    });
  } catch (err) {
    // Another writer registered one of the hostnames between the check and the insert.
    if (!isUniqueViolation(err)) throw err;
    await refuseTakenHostnames(ctx.db, input.workspaceId, hostnames);
    throw new CatalogError('CONFLICT', 'a hostname of this site was registered at the same time; try again');
  }
  return toSite(row, hostnames);
}

/** Exact hostnames first (one indexed query), then proven patterns and scopes (site-routing.ts). */
export async function findSiteByHostname(ctx: SitesContext, hostname: string): Promise<Site | null> {
  const host = hostname.trim().toLowerCase();
  if (host === '' || host.length > 257) return null;
  const bare = host.startsWith('www.') ? host.slice(4) : host;
  const rows = await ctx.db
    .selectFrom('site_hostnames')
    .select(['hostname', 'site_id'])
    .where('hostname', 'in', [bare, `www.${bare}`])
    .execute();
  // Two sites may hold example.com and www.example.com: the one named exactly wins.
  const hit = rows.find((r) => r.hostname === host) ?? rows[0];
  const siteId = hit ? hit.site_id : await siteIdByProvenDomain(ctx.db, host);
  return siteId ? ctx.getSite(siteId) : null;
}

export async function getSiteOwnership(ctx: SitesContext, siteId: string): Promise<SiteOwnership | null> {
  if (typeof siteId !== 'string') return null;
  const row = await ctx.db.selectFrom('sites').select(['id', 'workspace_id', 'domain_scope']).where('id', '=', siteId).executeTakeFirst();
  return row ? (await siteOwnerships(ctx.db, [row]))[0] : null;
}

export async function listSiteOwnership(ctx: SitesContext, workspaceId: string): Promise<SiteOwnership[]> {
  const rows = await ctx.db
    .selectFrom('sites')
    .select(['id', 'workspace_id', 'domain_scope'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return siteOwnerships(ctx.db, rows);
}

export async function listSites(ctx: SitesContext, workspaceId: string): Promise<Site[]> {
  const rows = await ctx.db
    .selectFrom('sites')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  if (rows.length === 0) return [];
  const hosts = await hostnamesOf(
    ctx,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toSite(r, hosts.get(r.id) ?? []));
}

async function hostnamesOf(ctx: SitesContext, siteIds: string[]): Promise<Map<string, string[]>> {
  const rows = await ctx.db
    .selectFrom('site_hostnames')
    .select(['site_id', 'hostname'])
    .where('site_id', 'in', siteIds)
    .orderBy('site_id')
    .orderBy('ordinal')
    .execute();
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.site_id, [...(out.get(r.site_id) ?? []), r.hostname]);
  return out;
}
