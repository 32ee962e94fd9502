// Where an import writes, as the pipeline sees it: a sink per import and a close. The composition root
// picks it (src/container.ts openImportTarget): the running server's admin socket when it owns the
// embedded store, else the store itself. Ingest only sees this and the EventStore port.
import type { ImportSink } from './import-lines.js';

export interface ImportTarget {
  via: 'server' | 'store';
  /** `importId`: remembered by the events the import stores (ImportOptions.importId of the event store) */
  begin(opts?: { importId?: string }): Promise<ImportSink>;
  close(): Promise<void>;
}
