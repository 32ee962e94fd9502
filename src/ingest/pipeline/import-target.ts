// Where an import writes: the running server's admin socket when one serves the data dir
// (DuckDB lets one process write its file), else the event store opened here.
import type { EventStore } from '../../ports/event-store.js';
import { openEventStore } from '../../engines/duckdb/open-event-store.js';
import { AdminClient } from '../admin/admin-socket-client.js';
import { reidentify, type ImportSink } from './import-lines.js';

export interface ImportTarget {
  via: 'server' | 'store';
  begin(): Promise<ImportSink>;
  close(): Promise<void>;
}

export async function openImportTarget(config: { dataDir: string; eventsUrl?: string }): Promise<ImportTarget> {
  const client = config.eventsUrl === undefined ? await AdminClient.connect(config.dataDir) : null;
  if (client) {
    return { via: 'server', begin: () => client.beginImport(), close: async () => client.close() };
  }
  const store: EventStore = await openEventStore(config);
  return { via: 'store', begin: () => store.beginImport({ reidentify }), close: () => store.close() };
}
