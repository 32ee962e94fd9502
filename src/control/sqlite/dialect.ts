// The SQLite side of the control plane: connection settings and transaction mode. This is the one
// place with SQLite-only SQL.
import Database from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver } from 'kysely';

/** How long a writer waits for another process's write lock before failing. */
export const BUSY_TIMEOUT_MS = 10_000;

/**
 * Transactions start with BEGIN IMMEDIATE: they take the write lock up front and wait for it
 * (busy_timeout), instead of failing with SQLITE_BUSY when a reader upgrades to a writer while
 * another process writes.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly database: Database.Database) {
    super({ database });
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.database });
  }
}

/** Opens the file with WAL (readers never block the writer; other processes share it safely). */
export function openSqliteDatabase(file: string): Database.Database {
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    if (file !== ':memory:' && file !== '') db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

export function createSqliteDialect(db: Database.Database): SqliteDialect {
  return new ImmediateSqliteDialect(db);
}

/**
 * Runs `fn` while holding the database's write lock, so that processes opening a fresh file at the
 * same time apply the migrations once, and a failed migration leaves nothing behind.
 */
export async function withWriteLock<T>(db: Database.Database, fn: () => Promise<T>): Promise<T> {
  db.exec('begin immediate');
  try {
    const out = await fn();
    db.exec('commit');
    return out;
  } catch (err) {
    if (db.inTransaction) db.exec('rollback');
    throw err;
  }
}
