// Serializes the writers of one workspace that count before they add (seats, sites): a no-op update of
// the workspace row takes its row lock on PostgreSQL and the write lock on SQLite, so a second writer
// waits, then counts what the first one added. Portable: no FOR UPDATE, which SQLite lacks.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { ControlDB } from './schema.js';

/** Locks the workspace row for the rest of the transaction; false when no such workspace exists. */
export async function lockWorkspace(trx: Transaction<ControlDB> | Kysely<ControlDB>, workspaceId: string): Promise<boolean> {
  const r = await trx.updateTable('workspaces').set({ name: sql<string>`name` }).where('id', '=', workspaceId).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Rows of a table belonging to the workspace, as a number (PostgreSQL hands counts back as strings). */
export async function countOf(trx: Transaction<ControlDB> | Kysely<ControlDB>, table: 'sites', workspaceId: string): Promise<number> {
  const row = await trx
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
