// A token may have a name, so the people of a workspace can tell its tokens apart ("Data warehouse
// sync"). Nullable: tokens made before this migration, and those made without one, have none.
// Portable types only, like 001.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tokens').addColumn('name', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('tokens').dropColumn('name').execute();
}
