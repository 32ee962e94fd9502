// Recognizes driver errors by their codes, for every dialect the control plane runs on, and turns the
// faults a caller must hear about as such into typed errors (docs/decisions/faults-and-bad-bytes.md):
// a store that cannot be reached now (503 CONTROL_PLANE_UNAVAILABLE) and a value it cannot hold (422).
import { ControlPlaneUnavailableError } from '../domain/errors.js';
import { UnstorableTextError } from '../domain/storable-text.js';

/** A UNIQUE or PRIMARY KEY violation (better-sqlite3 or node-postgres). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/**
 * node-postgres's own errors of a connection that cannot be made or was lost (they carry no code):
 * the pool's acquire timeout, a connection cut under a query, a client the pool already gave up on.
 */
const PG_CONNECTION_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|connection timeout|Client has encountered a connection error|Client was closed and is not queryable|Connection is not open/i;

/**
 * PostgreSQL that cannot serve us now, and may again without anything changed on our side: the network
 * (ECONNREFUSED, ECONNRESET, ETIMEDOUT, EPIPE, EHOSTUNREACH, ENOTFOUND...), a connection lost or refused
 * (SQLSTATE class 08), the server shutting down or starting (57P01 admin, 57P02 crash shutdown, 57P03
 * cannot connect now), too many connections (53300), and at connect time a role or database it refuses
 * (class 28, 3D000: after a restore or a rotated password, fixed by the operator, not by the request).
 */
export function isPostgresUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return /^(E[A-Z]+|08...|28...|3D000|57P0[123]|53300)$/.test(code);
  return err instanceof Error && PG_CONNECTION_MESSAGES.test(err.message);
}

/** 22021 invalid byte sequence (a NUL in text), 22P05 untranslatable character. */
export function isPostgresUnstorable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '22021' || code === '22P05';
}

/**
 * SQLite that cannot serve us now: another process kept the write lock past the busy timeout
 * (SQLITE_BUSY and its extended codes). A full disk, an I/O error or a corrupt file are not: they stay
 * 500 and are logged as errors, since only the operator can end them and a retry would only hide them.
 */
export function isSqliteUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}

/** A PostgreSQL driver error as the typed error it stands for, or itself. */
export function postgresFault(err: unknown): unknown {
  if (err instanceof ControlPlaneUnavailableError || err instanceof UnstorableTextError) return err;
  if (isPostgresUnstorable(err)) return new UnstorableTextError({ cause: err });
  if (isPostgresUnavailable(err))
    return new ControlPlaneUnavailableError(`the PostgreSQL control plane is unavailable: ${(err as Error).message}`, { cause: err });
  return err;
}

/** A better-sqlite3 error as the typed error it stands for, or itself. */
export function sqliteFault(err: unknown): unknown {
  if (isSqliteUnavailable(err))
    return new ControlPlaneUnavailableError(`the SQLite control plane is locked by another process: ${(err as Error).message}`, {
      cause: err,
    });
  return err;
}
