// The DuckDB events store in a backup (docs/decisions/backups.md): the copy is made by the store under
// its commit lock (DuckDbEventStore.backupTo); here, what a copy holds, read back read-only: its tables'
// rows, its schema version and the live loader's checkpoints (which the spool's copy is counted against).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { checkpointKey } from './duckdb-import-session.js';

const CHECKPOINT_PREFIX = checkpointKey('');

/** Rows of each table of the store (the main schema; not a connection's temp tables), by name. */
export async function tableCounts(c: DuckDBConnection): Promise<Record<string, number>> {
  const tables = (
    await c.runAndReadAll(
      "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND NOT temporary ORDER BY table_name",
    )
  )
    .getRowsJS()
    .map((r) => String(r[0]));
  const counts: Record<string, number> = {};
  for (const t of tables) {
    const r = await c.runAndReadAll(`SELECT count(*) FROM main."${t.replaceAll('"', '""')}"`);
    counts[t] = Number(r.getRowsJS()[0]?.[0] ?? 0);
  }
  return counts;
}

export interface DuckDbFileFacts {
  schemaVersion: number | null;
  counts: Record<string, number>;
  /** the live loaders' checkpoints, by spool id */
  checkpoints: Record<string, number>;
}

/** Opens a copy of the events store read-only (its temp folder elsewhere: nothing is written beside it) and reads its facts. */
export async function inspectDuckDbFile(file: string): Promise<DuckDbFileFacts> {
  if (!fs.existsSync(file)) throw new Error(`${file} is not there`);
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-inspect-'));
  try {
    const instance = await DuckDBInstance.create(file, {
      access_mode: 'READ_ONLY',
      threads: '2',
      memory_limit: '256MB',
      temp_directory: temp,
    });
    try {
      const c = await instance.connect();
      try {
        const counts = await tableCounts(c);
        const meta = counts.footfall_meta === undefined ? [] : (await c.runAndReadAll('SELECT key, value FROM footfall_meta')).getRowsJS();
        let schemaVersion: number | null = null;
        const checkpoints: Record<string, number> = {};
        for (const [key, value] of meta) {
          if (key === 'schema_version') schemaVersion = Number(value);
          else if (typeof key === 'string' && key.startsWith(CHECKPOINT_PREFIX))
            checkpoints[key.slice(CHECKPOINT_PREFIX.length)] = Number(value);
        }
        return { schemaVersion, counts, checkpoints };
      } finally {
        c.closeSync();
      }
    } finally {
      instance.closeSync();
    }
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}
