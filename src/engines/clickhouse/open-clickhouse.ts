// Opens the ClickHouse events store named by FOOTFALL_EVENTS_URL: checks the servers (and, for a
// cluster, that the URL lists each shard once), creates the tables on every server if missing
// (idempotent), and hands back the EventStore and the AnalyticsEngine over the same tables.
import { inProcessCommitLock, type CommitLock } from '../../ports/commit-lock.js';
import { ClickHouseAnalyticsEngine } from './clickhouse-analytics-engine.js';
import { ClickHouseEventStore, SCRATCH_PREFIX } from './clickhouse-event-store.js';
import type { Shard } from './commit-log.js';
import { ClickHouseNode, errorCode } from './node.js';
import { backfillActions, prepareActionsBackfill } from './clickhouse-actions-rollup.js';
import { backfillRollups, rollupBackfills, type RollupBackfill } from './rollup-backfill.js';
import { addLifecycleColumns, backfillCounts, finishLifecycle } from './clickhouse-lifecycle.js';
import { ident, serverDdl, tableLayout, type TableLayout } from './schema.js';
import { parseClickHouseUrl, redactClickHouseUrl } from './url.js';
import { recordVersion, refuseNewerDatabase } from './schema-version.js';
import { DataNewerThanCodeError } from '../../domain/release.js';
import { encodeClickHouseLiteral as lit } from '../sql/clickhouse-literal.js';

export class EventStoreUnavailableError extends Error {
  readonly code = 'EVENTS_UNAVAILABLE';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EventStoreUnavailableError';
  }
}

export class ClickHouseSetupError extends Error {
  readonly code = 'EVENTS_MISCONFIGURED';
  constructor(message: string) {
    super(message);
    this.name = 'ClickHouseSetupError';
  }
}

export interface OpenedClickHouse {
  store: ClickHouseEventStore;
  engine: ClickHouseAnalyticsEngine;
  layout: TableLayout;
  /** every server, the coordinator first (tests and tools) */
  nodes: ClickHouseNode[];
  /** the same servers with their shard numbers */
  shards: Shard[];
  close(): Promise<void>;
}

/** Scratch tables older than this belong to imports whose process died; open() drops them. */
const STALE_SCRATCH_MS = 24 * 3_600_000;

export interface OpenClickHouseOptions {
  /** the control plane's commit lock, when several processes import into these servers */
  commitLock?: CommitLock;
}

export async function openClickHouse(url: string, opts: OpenClickHouseOptions = {}): Promise<OpenedClickHouse> {
  const target = parseClickHouseUrl(url);
  const layout = tableLayout(target.cluster);
  const node = (u: string, database: string) =>
    new ClickHouseNode({ url: u, database, username: target.username, password: target.password });
  // The database may not exist yet: DDL runs on connections to `default` with qualified names.
  const admin = target.nodes.map((u) => node(u, 'default'));
  const nodes = target.nodes.map((u) => node(u, target.database));
  const closeAll = async () => {
    await Promise.all([...admin, ...nodes].map((n) => n.close().catch(() => undefined)));
  };
  let nums: number[];
  let backfill: boolean[];
  let rollupsToFill: RollupBackfill[][];
  let countsBackfill = false;
  try {
    nums = target.cluster ? await checkCluster(admin, target.cluster) : [1];
    // before anything is written to any server: a database a newer footfall wrote is not this code's to change
    for (const n of admin) await refuseNewerDatabase(n, target.database);
    for (const n of admin) await checkLayout(n, target.database, layout);
    backfill = [];
    rollupsToFill = [];
    for (const n of admin) rollupsToFill.push(await rollupBackfills(n, target.database, layout));
    for (const n of admin) backfill.push(await prepareActionsBackfill(n, target.database, layout));
    for (const n of admin) for (const sql of serverDdl(target.database, layout)) await n.command(sql);
    for (const n of admin) countsBackfill = (await addLifecycleColumns(n, target.database, layout)) || countsBackfill;
    for (const n of admin) await dropStaleScratch(n, target.database);
  } catch (err) {
    await closeAll();
    if (err instanceof ClickHouseSetupError || err instanceof DataNewerThanCodeError) throw err;
    if (errorCode(err) === undefined)
      throw new EventStoreUnavailableError(
        `cannot reach the ClickHouse events store at ${redactClickHouseUrl(url)}: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    throw err;
  }
  await Promise.all(admin.map((n) => n.close().catch(() => undefined)));
  const shards = nodes.map((node, i) => ({ node, num: nums[i] }));
  const parts = { coordinator: shards[0], shards, layout, commitLock: opts.commitLock ?? inProcessCommitLock() };
  try {
    // a database of the release before the actions rollup: built for its committed days
    for (const [i, s] of shards.entries()) if (backfill[i]) await backfillActions(s, shards[0].node, layout);
    // one before the quarter-hour or custom-property rollup rows: built for its committed days
    for (const [i, s] of shards.entries()) await backfillRollups(s, shards[0].node, layout, rollupsToFill[i]);
    // one before the event counts: counted from its log
    if (countsBackfill) await backfillCounts(parts);
    // purges and deletions a process that died left unfinished
    await finishLifecycle(parts);
    // every step above done: the database is of this code's layout
    for (const n of nodes) await recordVersion(n, target.database);
  } catch (err) {
    await closeAll();
    throw err;
  }
  const store = new ClickHouseEventStore(parts);
  let closing: Promise<void> | undefined;
  return {
    store,
    engine: new ClickHouseAnalyticsEngine(parts),
    layout,
    nodes,
    shards,
    close: () =>
      (closing ??= (async () => {
        await store.close();
        await closeAll();
      })()),
  };
}

/**
 * Each listed host must be a different shard of the cluster, and every shard must be listed.
 * Returns each host's shard number.
 */
async function checkCluster(admin: ClickHouseNode[], cluster: string): Promise<number[]> {
  const shards = await admin[0].query<{ shard_num: number }>(
    `SELECT DISTINCT shard_num FROM system.clusters WHERE cluster = ${lit(cluster)}`,
  );
  if (shards.length === 0) throw new ClickHouseSetupError(`cluster "${cluster}" is not in the first server's remote_servers`);
  if (shards.length !== admin.length)
    throw new ClickHouseSetupError(
      `cluster "${cluster}" has ${shards.length} shard(s) but the URL lists ${admin.length} host(s): list the HTTP endpoint of each shard once`,
    );
  const seen = new Map<number, string>();
  for (const n of admin) {
    const own = await n.query<{ shard_num: number }>(
      `SELECT shard_num FROM system.clusters WHERE cluster = ${lit(cluster)} AND is_local = 1`,
    );
    if (own.length !== 1)
      throw new ClickHouseSetupError(`${n.opts.url} is not one of the shards of cluster "${cluster}" (as that server sees it)`);
    const shard = Number(own[0].shard_num);
    if (seen.has(shard)) throw new ClickHouseSetupError(`${n.opts.url} and ${seen.get(shard)} are the same shard ${shard} of "${cluster}"`);
    seen.set(shard, n.opts.url);
  }
  return [...seen.keys()];
}

/** A database an earlier footfall wrote (without rollups, one commit log) cannot be read as it is. */
async function checkLayout(n: ClickHouseNode, database: string, layout: TableLayout): Promise<void> {
  const found = await n.query<{ table: string; name: string }>(
    `SELECT table, name FROM system.columns WHERE database = ${lit(database)} AND table IN (${lit(layout.days)}, 'events_local')`,
  );
  const old =
    found.some((c) => c.table === 'events_local') ||
    (found.length > 0 && !found.some((c) => c.table === layout.days && c.name === 'shard'));
  if (old)
    throw new ClickHouseSetupError(
      `database "${database}" on ${n.opts.url} holds events in the layout of an earlier footfall (no rollups, one commit log); point FOOTFALL_EVENTS_URL at a new database and import the events again`,
    );
}

async function dropStaleScratch(admin: ClickHouseNode, database: string): Promise<void> {
  const tables = await admin.query<{ name: string }>(
    `SELECT name FROM system.tables WHERE database = ${lit(database)} AND startsWith(name, ${lit(SCRATCH_PREFIX)})`,
  );
  for (const { name } of tables) {
    const born = Number(name.slice(SCRATCH_PREFIX.length).split('_')[0]);
    if (Number.isFinite(born) && Date.now() - born > STALE_SCRATCH_MS) {
      await admin.command(`DROP TABLE IF EXISTS ${ident(database)}.${ident(name)}`);
    }
  }
}
