// Every site has a time zone (an IANA name, docs/decisions/site-timezone.md) that the dashboard and the
// coming query API count days in. Sites made before this migration count in UTC, as they always have.
// Portable types only, like 001.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('sites')
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sites').dropColumn('timezone').execute();
}
