// What every part of the ClickHouse event store works on (the store, its import sessions, its lifecycle):
// in a file of its own so that those parts depend on it, not on one another.
import type { CommitLock } from '../../ports/commit-lock.js';
import type { Shard } from './commit-log.js';
import type { TableLayout } from './schema.js';

export interface ClickHouseStoreParts {
  /** the first server: the commit log's authority, where imports are routed from */
  coordinator: Shard;
  /** every server holding rows, the coordinator among them */
  shards: Shard[];
  layout: TableLayout;
  /** orders commit points with other processes' (ports/commit-lock.ts); absent: this process only */
  commitLock: CommitLock;
}
