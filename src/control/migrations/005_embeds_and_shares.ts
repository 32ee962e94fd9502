// Embed keys (the origins that may frame a workspace's embeds; no secret is stored: it is derived) and
// share links (a slug's sha256, an optional argon2 password hash, an optional expiry). Portable types
// only, like 001.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('embed_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    /** JSON array of origins */
    .addColumn('origins', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('embed_keys_workspace_idx').on('embed_keys').column('workspace_id').execute();

  await db.schema
    .createTable('share_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('tenant_id', 'text', (c) => c.references('tenants.id'))
    .addColumn('slug_hash', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('share_links_site_idx').on('share_links').column('site_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['share_links', 'embed_keys']) await db.schema.dropTable(t).execute();
}
