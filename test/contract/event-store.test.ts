// The EventStore suite against DuckDB, on a file and in memory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDuckDbEventStore, type DuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { ACTIONS_TABLE, PAGE_TITLES_TABLE, ROLLUP_TABLE } from '../../src/engines/sql/rollup-tables.js';
import { EVENT_ROW_FIELDS, type EventRow } from '../../src/ports/event-store.js';
import { runEventStoreContract, type EventStoreUnderTest, type TableRows } from './event-store.contract.js';
import { runLifecycleContract } from './event-store-lifecycle.contract.js';

async function read(store: DuckDbEventStore, sql: string, params: string[]): Promise<Record<string, unknown>[]> {
  const c = await store.instance.connect();
  try {
    return (await c.runAndReadAll(sql, params)).getRowObjectsJS();
  } finally {
    c.closeSync();
  }
}

async function engagementOf(store: DuckDbEventStore, siteId: string): Promise<Map<string, number>> {
  const rows = await read(store, 'SELECT event_id, engagement_time_ms FROM events WHERE site_id = ?', [siteId]);
  return new Map(rows.map((r) => [String(r.event_id), Number(r.engagement_time_ms)]));
}

async function rowsOf(store: DuckDbEventStore, siteId: string): Promise<EventRow[]> {
  const rows = await read(store, `SELECT ${EVENT_ROW_FIELDS.join(', ')} FROM events WHERE site_id = ?`, [siteId]);
  return rows.map((r) => ({ ...r, ts_ms: Number(r.ts_ms), engagement_time_ms: Number(r.engagement_time_ms) }) as unknown as EventRow);
}

async function importIdsOf(store: DuckDbEventStore, siteId: string): Promise<Map<string, string | null>> {
  const rows = await read(store, 'SELECT event_id, import_id FROM events WHERE site_id = ?', [siteId]);
  return new Map(rows.map((r) => [String(r.event_id), r.import_id === null ? null : String(r.import_id)]));
}

/** Every table's rows of the site as JSON (DuckDB's own to_json), with their day. */
async function tables(store: DuckDbEventStore, siteId: string): Promise<TableRows> {
  const byDay = "strftime(epoch_ms(day_ms), '%Y-%m-%d')";
  const sources: Record<string, [string, string]> = {
    events: ['day::VARCHAR', 'SELECT * EXCLUDE (import_id) FROM events'],
    sessions: ['day::VARCHAR', 'SELECT * FROM sessions'],
    rollups: [byDay, `SELECT * FROM ${ROLLUP_TABLE}`],
    titles: [byDay, `SELECT * FROM ${PAGE_TITLES_TABLE}`],
    actions: [byDay, `SELECT * FROM ${ACTIONS_TABLE}`],
  };
  const out: TableRows = {};
  for (const [name, [day, from]] of Object.entries(sources)) {
    const rows = await read(store, `SELECT ${day} AS d, to_json(t)::VARCHAR AS j FROM (${from} WHERE site_id = ?) t`, [siteId]);
    out[name] = rows.map((r) => ({ day: String(r.d), row: String(r.j) }));
  }
  return out;
}

function underTest(
  opened: () => Promise<DuckDbEventStore>,
  first: DuckDbEventStore,
  file: string | null,
  cleanup: () => void,
): EventStoreUnderTest {
  const sut: EventStoreUnderTest = {
    store: first,
    engagementOf: (site) => engagementOf(sut.store as DuckDbEventStore, site),
    rowsOf: (site) => rowsOf(sut.store as DuckDbEventStore, site),
    importIdsOf: (site) => importIdsOf(sut.store as DuckDbEventStore, site),
    tables: (site) => tables(sut.store as DuckDbEventStore, site),
    ...(file
      ? {
          location: { kind: 'duckdb' as const, file },
          release: () => sut.store.close(),
          reopen: async () => {
            sut.store = await opened();
          },
        }
      : {}),
    close: async () => {
      await sut.store.close();
      cleanup();
    },
  };
  return sut;
}

async function fileStore(): Promise<EventStoreUnderTest> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-events-'));
  const file = path.join(dir, 'events.duckdb');
  const open = () => openDuckDbEventStore({ file });
  return underTest(open, await open(), file, () => fs.rmSync(dir, { recursive: true, force: true }));
}

async function memoryStore(): Promise<EventStoreUnderTest> {
  const open = () => openDuckDbEventStore({ file: ':memory:' });
  return underTest(open, await open(), null, () => undefined);
}

runEventStoreContract('duckdb file', fileStore);
runEventStoreContract('duckdb :memory:', memoryStore);
runLifecycleContract('duckdb file', fileStore);
runLifecycleContract('duckdb :memory:', memoryStore, { inMemory: true });
