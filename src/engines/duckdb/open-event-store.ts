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
 * FOOTFALL_DUCKDB_MEMORY_LIMIT (e.g. 2GB) and FOOTFALL_DUCKDB_THREADS override the instance's limits.
 */
export async function openEventStore(
  config: { dataDir: string; eventsUrl?: string },
  opts: { instance?: DuckDBInstance } = {},
): Promise<DuckDbEventStore> {
  if (config.eventsUrl !== undefined)
    throw new EventStoreUnsupportedError(
      'a ClickHouse events store (FOOTFALL_EVENTS_URL / --events-url) is not supported yet; unset it to use DuckDB in the data dir',
    );
  const threads = Number(process.env.FOOTFALL_DUCKDB_THREADS);
  return openDuckDbEventStore({
    file: eventsFile(config.dataDir),
    instance: opts.instance,
    memoryLimit: process.env.FOOTFALL_DUCKDB_MEMORY_LIMIT || undefined,
    threads: Number.isInteger(threads) && threads > 0 ? threads : undefined,
  });
}
