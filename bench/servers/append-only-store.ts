// The floor of any loader, for bench/collect.ts: an event store whose imports only append the loader's
// rows to plain DuckDB tables (the events as the store's stage reads them, the engagement rows as
// they come) and keep the loader's checkpoint in memory. No deduplication, sessions, rollups or
// engagement applied: whatever an exact loader does costs at least this. Everything else (reads,
// the catalog's questions) goes to the real store it wraps, which never receives an event.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { engagementSelectSql, stageSelectSql } from '../../src/engines/duckdb/schema.js';
import { sqlString } from '../../src/engines/duckdb/sql-string.js';
import type { EngagementRow, EventStore, ImportResult, ImportSession } from '../../src/ports/event-store.js';
import { encodeEventRows } from '../../src/ports/event-store.js';

export async function appendOnlyStore(real: EventStore, dir: string): Promise<{ store: EventStore; close(): void }> {
  // as many threads as the real store takes by default (duckdb-instance.ts)
  const db = await DuckDBInstance.create(path.join(dir, 'append-only.duckdb'), { threads: String(os.availableParallelism()) });
  const conn = await db.connect();
  const checkpoints = new Map<string, number>();
  /** the tables made so far (each by its first append) */
  const created = new Set<string>();
  let files = 0;

  /** Appends one NDJSON text to `table` through `select` (a read_json of the file). */
  async function append(table: 'events' | 'engagement', text: string, select: (file: string) => string) {
    const file = path.join(dir, `append-${++files}.ndjson`);
    await fs.promises.writeFile(file, text);
    try {
      await conn.run(`${created.has(table) ? `INSERT INTO ${table}` : `CREATE TABLE ${table} AS`} ${select(sqlString(file))}`);
      created.add(table);
    } finally {
      await fs.promises.rm(file, { force: true });
    }
  }

  const beginImport = async (options: Parameters<EventStore['beginImport']>[0] = {}): Promise<ImportSession> => {
    let events = 0;
    const session: ImportSession = {
      append: async (rows) => session.appendEncoded(encodeEventRows(rows), rows.length),
      appendEncoded: async (ndjson, count) => {
        await append('events', typeof ndjson === 'string' ? ndjson : Buffer.from(ndjson).toString('utf8'), stageSelectSql);
        events += count;
      },
      appendEngagement: async (rows: readonly EngagementRow[]) => {
        await append('engagement', rows.map((r) => JSON.stringify(r)).join('\n') + '\n', engagementSelectSql);
      },
      commit: async (): Promise<ImportResult> => {
        if (options.checkpoint) checkpoints.set(options.checkpoint.source, options.checkpoint.position);
        return { imported: events, duplicates: 0, days: [] };
      },
      abort: async () => undefined,
    };
    return session;
  };
  const store = new Proxy(real, {
    get(target, key) {
      if (key === 'beginImport') return beginImport;
      if (key === 'checkpoint') return async (source: string) => checkpoints.get(source) ?? null;
      const v: unknown = Reflect.get(target, key);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return {
    store,
    close() {
      conn.closeSync();
      db.closeSync();
    },
  };
}
