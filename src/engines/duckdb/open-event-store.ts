// Picks the event store the configuration names: DuckDB in the data dir, or (later) ClickHouse.
import path from 'node:path';
import type { DuckDBInstance } from '@duckdb/node-api';
import { EVENTS_DUCKDB_FILE, openDuckDbEventStore, type DuckDbEventStore } from './duckdb-event-store.js';

export class EventStoreUnsupportedError extends Error {
  readonly code = 'NOT_SUPPORTED';
  constructor(message: string) {
    super(message);
    this.name = 'EventStoreUnsupportedError';
  }
}

export function eventsFile(dataDir: string): string {
  return path.join(dataDir, EVENTS_DUCKDB_FILE);
}

/**
 * `instance`: the DuckDB instance the server already holds for this file, if any (one per process).
 * The memory, temp directory, temp cap and thread settings come from the configuration.
 */
export async function openEventStore(
  config: { dataDir: string; eventsUrl?: string; duckdbMemoryLimit?: string; duckdbTempDir?: string; duckdbTempLimit?: string; duckdbThreads?: number },
  opts: { instance?: DuckDBInstance } = {},
): Promise<DuckDbEventStore> {
  if (config.eventsUrl !== undefined)
    throw new EventStoreUnsupportedError(
      'a ClickHouse events store (FOOTFALL_EVENTS_URL / --events-url) is not supported yet; unset it to use DuckDB in the data dir',
    );
  return openDuckDbEventStore({
    file: eventsFile(config.dataDir),
    instance: opts.instance,
    memoryLimit: config.duckdbMemoryLimit,
    tempDir: config.duckdbTempDir,
    tempLimit: config.duckdbTempLimit,
    threads: config.duckdbThreads,
  });
}
