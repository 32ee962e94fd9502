// Brings a control-plane database to the latest schema; throws when a migration fails.
import { Migrator, type Kysely } from 'kysely';
import { migrationProvider } from './migrations/index.js';
import type { ControlDB } from './schema.js';

export async function migrateToLatest(db: Kysely<ControlDB>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const why = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`control-plane migration ${failed?.migrationName ?? ''} failed: ${why}`.replace('  ', ' '));
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
