// Site ownership beyond exact hostnames: a site's domain scope, its hostname patterns, the proof a
// workspace gives of a domain, and the hostnames a proof took from other workspaces. Portable types
// only, like 001.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sites').addColumn('domain_scope', 'text').execute();
  // One site of a workspace holds a given scope (sites without one are NULL, which never collide);
  // also how collection finds the scope's site once the workspace owns the domain.
  await db.schema.createIndex('sites_domain_scope_uq').on('sites').columns(['workspace_id', 'domain_scope']).unique().execute();

  // What a workspace asked for: one verification code per (workspace, domain), made on first ask.
  await db.schema
    .createTable('workspace_domains')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('workspace_domains_pk', ['workspace_id', 'domain'])
    .execute();

  // One row per registrable domain anything was claimed in. workspace_id is the workspace that proved
  // it (null: nobody yet); the primary key makes that one workspace. Every claim inside the domain and
  // every proof of it update this row first, so on PostgreSQL they queue on its row lock and each
  // sees the other's outcome.
  await db.schema
    .createTable('domain_owners')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.references('workspaces.id'))
    .addColumn('verified_at', 'text')
    .addColumn('claims', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  // Patterns `*.<suffix>`: one site of a workspace holds a given one; `domain` is the registrable
  // domain it lies in (the proof it waits for).
  await db.schema
    .createTable('site_hostname_patterns')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('suffix', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('ordinal', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('site_hostname_patterns_pk', ['workspace_id', 'suffix'])
    .execute();
  await db.schema.createIndex('site_hostname_patterns_site_idx').on('site_hostname_patterns').column('site_id').execute();

  // Exact hostnames a site lost to another workspace's proof: kept so that its owner sees why they
  // stopped collecting.
  await db.schema
    .createTable('released_hostnames')
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('hostname', 'text', (c) => c.notNull())
    .addColumn('released_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('released_hostnames_pk', ['site_id', 'hostname'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['released_hostnames', 'site_hostname_patterns', 'domain_owners', 'workspace_domains'])
    await db.schema.dropTable(t).execute();
  await db.schema.dropIndex('sites_domain_scope_uq').execute();
  await db.schema.alterTable('sites').dropColumn('domain_scope').execute();
}
