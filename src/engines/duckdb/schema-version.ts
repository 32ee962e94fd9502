// The layout of an events.duckdb, recorded in footfall_meta's schema_version (docs/decisions/upgrades.md).
// A store a newer footfall wrote (a higher version) is refused before anything is written to it; a store
// of this version or an older one is brought up to this code's layout by the open's steps (each
// idempotent: a step looks at what the store has), then marked with this version.
import type { DuckDBConnection } from '@duckdb/node-api';
import { DataNewerThanCodeError } from '../../domain/release.js';
import { SCHEMA_VERSION } from './schema.js';

const KEY = 'schema_version';

/** The store's recorded version; null for a store that records none (a new file). */
export async function storedSchemaVersion(c: DuckDBConnection): Promise<number | null> {
  const meta = await c.runAndReadAll(`SELECT count(*) FROM duckdb_tables() WHERE table_name = 'footfall_meta' AND NOT temporary`);
  if (Number(meta.getRowsJS()[0]?.[0] ?? 0) === 0) return null;
  const v = (await c.runAndReadAll(`SELECT value FROM footfall_meta WHERE key = '${KEY}'`)).getRowsJS()[0]?.[0];
  return v == null ? null : Number(v);
}

/** Throws DataNewerThanCodeError when the store records a version above this code's (or one that is not a number). */
export async function refuseNewerStore(c: DuckDBConnection, file: string): Promise<void> {
  const v = await storedSchemaVersion(c);
  if (v !== null && !(v <= SCHEMA_VERSION))
    throw new DataNewerThanCodeError(
      `the events store ${file}`,
      `its schema_version is ${Number.isNaN(v) ? 'not a number' : v}, this release reads ${SCHEMA_VERSION} and older`,
    );
}

/** After the open's upgrade steps: the store is of this code's version. */
export async function recordSchemaVersion(c: DuckDBConnection): Promise<void> {
  await c.run(`INSERT INTO footfall_meta VALUES ('${KEY}', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [
    String(SCHEMA_VERSION),
  ]);
}
