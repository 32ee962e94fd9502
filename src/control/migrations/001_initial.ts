// The first control-plane schema. Schema builder only, portable types only, so the same
// migration runs on SQLite and PostgreSQL.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('api_policy', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('collection_profile', 'text', (c) => c.notNull())
    .addColumn('profile_effective_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sites_workspace_idx').on('sites').column('workspace_id').execute();

  // A hostname is its own row with a unique key: the database, not a read-then-write check,
  // guarantees that one hostname belongs to one site.
  await db.schema
    .createTable('site_hostnames')
    .addColumn('hostname', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('ordinal', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('site_hostnames_site_idx').on('site_hostnames').column('site_id').execute();

  await db.schema
    .createTable('tenants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('tenants_site_slug_uq', ['site_id', 'slug'])
    .execute();

  await db.schema
    .createTable('goals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('intent', 'text', (c) => c.notNull())
    .addColumn('pattern', 'text', (c) => c.notNull())
    .addColumn('filters', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('goals_site_idx').on('goals').column('site_id').execute();

  await db.schema
    .createTable('tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('site_ids', 'text')
    .addColumn('tenant_ids', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  // No foreign key to workspaces: the ledger is usable on its own (and on another database later).
  await db.schema
    .createTable('usage')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('used', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('reserved', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('included', 'bigint', (c) => c.notNull())
    .addColumn('hard_cap', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_pk', ['workspace_id', 'period'])
    .addCheckConstraint('usage_counters_ck', sql`used >= 0 and reserved >= 0`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['usage', 'secrets', 'tokens', 'goals', 'tenants', 'site_hostnames', 'sites', 'workspaces']) {
    await db.schema.dropTable(t).execute();
  }
}
