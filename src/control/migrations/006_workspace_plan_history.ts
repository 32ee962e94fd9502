// The plan and api policy of each workspace over time, so that a month is shown with the allowance in
// force then (GET /v1/usage/history). One row per change, numbered per workspace. A workspace that
// exists already gets one row, at its creation, of the plan it has now: nothing older is known.
// Portable types only, like 001.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('workspace_plans')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('effective_at', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('api_policy', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('workspace_plans_pk', ['workspace_id', 'version'])
    .execute();
  await db
    .insertInto('workspace_plans')
    .columns(['workspace_id', 'version', 'effective_at', 'plan', 'api_policy'])
    .expression(db.selectFrom('workspaces').select(['id', sql<number>`1`.as('version'), 'created_at', 'plan', 'api_policy']))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('workspace_plans').execute();
}
