// The composition root's part for backups of the embedded stack (docs/decisions/backups.md): how the data
// dir's stores are copied as one moment, and how copies of them are read back. Kept beside container.ts, which
// opens the stores; the engines' modules are imported when a backup runs, as container.ts does for the rest.
import path from 'node:path';
import fs from 'node:fs';
import type { CodeVersions, SnapshotTaken, StoreFacts } from './ports/backup.js';
import type { DuckDbEventStore } from './engines/duckdb/duckdb-event-store.js';
import { CONTROL_SQLITE_FILE } from './control/open-control-plane.js';
import { crashPoint } from './config/crash-point.js';

/** The collection spools' folder in the data dir (one spool per serving process inside). */
export const SPOOL_DIR = 'spool';

/**
 * The data dir's stores copied into `dir`, as one moment between two commits (docs/decisions/backups.md):
 * under the events store's commit lock, its file, then each spool's records past the checkpoint that file
 * holds, then the control plane (SQLite's VACUUM INTO, a snapshot of its own), so that no commit, purge or
 * deletion falls between the copies. Run by the server that owns the store, or by `footfall backup` when none runs.
 */
export async function snapshotDataDir(dataDir: string, store: DuckDbEventStore, dir: string): Promise<SnapshotTaken> {
  const [{ copySqliteDatabase }, { copySpools }, { EVENTS_DUCKDB_FILE }] = await Promise.all([
    import('./control/sqlite/backup-file.js'),
    import('./ingest/collect/spool-copy.js'),
    import('./engines/duckdb/duckdb-event-store.js'),
  ]);
  const { counts, held } = await store.backupTo(path.join(dir, EVENTS_DUCKDB_FILE), async () => {
    crashPoint('backup-file');
    const spools = await copySpools(
      path.join(dataDir, SPOOL_DIR),
      path.join(dir, SPOOL_DIR),
      (id) => store.checkpoint(id),
      () => crashPoint('backup-file'),
    );
    copySqliteDatabase(path.join(dataDir, CONTROL_SQLITE_FILE), path.join(dir, CONTROL_SQLITE_FILE));
    crashPoint('backup-file');
    return spools;
  });
  return { events: counts, spools: held };
}

/** What the copies of the stores in `dir` (a backup, or a restored data dir) hold, read from the files without changing them. */
export async function inspectStoreFiles(dir: string): Promise<StoreFacts> {
  const [{ inspectSqliteFile }, { inspectDuckDbFile }, { countSpoolRecords }, { EVENTS_DUCKDB_FILE }] = await Promise.all([
    import('./control/sqlite/backup-file.js'),
    import('./engines/duckdb/backup-file.js'),
    import('./ingest/collect/spool-copy.js'),
    import('./engines/duckdb/duckdb-event-store.js'),
  ]);
  const control = inspectSqliteFile(path.join(dir, CONTROL_SQLITE_FILE));
  const events = await inspectDuckDbFile(path.join(dir, EVENTS_DUCKDB_FILE));
  const spools = await countSpoolRecords(path.join(dir, SPOOL_DIR), events.checkpoints);
  return { control, events: { schemaVersion: events.schemaVersion, counts: events.counts }, spools };
}

/** This code's version and schemas: a backup past any of them is refused by `footfall restore`. */
export async function codeVersions(): Promise<CodeVersions> {
  const [{ MIGRATION_NAMES }, { SCHEMA_VERSION }] = await Promise.all([
    import('./control/migrations/index.js'),
    import('./engines/duckdb/schema.js'),
  ]);
  return { version: readPackageJson('../package.json').version, controlMigrations: MIGRATION_NAMES, eventsSchemaVersion: SCHEMA_VERSION };
}

/** package.json as data (src/ and dist/ sit at the same depth, so one path serves both). */
const readPackageJson = (rel: string): { version: string } => JSON.parse(fs.readFileSync(new URL(rel, import.meta.url), 'utf8'));
