// Brings a control-plane database to the latest schema; throws when a migration fails.
import { Migrator, type Kysely } from 'kysely';
import { MIGRATION_NAMES, migrationProvider } from './migrations/index.js';
import type { ControlDB } from './schema.js';

/**
 * `schema` pins Kysely's bookkeeping tables to that schema: without it Kysely finds a migration
 * table in any schema of the database and may skip creating this schema's own (PostgreSQL always
 * passes one: the named schema, else current_schema()).
 */
export async function migrateToLatest(db: Kysely<ControlDB>, schema?: string): Promise<string[]> {
  // allowUnorderedMigrations: 003 (people) landed after 004 (site ownership) had been applied by some data dirs made
  // in between; the two touch different tables, so applying a missing earlier one late is safe. Keep new migrations
  // independent of any that may land beside them.
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const why = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`control-plane migration ${failed?.migrationName ?? ''} failed: ${why}`.replace('  ', ' '), { cause: error ?? failed });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Whether a database whose migration table lists `applied` has exactly this code's migrations: then
 * the Migrator would run none and find none unknown, and a caller may skip it (its table checks and
 * lock cost more than the rest of a short command's database work).
 */
export function isLatestSchema(applied: readonly string[]): boolean {
  const names = new Set(applied);
  return names.size === applied.length && names.size === MIGRATION_NAMES.length && MIGRATION_NAMES.every((n) => names.has(n));
}
