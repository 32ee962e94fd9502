// Serializes the commit points of imports between processes that share one event store (several API
// processes each loading their live events into one ClickHouse; `footfall import` beside them). A
// store checks that no other import rewrote its days and then commits; without the lock two commits
// can both pass the check and the later generation hides the other's events. The control plane
// provides it (control/commit-lock.ts): PostgreSQL's advisory lock when it is shared, a queue in the
// process otherwise.

/** Runs `fn` while no other holder of the same lock runs; throws CommitLockBusyError when it waits too long. */
export type CommitLock = <T>(fn: () => Promise<T>) => Promise<T>;

/** The lock stayed held past the wait limit (another commit hung): the import fails whole and may be retried. */
export class CommitLockBusyError extends Error {
  readonly code = 'COMMIT_LOCK_BUSY';
  constructor(waitedMs: number) {
    super(`another import held the commit lock for over ${Math.round(waitedMs / 1000)} s; nothing was stored, import again`);
    this.name = 'CommitLockBusyError';
  }
}

/** One holder at a time within this process. */
export function inProcessCommitLock(): CommitLock {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
}
