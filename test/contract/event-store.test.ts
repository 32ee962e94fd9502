// The EventStore suite against DuckDB, on a file and in memory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDuckDbEventStore, type DuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { EVENT_ROW_FIELDS, type EventRow } from '../../src/ports/event-store.js';
import { runEventStoreContract } from './event-store.contract.js';

async function engagementOf(store: DuckDbEventStore, siteId: string): Promise<Map<string, number>> {
  const c = await store.instance.connect();
  try {
    const rows = (await c.runAndReadAll('SELECT event_id, engagement_time_ms FROM events WHERE site_id = ?', [siteId])).getRowsJS();
    return new Map(rows.map(([id, ms]) => [String(id), Number(ms)]));
  } finally {
    c.closeSync();
  }
}

async function rowsOf(store: DuckDbEventStore, siteId: string): Promise<EventRow[]> {
  const c = await store.instance.connect();
  try {
    const rows = (await c.runAndReadAll(`SELECT ${EVENT_ROW_FIELDS.join(', ')} FROM events WHERE site_id = ?`, [siteId])).getRowObjectsJS();
    return rows.map((r) => ({ ...r, ts_ms: Number(r.ts_ms), engagement_time_ms: Number(r.engagement_time_ms) }) as unknown as EventRow);
  } finally {
    c.closeSync();
  }
}

runEventStoreContract('duckdb file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-events-'));
  const store = await openDuckDbEventStore({ file: path.join(dir, 'events.duckdb') });
  return {
    store,
    engagementOf: (site) => engagementOf(store, site),
    rowsOf: (site) => rowsOf(store, site),
    close: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

runEventStoreContract('duckdb :memory:', async () => {
  const store = await openDuckDbEventStore({ file: ':memory:' });
  return { store, engagementOf: (site) => engagementOf(store, site), rowsOf: (site) => rowsOf(store, site), close: () => store.close() };
});
