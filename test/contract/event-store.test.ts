// The EventStore suite against DuckDB, on a file and in memory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { runEventStoreContract } from './event-store.contract.js';

runEventStoreContract('duckdb file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-events-'));
  const store = await openDuckDbEventStore({ file: path.join(dir, 'events.duckdb') });
  return {
    store,
    close: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

runEventStoreContract('duckdb :memory:', async () => {
  const store = await openDuckDbEventStore({ file: ':memory:' });
  return { store, close: () => store.close() };
});
