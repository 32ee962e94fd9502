// The commit lock of the shared control plane (ports/commit-lock.ts): a PostgreSQL session advisory
// lock, held on one pooled connection for the critical section. A process that dies while holding it
// ends its session, and PostgreSQL releases the lock at once.
import { sql, type Kysely } from 'kysely';
import { CommitLockBusyError, inProcessCommitLock, type CommitLock } from '../ports/commit-lock.js';

/** "footfall" in ASCII + 1: apart from the migration lock (postgres/pool.ts). */
const COMMIT_LOCK_KEY = sql.raw('7381240860008082541');
const POLL_MS = 25;
/** A commit's critical section is two small statements; a holder this slow is stuck. */
export const COMMIT_LOCK_WAIT_MS = 60_000;

export function postgresCommitLock<DB>(db: Kysely<DB>, waitMs = COMMIT_LOCK_WAIT_MS): CommitLock {
  // Holders of this process queue here first, so only one of them occupies a pooled connection.
  const local = inProcessCommitLock();
  return <T>(fn: () => Promise<T>) =>
    local(() =>
      db.connection().execute(async (conn) => {
        const started = Date.now();
        // try-lock and poll rather than block: a wait that ends is a clear error, not a hung import
        for (;;) {
          const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_lock(${COMMIT_LOCK_KEY}) as ok`.execute(conn);
          if (rows[0]?.ok) break;
          if (Date.now() - started > waitMs) throw new CommitLockBusyError(Date.now() - started);
          await new Promise((r) => setTimeout(r, POLL_MS));
        }
        try {
          return await fn();
        } finally {
          await sql`select pg_advisory_unlock(${COMMIT_LOCK_KEY})`.execute(conn);
        }
      }),
    );
}
