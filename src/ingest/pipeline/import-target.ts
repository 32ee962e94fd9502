// Where an import writes: the running server's admin socket when the store is one process's (DuckDB
// lets one process write its file) and a server serves the data dir, else the store itself, opened
// by the composition root (src/container.ts openImportTarget). Ingest only sees the EventStore port.
import type { EventStore } from '../../ports/event-store.js';
import { AdminClient } from '../admin/admin-socket-client.js';
import { reidentify, type ImportSink } from './import-lines.js';

export interface ImportTarget {
  via: 'server' | 'store';
  /** `importId`: remembered by the events the import stores (ImportOptions.importId of the event store) */
  begin(opts?: { importId?: string }): Promise<ImportSink>;
  close(): Promise<void>;
}

export interface ImportTargetOptions {
  dataDir: string;
  /** the store is owned by one process: try that process's admin socket first */
  adminImports: boolean;
  /** opens the store (only when no server takes the import) */
  openStore(): Promise<{ store: EventStore; close(): Promise<void> }>;
}

export async function openImportTarget(opts: ImportTargetOptions): Promise<ImportTarget> {
  const client = opts.adminImports ? await AdminClient.connect(opts.dataDir) : null;
  if (client) return { via: 'server', begin: (o) => client.beginImport(o?.importId), close: async () => client.close() };
  const opened = await opts.openStore();
  return { via: 'store', begin: (o) => opened.store.beginImport({ reidentify, importId: o?.importId }), close: () => opened.close() };
}
