// Brings a control-plane database to the latest schema; throws when a migration fails, and refuses a
// database a newer footfall migrated (docs/decisions/upgrades.md).
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { DataNewerThanCodeError } from '../domain/release.js';
import { MIGRATION_NAMES, migrationProvider } from './migrations/index.js';
import type { ControlDB } from './schema.js';

/**
 * Called inside each migration's transaction once its statements ran, before it is recorded as applied:
 * tests stop there (a throw, or a process killed while it waits) to show that nothing of it stays.
 */
export type MigrationHook = (name: string) => Promise<void>;

export interface MigrateOptions {
  /**
   * Pins Kysely's bookkeeping tables to that schema: without it Kysely finds a migration table in any
   * schema of the database and may skip creating this schema's own (PostgreSQL always passes one: the
   * named schema, else current_schema()).
   */
  schema?: string;
  /** the migrations the database lists as applied, read by the caller under its lock: checked before anything is written */
  applied: readonly string[];
  /** tests: see MigrationHook */
  hook?: MigrationHook;
  /** how an error names the database (a file, a schema) */
  where: string;
}

/**
 * Runs every migration the database lacks. Forward only: there is no way down, and a database listing a
 * migration this code does not know (a newer footfall's) is refused before anything is written. The
 * caller holds the database's lock and a transaction around this (SQLite: BEGIN IMMEDIATE in
 * sqlite/open.ts; PostgreSQL: Kysely's Migrator opens one around all the migrations it runs), so a
 * failure or a kill leaves none of the migrations of this run.
 */
export async function migrateToLatest(db: Kysely<ControlDB>, opts: MigrateOptions): Promise<string[]> {
  refuseNewerSchema(opts.applied, opts.where);
  // allowUnorderedMigrations: 003 (people) landed after 004 (site ownership) had been applied by some data dirs made
  // in between; the two touch different tables, so applying a missing earlier one late is safe. Keep new migrations
  // independent of any that may land beside them.
  const migrator = new Migrator({
    db,
    provider: opts.hook ? hooked(migrationProvider, opts.hook) : migrationProvider,
    allowUnorderedMigrations: true,
    ...(opts.schema ? { migrationTableSchema: opts.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const why = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new Error(`control-plane migration ${failed?.migrationName ?? ''} failed: ${why}`.replace('  ', ' '), { cause: error ?? failed });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** The applied migrations this code does not know: a newer footfall ran them. */
export function unknownMigrations(applied: readonly string[]): string[] {
  const known = new Set(MIGRATION_NAMES);
  return applied.filter((n) => !known.has(n));
}

/** Throws DataNewerThanCodeError when `applied` lists a migration this code does not know. */
export function refuseNewerSchema(applied: readonly string[], where: string): void {
  const unknown = unknownMigrations(applied);
  if (unknown.length)
    throw new DataNewerThanCodeError(
      where,
      `it lists control-plane migration${unknown.length > 1 ? 's' : ''} this release does not have (${unknown.join(', ')})`,
    );
}

function hooked(provider: MigrationProvider, hook: MigrationHook): MigrationProvider {
  return {
    async getMigrations() {
      const out: Record<string, Migration> = {};
      for (const [name, m] of Object.entries(await provider.getMigrations()))
        out[name] = {
          ...m,
          up: async (db) => {
            await m.up(db);
            await hook(name);
          },
        };
      return out;
    },
  };
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
