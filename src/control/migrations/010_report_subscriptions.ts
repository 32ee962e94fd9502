// Mailed reports (docs/decisions/reports.md): subscriptions, and one delivery row per subscription and
// period, whose primary key is the once-only rule of sending. New tables: nothing existing changes.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('report_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    // '' for the whole site: a unique key treats NULLs as distinct, '' is one value
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('confirmed_at', 'text')
    .addColumn('confirm_secret_hash', 'text')
    .addColumn('confirm_expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('report_subscriptions_once', ['site_id', 'tenant_id', 'email', 'period'])
    .execute();
  await db.schema.createIndex('report_subscriptions_confirm_idx').on('report_subscriptions').column('confirm_secret_hash').execute();
  await db.schema
    .createTable('report_deliveries')
    .addColumn('subscription_id', 'text', (c) => c.notNull())
    .addColumn('period_start', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('not_before', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('last_error', 'text')
    .addPrimaryKeyConstraint('report_deliveries_pk', ['subscription_id', 'period_start'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('report_deliveries').execute();
  await db.schema.dropTable('report_subscriptions').execute();
}
