// Where an import writes: ClickHouse directly when configured (it takes several writers); else the
// running server's admin socket when one serves the data dir (DuckDB lets one process write its
// file), else the DuckDB store opened here.
import type { EventStore } from '../../ports/event-store.js';
import { openEventStore } from '../../engines/duckdb/open-event-store.js';
import { openClickHouse } from '../../engines/clickhouse/open-clickhouse.js';
import { AdminClient } from '../admin/admin-socket-client.js';
import { reidentify, type ImportSink } from './import-lines.js';

export interface ImportTarget {
  via: 'server' | 'store';
  begin(): Promise<ImportSink>;
  close(): Promise<void>;
}

export async function openImportTarget(config: { dataDir: string; eventsUrl?: string }): Promise<ImportTarget> {
  if (config.eventsUrl !== undefined) {
    const ch = await openClickHouse(config.eventsUrl);
    return { via: 'store', begin: () => ch.store.beginImport({ reidentify }), close: () => ch.close() };
  }
  const client = await AdminClient.connect(config.dataDir);
  if (client) {
    return { via: 'server', begin: () => client.beginImport(), close: async () => client.close() };
  }
  const store: EventStore = await openEventStore(config);
  return { via: 'store', begin: () => store.beginImport({ reidentify }), close: () => store.close() };
}
