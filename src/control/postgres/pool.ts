// The PostgreSQL side of the control plane: the connection pool and the migration lock. This is the
// one place with PostgreSQL-only SQL.
import pg from 'pg';
import {
  DEFAULT_MIGRATION_TABLE,
  sql,
  type Kysely,
  type PostgresCursor,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
} from 'kysely';
import { ControlPlaneUnavailableError } from '../../domain/errors.js';
import { postgresFault } from '../db-errors.js';
import { isLatestSchema } from '../migrate.js';

/** A schema name we can put in search_path and CREATE SCHEMA without quoting surprises. */
const SCHEMA_RE = /^[a-z_][a-z0-9_]{0,62}$/;

/** How long opening a connection may take before the request fails (instead of hanging on a dead host). */
export const CONNECT_TIMEOUT_MS = 10_000;

export interface PostgresPoolOptions {
  /** Tables live in this schema (created when missing); default: the server's search_path (usually public). */
  schema?: string;
  /** Most connections this process opens; default 10. */
  maxConnections?: number;
}

export function checkSchemaName(schema: string): string {
  if (!SCHEMA_RE.test(schema))
    throw new RangeError(`PostgreSQL schema "${schema}" must be 1-63 lower-case letters, digits or "_", not starting with a digit`);
  return schema;
}

export function createPostgresPool(url: string, opts: PostgresPoolOptions = {}): pg.Pool {
  const schema = opts.schema === undefined ? undefined : checkSchemaName(opts.schema);
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.maxConnections ?? 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // Set per connection at startup, so every pooled connection sees the same tables.
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle connection dropped by the server (restart, failover) must not crash the process; the pool
  // replaces it and the next query reports any lasting outage.
  pool.on('error', () => {});
  return pool;
}

/**
 * The pool as Kysely sees it, with the driver's faults turned into typed errors at this one boundary
 * (db-errors.ts): every statement of the control plane, its transactions and the pool's acquire go
 * through here, so a store that is down is CONTROL_PLANE_UNAVAILABLE and a value it cannot hold is
 * UnstorableTextError, whatever route or command asked, including one added later.
 */
export function withTypedFaults(pool: pg.Pool): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let wrapped = clients.get(client);
    if (wrapped === undefined) {
      // A connection the server ends under a statement (a restart: 57P01, then the socket closes) emits
      // 'error' on its client, and a client lent out has no listener of the pool's: unheard, it would end
      // the process. The statement has its own rejection; the pool drops the client at release (it is
      // no longer queryable) and its idle listener takes over while it is not lent.
      client.on('error', () => {});
      // A statement the server ended for its connection's sake (57P01...) may arrive before the socket
      // closes, while the client still looks queryable: it is dropped at release, not lent again.
      let lost = false;
      // one wrapper per pooled client: Kysely keeps its connection objects by client
      wrapped = {
        query: ((text: string | PostgresCursor<unknown>, parameters?: ReadonlyArray<unknown>) => {
          if (typeof text !== 'string') return client.query(text as never);
          return client.query(text, parameters as unknown[]).catch((err: unknown) => {
            const typed = postgresFault(err);
            if (typed instanceof ControlPlaneUnavailableError) lost = true;
            throw typed;
          }) as Promise<PostgresQueryResult<unknown>>;
        }) as PostgresPoolClient['query'],
        release: () => client.release(lost || undefined),
      };
      clients.set(client, wrapped);
    }
    return wrapped;
  };
  return {
    connect: () =>
      pool.connect().then(wrap, (err: unknown) => {
        throw postgresFault(err);
      }),
    end: () => pool.end(),
  };
}

/** Any bigint will do as long as it is ours alone; this one is "footfall" in ASCII (0x666f6f7466616c6c). */
const MIGRATION_LOCK_KEY = sql.raw('7381240860008082540');

/**
 * Runs `fn` on one connection while holding a session advisory lock, so that processes starting
 * against a fresh database at the same time create the schema and apply each migration exactly once
 * (Kysely's own lock only covers the migrations, not the creation of its bookkeeping tables).
 */
export async function withMigrationLock<DB, T>(
  db: Kysely<DB>,
  schema: string | undefined,
  fn: (conn: Kysely<DB>) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(conn);
    try {
      if (schema) await sql`create schema if not exists ${sql.id(schema)}`.execute(conn);
      return await fn(conn);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(conn);
    }
  });
}

/** FROM and WHERE of the text columns of `tables` (in the current schema) not yet on the "C" collation. */
const offBinaryCollation = (tables: readonly string[]) => sql`from information_schema.columns
  where table_schema = current_schema() and data_type = 'text'
    and table_name = any(${[...tables]}) and coalesce(collation_name, '') <> 'C'`;

/**
 * Whether the schema unqualified names resolve to is already what an open would make of it: every
 * migration of this code applied (isLatestSchema) and no text column of `tables` off the "C"
 * collation. One statement, no lock: a short command against an up-to-date database then skips the
 * migration lock and the migrator (their round trips were most of its database time). A schema or
 * bookkeeping table that does not exist yet answers false (the locked path makes them).
 */
export async function isCurrentSchema<DB>(db: Kysely<DB>, tables: readonly string[]): Promise<boolean> {
  try {
    const { rows } = await sql<{ applied: string[] | null; loose: number }>`
      select (select array_agg(name) from kysely_migration) as applied,
        (select count(*)::int ${offBinaryCollation(tables)}) as loose`.execute(db);
    const row = rows[0];
    return row !== undefined && row.loose === 0 && isLatestSchema(row.applied ?? []);
  } catch (err) {
    // 42P01: no bookkeeping table here yet; 3F000: the schema does not exist yet
    const code = (err as { code?: unknown } | null)?.code;
    if (code === '42P01' || code === '3F000') return false;
    throw err;
  }
}

/** The migrations `schema`'s bookkeeping table lists as applied; [] when it has none yet. */
export async function appliedMigrationNames<DB>(conn: Kysely<DB>, schema: string): Promise<string[]> {
  const { rows } = await sql<{ found: boolean }>`
    select exists (select 1 from information_schema.tables where table_schema = ${schema} and table_name = ${DEFAULT_MIGRATION_TABLE}) as found`.execute(
    conn,
  );
  if (!rows[0]?.found) return [];
  const names = await sql<{ name: string }>`select name from ${sql.id(schema, DEFAULT_MIGRATION_TABLE)}`.execute(conn);
  return names.rows.map((r) => r.name);
}

/**
 * The schema unqualified names resolve to (the first schema of the connection's search_path that
 * exists), where the control plane's tables live when no schema is named.
 */
export async function currentSchema<DB>(conn: Kysely<DB>): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(conn);
  const schema = rows[0]?.schema;
  if (!schema)
    throw new Error(
      'the PostgreSQL search_path names no schema that exists: create the schema it names (or set search_path in the control URL, e.g. ?options=-c%20search_path%3Dfootfall, to one that exists)',
    );
  return schema;
}

/**
 * SQLite compares text byte by byte; PostgreSQL uses the database's locale, where "a-c" may sort after
 * "ab". Text columns get the "C" collation so lists (tenants by slug, ties broken by id) come back in
 * the same order on both, whatever locale the database was created with. Idempotent.
 */
export async function useBinaryCollation<DB>(conn: Kysely<DB>, tables: readonly string[]): Promise<void> {
  const { rows } = await sql<{ table_name: string; column_name: string }>`
    select table_name, column_name ${offBinaryCollation(tables)} order by table_name, ordinal_position`.execute(conn);
  for (const r of rows)
    await sql`alter table ${sql.id(r.table_name)} alter column ${sql.id(r.column_name)} type text collate "C"`.execute(conn);
}
