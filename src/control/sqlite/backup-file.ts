// The SQLite control plane in a backup (docs/decisions/backups.md): copied with VACUUM INTO on a
// connection of its own, one read transaction, so the copy is the database as one commit left it
// while the server's own connection goes on writing (WAL: the reader never blocks it); and read back
// read-only (nothing written beside the copy) for the manifest and for a restore's check.
import Database from 'better-sqlite3';
import { appliedMigrations, BUSY_TIMEOUT_MS } from './dialect.js';

/** Writes a consistent copy of the database `src` to `dest` (which must not exist), in rollback-journal mode. */
export function copySqliteDatabase(src: string, dest: string): void {
  const db = new Database(src, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  try {
    db.prepare('VACUUM INTO ?').run(dest);
  } finally {
    db.close();
  }
}

/** The migrations applied and the rows of each table of a control-plane file, opened read-only. */
export function inspectSqliteFile(file: string): { migrations: string[]; counts: Record<string, number> } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db
      .prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' order by name")
      .pluck()
      .all() as string[];
    const counts: Record<string, number> = {};
    for (const t of tables)
      counts[t] = Number(
        db
          .prepare(`select count(*) from "${t.replaceAll('"', '""')}"`)
          .pluck()
          .get(),
      );
    return { migrations: appliedMigrations(db).sort(), counts };
  } finally {
    db.close();
  }
}
