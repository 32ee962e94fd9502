// Brings a control-plane database to the latest schema; throws when a migration fails.
import { Migrator, type Kysely } from 'kysely';
import { migrationProvider } from './migrations/index.js';
import type { ControlDB } from './schema.js';

/**
 * `schema` pins Kysely's bookkeeping tables to that schema: without it Kysely finds a migration
 * table in any schema on the search path's database and may skip creating this schema's own.
 */
export async function migrateToLatest(db: Kysely<ControlDB>, schema?: string): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const why = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`control-plane migration ${failed?.migrationName ?? ''} failed: ${why}`.replace('  ', ' '));
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
