// The SQLite side of the control plane: connection settings and transaction mode. This is the one
// place with SQLite-only SQL.
import Database from 'better-sqlite3';
import type { RunQuery } from '../query-template.js';
import { sqliteFault } from '../db-errors.js';
import {
  CompiledQuery,
  DEFAULT_MIGRATION_TABLE,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDatabase,
} from 'kysely';

/** How long a writer waits for another process's write lock before failing. */
export const BUSY_TIMEOUT_MS = 10_000;

/**
 * Transactions start with BEGIN IMMEDIATE: they take the write lock up front and wait for it
 * (busy_timeout), instead of failing with SQLITE_BUSY when a reader upgrades to a writer while
 * another process writes.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  private readonly typed = new WeakMap<DatabaseConnection, DatabaseConnection>();

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  /** The one connection, its faults typed as the direct runners' are (db-errors.ts sqliteFault). */
  override async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await super.acquireConnection();
    let typed = this.typed.get(inner);
    if (typed === undefined) {
      typed = {
        async executeQuery(q) {
          try {
            return await inner.executeQuery(q);
          } catch (err) {
            throw sqliteFault(err);
          }
        },
        streamQuery: (q, chunkSize) => inner.streamQuery(q, chunkSize),
      };
      this.typed.set(inner, typed);
    }
    return typed;
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  private readonly database: SqliteDatabase;
  constructor(database: Database.Database) {
    const cached = statementsOf(database);
    super({ database: cached });
    this.database = cached;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.database });
  }
}

/** Most distinct SQL texts kept prepared; far more than the control plane's query shapes. */
export const STATEMENT_CACHE_SIZE = 256;

/** Kysely's SqliteDatabase whose statements are better-sqlite3's own (the pair runner reads `reader`). */
interface StatementCache extends SqliteDatabase {
  prepare(sql: string): Database.Statement;
}

/** Each connection's one statement cache, shared by Kysely's driver and the direct runners below. */
const caches = new WeakMap<Database.Database, StatementCache>();

/** The statement cache of `db` (made on first use): one per connection, whoever runs the statement. */
export function statementsOf(db: Database.Database): StatementCache {
  let cache = caches.get(db);
  if (cache === undefined) caches.set(db, (cache = withStatementCache(db)));
  return cache;
}

/**
 * Kysely's SQLite driver prepares every query it runs, and preparing costs more than running the
 * small indexed queries of the request path. Kysely compiles the same query shape to the same SQL
 * text (values are parameters), so statements are kept by text and reused. Safe: the driver runs
 * one query at a time on its single connection, the direct runners run synchronously between its
 * queries, and SQLite re-prepares a statement by itself when the schema changes under it.
 */
function withStatementCache(db: Database.Database, size: number = STATEMENT_CACHE_SIZE): StatementCache {
  const statements = new Map<string, Database.Statement>();
  return {
    close: () => db.close(),
    prepare(sqlText: string) {
      let stmt = statements.get(sqlText);
      if (stmt === undefined) {
        stmt = db.prepare(sqlText);
        // Dynamic shapes (IN lists of every length) must not grow it without bound.
        if (statements.size >= size) statements.delete(statements.keys().next().value as string);
        statements.set(sqlText, stmt);
      }
      return stmt;
    },
  };
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

/** The migrations Kysely's table lists as applied; [] on a file that has no such table yet. */
export function appliedMigrations(db: Database.Database): string[] {
  const table = db.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(DEFAULT_MIGRATION_TABLE);
  return table ? (db.prepare(`select name from "${DEFAULT_MIGRATION_TABLE}"`).pluck().all() as string[]) : [];
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

/** `fn` in one `begin immediate` transaction: committed when it returns, rolled back when it throws. Synchronous, so nothing else runs on the connection meanwhile. */
function inImmediateTransaction<T>(db: Database.Database, fn: () => T): T {
  try {
    db.exec('begin immediate');
  } catch (err) {
    throw sqliteFault(err);
  }
  try {
    const out = fn();
    db.exec('commit');
    return out;
  } catch (err) {
    if (db.inTransaction) db.exec('rollback');
    throw err;
  }
}

type Pair = (first: CompiledQuery, second: CompiledQuery) => Promise<QueryResult<unknown> | null>;

/** One compiled query on better-sqlite3, synchronously, through the statement cache. */
function directRun(statements: StatementCache): (q: CompiledQuery) => QueryResult<unknown> {
  return (q) => {
    try {
      const stmt = statements.prepare(q.sql);
      const params = q.parameters as unknown[];
      if (stmt.reader) return { rows: rowsOf(stmt, params) };
      const r = stmt.run(...params);
      return { rows: [], numAffectedRows: BigInt(r.changes) };
    } catch (err) {
      throw sqliteFault(err);
    }
  };
}

/** Each reading statement's column names, or null for one whose text does not fix its columns (`*`). */
const columnNames = new WeakMap<Database.Statement, string[] | null>();

/**
 * A reading statement's rows as objects. better-sqlite3 makes each key of each row from the column's
 * C string (a string-table lookup per column per row); rows read as arrays get the names kept per
 * statement instead, when its text names every column: a `*` expands to what the schema holds when
 * SQLite prepares the statement again, so those keep better-sqlite3's own objects.
 */
function rowsOf(stmt: Database.Statement, params: unknown[]): Record<string, unknown>[] {
  let names = columnNames.get(stmt);
  if (names === undefined) columnNames.set(stmt, (names = stmt.source.includes('*') ? null : stmt.columns().map((c) => c.name)));
  if (names === null) return stmt.all(...params) as Record<string, unknown>[];
  let raw: unknown[][];
  try {
    raw = stmt.raw(true).all(...params) as unknown[][];
  } finally {
    // the statement is shared with Kysely's driver, which reads objects
    stmt.raw(false);
  }
  const rows = new Array<Record<string, unknown>>(raw.length);
  for (let r = 0; r < raw.length; r++) {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) row[names[i]] = raw[r][i];
    rows[r] = row;
  }
  return rows;
}

/**
 * The request path's single statements (token, workspace, site, tenant, the ledger's charge and
 * read) run straight on better-sqlite3 instead of through Kysely's connection provider, whose
 * promises and mutex cost more than the indexed statement itself. Safe for the reason the pair
 * runner is: better-sqlite3 is synchronous, so nothing interleaves with the statement; when a Kysely
 * transaction is open on the connection between its awaits, the statement waits its turn through
 * `fallback` rather than reading (or writing) inside that transaction.
 */
export function synchronousRunner(db: Database.Database): (fallback: RunQuery) => RunQuery {
  const run = directRun(statementsOf(db));
  return (fallback) =>
    async <R>(q: CompiledQuery<R>): Promise<QueryResult<R>> => {
      if (db.inTransaction) return fallback(q);
      return run(q) as QueryResult<R>;
    };
}

/**
 * The usage ledger's two-statement steps (a counter and its lease row) run as one synchronous
 * better-sqlite3 transaction instead of an async Kysely one: a few statements and no awaits, several
 * times cheaper on the request path. Safe because nothing else can run on this connection while it
 * runs (better-sqlite3 is synchronous); when a Kysely transaction is open on the connection between
 * its awaits, the step waits its turn through `fallback` instead of joining that transaction.
 */
export function synchronousPairRunner(db: Database.Database): (fallback: Pair) => Pair {
  const run = directRun(statementsOf(db));
  return (fallback) => async (first, second) => {
    if (db.inTransaction) return fallback(first, second);
    return inImmediateTransaction(db, () => (Number(run(first).numAffectedRows ?? 0n) === 1 ? run(second) : null));
  };
}

/**
 * The usage ledger's charges (one conditional UPDATE each) of one event-loop turn, committed together:
 * each charge is its own statement in one transaction, in the order they came, so each gets the outcome
 * it would have got alone (under the cap or refused), and the commit, the most of a charge's cost
 * (the write lock, the WAL frame), is paid once per turn instead of once per request. A charge's promise
 * settles only after the commit: nothing acknowledged can be lost to a crash before it. A statement that
 * fails fails its own charge only; a commit that fails (the disk) fails the turn's charges. While a
 * Kysely transaction is open on the connection between its awaits, the turn's charges wait their turn
 * through `fallback`, one by one, rather than joining it.
 */
export function groupedChargeRunner(db: Database.Database): (fallback: RunQuery) => RunQuery {
  const run = directRun(statementsOf(db));
  return (fallback) => {
    let waiting: { q: CompiledQuery; resolve(r: QueryResult<unknown>): void; reject(e: unknown): void }[] = [];
    const flush = () => {
      const turn = waiting;
      waiting = [];
      if (db.inTransaction) {
        for (const c of turn) fallback(c.q).then(c.resolve, c.reject);
        return;
      }
      let outcomes: ({ ok: QueryResult<unknown> } | { error: unknown })[];
      try {
        outcomes = inImmediateTransaction(db, () =>
          turn.map((c) => {
            try {
              return { ok: run(c.q) };
            } catch (error) {
              // SQLite undoes the failed statement; an error that ended the transaction ends the turn
              if (!db.inTransaction) throw error;
              return { error };
            }
          }),
        );
      } catch (err) {
        for (const c of turn) c.reject(err);
        return;
      }
      turn.forEach((c, i) => {
        const o = outcomes[i];
        if ('ok' in o) c.resolve(o.ok);
        else c.reject(o.error);
      });
    };
    return <R>(q: CompiledQuery<R>): Promise<QueryResult<R>> =>
      new Promise<QueryResult<R>>((resolve, reject) => {
        // the first charge of a turn books the flush, after the turn's I/O callbacks (and their charges)
        // the run's rows are those of the query it was given: R is the query's own row type
        if (waiting.push({ q, resolve: resolve as (r: QueryResult<unknown>) => void, reject }) === 1) setImmediate(flush);
      });
  };
}
