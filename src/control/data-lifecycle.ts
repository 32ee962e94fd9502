// LifecycleControl over Kysely (SQLite and PostgreSQL alike): site and workspace removal in one
// transaction each, with the event-store work they leave recorded in the same commit, and job leases.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { LifecycleControl, PendingSiteDeletion } from '../ports/lifecycle-control.js';
import type { Clock } from '../domain/clock.js';
import type { ControlDB } from './schema.js';

type Trx = Transaction<ControlDB>;

const toPending = (r: { site_id: string; workspace_id: string; requested_at: string }): PendingSiteDeletion => ({
  siteId: r.site_id,
  workspaceId: r.workspace_id,
  requestedAt: r.requested_at,
});

/** Every row naming the site, children first (foreign keys), then the site, and its pending deletion. */
async function removeSiteRows(trx: Trx, siteId: string, workspaceId: string, now: string): Promise<void> {
  // a report's deliveries name its subscription, not the site
  await trx
    .deleteFrom('report_deliveries')
    .where('subscription_id', 'in', trx.selectFrom('report_subscriptions').select('id').where('site_id', '=', siteId))
    .execute();
  for (const table of [
    'site_hostnames',
    'site_hostname_patterns',
    'released_hostnames',
    'tenants',
    'goals',
    'funnels',
    'report_subscriptions',
    'share_links',
  ] as const)
    await trx.deleteFrom(table).where('site_id', '=', siteId).execute();
  await trx.deleteFrom('sites').where('id', '=', siteId).execute();
  await trx
    .insertInto('pending_site_deletions')
    .values({ site_id: siteId, workspace_id: workspaceId, requested_at: now })
    .onConflict((oc) => oc.column('site_id').doNothing())
    .execute();
}

export class KyselyLifecycleControl implements LifecycleControl {
  constructor(
    private readonly db: Kysely<ControlDB>,
    private readonly clock: Clock,
  ) {}

  private now(): string {
    return this.clock.now().toISOString();
  }

  async removeSite(siteId: string): Promise<PendingSiteDeletion | null> {
    return this.db.transaction().execute(async (trx) => {
      const site = await trx.selectFrom('sites').select(['id', 'workspace_id']).where('id', '=', siteId).executeTakeFirst();
      if (site) await removeSiteRows(trx, site.id, site.workspace_id, this.now());
      const pending = await trx.selectFrom('pending_site_deletions').selectAll().where('site_id', '=', siteId).executeTakeFirst();
      return pending ? toPending(pending) : null;
    });
  }

  async removeWorkspace(workspaceId: string): Promise<PendingSiteDeletion[] | null> {
    return this.db.transaction().execute(async (trx) => {
      const ws = await trx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst();
      if (ws) {
        const now = this.now();
        const sites = await trx.selectFrom('sites').select('id').where('workspace_id', '=', workspaceId).execute();
        for (const s of sites) await removeSiteRows(trx, s.id, workspaceId, now);
        for (const table of [
          'memberships',
          'invitations',
          'tokens',
          'embed_keys',
          'workspace_domains',
          'workspace_plans',
          'usage',
          'reservations',
        ] as const)
          await trx.deleteFrom(table).where('workspace_id', '=', workspaceId).execute();
        // a domain it proved is free to be proved by another workspace
        await trx
          .updateTable('domain_owners')
          .set({ workspace_id: null, verified_at: null })
          .where('workspace_id', '=', workspaceId)
          .execute();
        await trx.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
      }
      const pending = await trx
        .selectFrom('pending_site_deletions')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .orderBy('requested_at')
        .orderBy('site_id')
        .execute();
      return ws || pending.length ? pending.map(toPending) : null;
    });
  }

  async pendingSiteDeletions(): Promise<PendingSiteDeletion[]> {
    const rows = await this.db.selectFrom('pending_site_deletions').selectAll().orderBy('requested_at').orderBy('site_id').execute();
    return rows.map(toPending);
  }

  async finishSiteDeletion(siteId: string): Promise<void> {
    await this.db.deleteFrom('pending_site_deletions').where('site_id', '=', siteId).execute();
  }

  async takeLease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.clock.now().getTime();
    await this.db
      .insertInto('job_leases')
      .values({ name, owner: '', expires_at: 0 })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    // One conditional update: of two processes racing, the row lock lets one see the lease expired.
    const r = await this.db
      .updateTable('job_leases')
      .set({ owner, expires_at: now + ttlMs })
      .where('name', '=', name)
      .where((eb) => eb.or([eb('expires_at', '<=', now), eb('owner', '=', owner)]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    await this.db
      .updateTable('job_leases')
      .set({ expires_at: sql<number>`0` })
      .where('name', '=', name)
      .where('owner', '=', owner)
      .execute();
  }
}
