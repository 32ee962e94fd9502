// Which stack the HTTP suite runs on. Unset: the embedded one (SQLite in memory, DuckDB in a temp data
// dir, the in-process limiter). FOOTFALL_TEST_STACK=scale: PostgreSQL (a scratch schema), Redis and
// ClickHouse (a scratch database; two shards when the cluster variables are set), from the
// FOOTFALL_TEST_* variables scripts/services.sh prints. Every test then runs against real servers.
import { openPostgresControlPlane } from '../../../src/control/postgres/open.js';
import type { Clock } from '../../../src/domain/clock.js';
import type { ControlPlane } from '../../../src/control/sqlite/open.js';
import { openSqliteControlPlane } from '../../../src/control/sqlite/open.js';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { scratchUrl, type Scratch } from '../../engines/clickhouse-scratch.js';

export type StackName = 'embedded' | 'scale';

const env = (k: string) => process.env[k] || undefined;

/** The variables the scale stack needs and are missing (empty: it can run). */
export function missingScaleEnv(): string[] {
  return ['FOOTFALL_TEST_POSTGRES_URL', 'FOOTFALL_TEST_REDIS_URL', 'FOOTFALL_TEST_CLICKHOUSE_URL'].filter((k) => !env(k));
}

export function stackName(): StackName {
  const s = env('FOOTFALL_TEST_STACK') ?? 'embedded';
  if (s !== 'embedded' && s !== 'scale') throw new Error(`FOOTFALL_TEST_STACK must be embedded or scale, not "${s}"`);
  if (s === 'scale' && missingScaleEnv().length)
    // refuse rather than fall back: a run that says "scale" must have used the servers
    throw new Error(`FOOTFALL_TEST_STACK=scale needs ${missingScaleEnv().join(', ')} (scripts/services.sh start prints them)`);
  return s;
}

export interface StackStores {
  control: ControlPlane;
  /** settings for the container (eventsUrl, redisUrl) */
  config: { eventsUrl?: string; redisUrl?: string };
  /** closes the control plane and drops the scratch schema and database */
  release(): Promise<void>;
}

/** The stores one harness uses, fresh and its own. */
export async function openStack(clock: Clock): Promise<StackStores> {
  if (stackName() === 'embedded') {
    const control = await openSqliteControlPlane(':memory:', { clock });
    return { control, config: {}, release: () => control.close() };
  }
  const db = await scratchDatabase(env('FOOTFALL_TEST_POSTGRES_URL')!);
  const cluster = env('FOOTFALL_TEST_CLICKHOUSE_SHARD2_URL') && env('FOOTFALL_TEST_CLICKHOUSE_CLUSTER');
  const ch: Scratch = scratchUrl(cluster ? 'cluster' : 'single');
  let control: ControlPlane;
  try {
    control = await openPostgresControlPlane(db.url, { clock });
  } catch (err) {
    await db.drop();
    throw err;
  }
  return {
    control,
    config: { eventsUrl: ch.url, redisUrl: env('FOOTFALL_TEST_REDIS_URL') },
    release: async () => {
      try {
        await control.close();
      } finally {
        await Promise.all([db.drop(), ch.drop()]);
      }
    },
  };
}

/**
 * A database of its own (not a schema): Kysely's migrator looks for its bookkeeping tables in every
 * schema of the database, so a second control plane in another schema of the same database would
 * take the first one's tables for its own.
 */
export async function scratchDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `ff_test_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  return { url: u.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}
