// The embedded event store as the configuration names it: DuckDB in the data dir, with the configured
// memory, temp and thread limits. (A ClickHouse store is opened from its URL by src/container.ts.)
import path from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import { EVENTS_DUCKDB_FILE, openDuckDbEventStore, type DuckDbEventStore } from './duckdb-event-store.js';

export function eventsFile(dataDir: string): string {
  return path.join(dataDir, EVENTS_DUCKDB_FILE);
}

/**
 * `instance`: the DuckDB instance the server already holds for this file, if any (one per process).
 * The memory, temp directory, temp cap and thread settings come from the configuration.
 */
export async function openEventStore(
  config: { dataDir: string; duckdbMemoryLimit?: string; duckdbTempDir?: string; duckdbTempLimit?: string; duckdbThreads?: number },
  opts: { instance?: DuckDBInstance } = {},
): Promise<DuckDbEventStore> {
  return openDuckDbEventStore({
    file: eventsFile(config.dataDir),
    instance: opts.instance,
    memoryLimit: config.duckdbMemoryLimit,
    tempDir: config.duckdbTempDir,
    tempLimit: config.duckdbTempLimit,
    threads: config.duckdbThreads,
  });
}
