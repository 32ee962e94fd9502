// Opens the ClickHouse events store named by FOOTFALL_EVENTS_URL: checks the servers (and, for a
// cluster, that the URL lists each shard once), creates the tables if missing (idempotent), and
// hands back the EventStore and the AnalyticsEngine over the same tables.
import { ClickHouseAnalyticsEngine } from './analytics-engine.js';
import { ClickHouseEventStore } from './clickhouse-event-store.js';
import { ClickHouseNode, errorCode } from './node.js';
import { coordinatorDdl, ident, localDdl, tableLayout, type TableLayout } from './schema.js';
import { parseClickHouseUrl, redactClickHouseUrl } from './url.js';
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
  close(): Promise<void>;
}

/** Staging tables older than this belong to imports whose process died; open() drops them. */
const STALE_STAGE_MS = 24 * 3_600_000;

export async function openClickHouse(url: string): Promise<OpenedClickHouse> {
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
  try {
    if (target.cluster) await checkCluster(admin, target.cluster);
    for (const n of admin) for (const sql of localDdl(target.database, layout)) await n.command(sql);
    for (const sql of coordinatorDdl(target.database, layout)) await admin[0].command(sql);
    await dropStaleStages(admin[0], target.database);
  } catch (err) {
    await closeAll();
    if (err instanceof ClickHouseSetupError) throw err;
    if (errorCode(err) === undefined)
      throw new EventStoreUnavailableError(`cannot reach the ClickHouse events store at ${redactClickHouseUrl(url)}: ${(err as Error).message}`, {
        cause: err,
      });
    throw err;
  }
  await Promise.all(admin.map((n) => n.close().catch(() => undefined)));
  const parts = { coordinator: nodes[0], shards: nodes, layout };
  const store = new ClickHouseEventStore(parts);
  let closing: Promise<void> | undefined;
  return {
    store,
    engine: new ClickHouseAnalyticsEngine(parts),
    layout,
    nodes,
    close: () =>
      (closing ??= (async () => {
        await store.close();
        await closeAll();
      })()),
  };
}

/** Each listed host must be a different shard of the cluster, and every shard must be listed. */
async function checkCluster(admin: ClickHouseNode[], cluster: string): Promise<void> {
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
    if (own.length !== 1) throw new ClickHouseSetupError(`${n.opts.url} is not one of the shards of cluster "${cluster}" (as that server sees it)`);
    const shard = Number(own[0].shard_num);
    if (seen.has(shard)) throw new ClickHouseSetupError(`${n.opts.url} and ${seen.get(shard)} are the same shard ${shard} of "${cluster}"`);
    seen.set(shard, n.opts.url);
  }
}

async function dropStaleStages(admin: ClickHouseNode, database: string): Promise<void> {
  const stages = await admin.query<{ name: string }>(
    `SELECT name FROM system.tables WHERE database = ${lit(database)} AND name LIKE 'ff\\\\_stage\\\\_%'`,
  );
  for (const { name } of stages) {
    const born = Number(/^ff_stage_(\d+)_/.exec(name)?.[1]);
    if (Number.isFinite(born) && Date.now() - born > STALE_STAGE_MS) {
      await admin.command(`DROP TABLE IF EXISTS ${ident(database)}.${ident(name)}`);
    }
  }
}
