// Hostname ownership (docs/decisions/control-plane.md "One hostname, one site"), shared by site create and update.
import type { Kysely, Transaction } from 'kysely';
import { CatalogError } from '../ports/catalog-store.js';
import type { ControlDB } from './schema.js';

/**
 * Refuses hostnames held by another workspace (SITE_SCOPE_ALREADY_CLAIMED) or by another site of
 * this one (CONFLICT). Never names the other workspace or its site: a claim by someone else reveals
 * nothing about them. `exceptSiteId`: the site being updated may keep its own hostnames.
 */
export async function refuseTakenHostnames(
  db: Kysely<ControlDB>,
  workspaceId: string,
  hostnames: string[],
  exceptSiteId?: string,
): Promise<void> {
  let q = db
    .selectFrom('site_hostnames')
    .innerJoin('sites', 'sites.id', 'site_hostnames.site_id')
    .select(['site_hostnames.hostname', 'site_hostnames.site_id', 'sites.workspace_id'])
    .where('site_hostnames.hostname', 'in', hostnames);
  if (exceptSiteId !== undefined) q = q.where('site_hostnames.site_id', '<>', exceptSiteId);
  const taken = await q.orderBy('site_hostnames.hostname').execute();
  const foreign = taken.find((t) => t.workspace_id !== workspaceId);
  if (foreign)
    throw new CatalogError('SITE_SCOPE_ALREADY_CLAIMED', `hostname "${foreign.hostname}" is already claimed by another workspace`);
  const own = taken[0];
  if (own) throw new CatalogError('CONFLICT', `hostname "${own.hostname}" already belongs to site ${own.site_id} of this workspace`);
}

/** Replaces a site's hostnames, keeping the order given. */
export async function replaceHostnames(trx: Transaction<ControlDB>, siteId: string, hostnames: string[]): Promise<void> {
  await trx.deleteFrom('site_hostnames').where('site_id', '=', siteId).execute();
  await trx
    .insertInto('site_hostnames')
    .values(hostnames.map((hostname, ordinal) => ({ hostname, site_id: siteId, ordinal })))
    .execute();
}
