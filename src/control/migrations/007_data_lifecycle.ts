// The data lifecycle's control-plane side: deletions the event store has still to finish, and the lease
// that lets one process at a time run the daily purge. Portable types only, like 001.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // A site whose catalog rows are gone (its id answers like an unknown one from that commit on) while its
  // events may still be in the event store: the row goes once the store's deletion has finished, so a
  // crash in between leaves the row, and the next delete command or daily run finishes it.
  await db.schema
    .createTable('pending_site_deletions')
    .addColumn('site_id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('requested_at', 'text', (c) => c.notNull())
    .execute();
  // One row per periodic job; a process holds it until expires_at (epoch ms), so a holder that died
  // lets the next one in after its lease.
  await db.schema
    .createTable('job_leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('job_leases').execute();
  await db.schema.dropTable('pending_site_deletions').execute();
}
