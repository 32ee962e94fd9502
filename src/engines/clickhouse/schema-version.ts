// The layout of a footfall database on each ClickHouse server, recorded in its ff_schema table
// (docs/decisions/upgrades.md). A database a newer footfall wrote (a higher version on any server) is
// refused before anything is written to any server; one of this version or older is brought up to this
// code's layout by the open's steps (each idempotent), then marked with this version on every server.
import { DataNewerThanCodeError } from '../../domain/release.js';
import { encodeClickHouseLiteral as lit } from '../sql/clickhouse-literal.js';
import type { ClickHouseNode } from './node.js';
import { ident } from './schema.js';

/**
 * Bump it with a release whose database an older footfall would read wrong: that older code then
 * refuses the database instead of changing it. CHANGELOG.md says what each release changes in the data.
 */
export const CLICKHOUSE_SCHEMA_VERSION = 4;

/** One row per open that raised the version; a MergeTree, so that processes opening together may read and write it at once (a TinyLog fails a read during a write), and a backup freezes it as the other tables. */
export const SCHEMA_TABLE = 'ff_schema';

/** The version `admin`'s database records (the highest row); null when it records none (new, or older than ff_schema). */
export async function storedVersion(admin: ClickHouseNode, db: string): Promise<number | null> {
  const [t] = await admin.query<{ n: number }>(
    `SELECT count() AS n FROM system.tables WHERE database = ${lit(db)} AND name = ${lit(SCHEMA_TABLE)}`,
  );
  if (Number(t?.n ?? 0) === 0) return null;
  const [r] = await admin.query<{ v: number; n: number }>(
    `SELECT max(version) AS v, count() AS n FROM ${ident(db)}.${ident(SCHEMA_TABLE)}`,
  );
  return Number(r?.n ?? 0) === 0 ? null : Number(r.v);
}

/** Throws DataNewerThanCodeError when the database on `admin`'s server records a version above this code's. */
export async function refuseNewerDatabase(admin: ClickHouseNode, db: string): Promise<void> {
  const v = await storedVersion(admin, db);
  if (v !== null && v > CLICKHOUSE_SCHEMA_VERSION)
    throw new DataNewerThanCodeError(
      `the ClickHouse database "${db}" on ${admin.opts.url}`,
      `its ${SCHEMA_TABLE} version is ${v}, this release reads ${CLICKHOUSE_SCHEMA_VERSION} and older`,
    );
}

/** After the open's upgrade steps, on each server: the database is of this code's version. */
export async function recordVersion(admin: ClickHouseNode, db: string): Promise<void> {
  await admin.command(
    `CREATE TABLE IF NOT EXISTS ${ident(db)}.${ident(SCHEMA_TABLE)} (version UInt32, written_ms Int64) ENGINE = MergeTree ORDER BY version`,
  );
  const v = await storedVersion(admin, db);
  if (v === null || v < CLICKHOUSE_SCHEMA_VERSION)
    await admin.command(`INSERT INTO ${ident(db)}.${ident(SCHEMA_TABLE)} VALUES (${CLICKHOUSE_SCHEMA_VERSION}, ${Date.now()})`);
}
