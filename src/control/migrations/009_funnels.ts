// Saved funnels of a site (docs/decisions/funnels.md): a name and 2 to 8 ordered steps, kept as JSON
// text like a goal's filters. A new table: nothing existing changes. Portable types only, like 001.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('funnels')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('steps', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('funnels_site_idx').on('funnels').column('site_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('funnels').execute();
}
