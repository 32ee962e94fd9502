// Reservation leases (a reservation belongs to a live request; one left by a dead process is
// reclaimed) and the time a token's secret was last rotated. Portable types only, like 001.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // usage.reserved stays the sum the cap is checked against; each row here is one request's share
  // of it, so a crashed process's share can be found and given back.
  await db.schema
    .createTable('reservations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('units', 'bigint', (c) => c.notNull())
    /** random id of the ledger instance (one per process) that took the lease */
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('owner_host', 'text', (c) => c.notNull())
    .addColumn('owner_pid', 'integer', (c) => c.notNull())
    /** the owner process's start time as the OS reports it ('' when unknown): tells a reused pid apart */
    .addColumn('owner_started', 'text', (c) => c.notNull())
    /** epoch ms after which anyone may reclaim the lease */
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  // No secondary index: the table holds only the leases of requests in flight (a few rows), which the
  // cold reclaim path scans, while every metered request writes a row and deletes it.

  await db.schema.alterTable('tokens').addColumn('rotated_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tokens').dropColumn('rotated_at').execute();
  await db.schema.dropTable('reservations').execute();
}
