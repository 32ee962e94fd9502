// The embedded event store: DuckDB file <dataDir>/events.duckdb (DESIGN 1).
// One logical import = one ImportSession = one transaction at commit (docs/decisions.md (store)).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import {
  encodeEventRows,
  type EventRow,
  type EventStore,
  type ImportResult,
  type ImportSession,
  type Reidentify,
  type SiteCoverage,
} from '../../ports/event-store.js';
import { EVENTS_COLUMNS, EVENTS_DDL, META_DDL, SCHEMA_VERSION, SESSIONS_DDL, STAGE_COLUMNS_SPEC, STAGE_DDL } from './schema.js';
import { sessionEventsSql, sessionsTableSql } from './sessions-sql.js';
import { ensureRollups, rebuildRollups } from './rollups.js';

export const EVENTS_DUCKDB_FILE = 'events.duckdb';

/** The file is held by another process (DuckDB allows one writer process). */
export class EventStoreBusyError extends Error {
  readonly code = 'EVENTS_STORE_BUSY';
  constructor(file: string, cause: unknown) {
    super(`the events store ${file} is in use by another process (is \`footfall serve\` running on this data dir?)`, { cause });
    this.name = 'EventStoreBusyError';
  }
}

export interface DuckDbEventStoreOptions {
  /** database file; ':memory:' for a throwaway store */
  file: string;
  /** share an instance already open in this process (one instance per file per process) */
  instance?: DuckDBInstance;
  /** where staged chunks are written for DuckDB to read (default: os.tmpdir()) */
  tmpDir?: string;
  /** DuckDB memory_limit of an instance opened here; past it, sorts and temp tables spill to disk */
  memoryLimit?: string;
  /** DuckDB worker threads of an instance opened here */
  threads?: number;
}

/** DuckDB's own default is 80% of RAM, which a server sharing the machine cannot afford. */
export const DEFAULT_DUCKDB_MEMORY_LIMIT = '1GB';

export async function openDuckDbEventStore(opts: DuckDbEventStoreOptions): Promise<DuckDbEventStore> {
  let instance = opts.instance;
  const owned = !instance;
  if (!instance) {
    if (opts.file !== ':memory:') fs.mkdirSync(path.dirname(opts.file), { recursive: true });
    try {
      instance = await DuckDBInstance.create(opts.file, {
        memory_limit: opts.memoryLimit ?? DEFAULT_DUCKDB_MEMORY_LIMIT,
        threads: String(opts.threads ?? os.availableParallelism()),
      });
    } catch (err) {
      if (/lock/i.test(String((err as Error)?.message))) throw new EventStoreBusyError(opts.file, err);
      throw err;
    }
  }
  const conn = await instance.connect();
  await conn.run(EVENTS_DDL);
  await conn.run(SESSIONS_DDL);
  await conn.run(META_DDL);
  await conn.run(
    `INSERT INTO footfall_meta VALUES ('schema_version', ?) ON CONFLICT DO NOTHING`,
    [String(SCHEMA_VERSION)],
  );
  await ensureRollups(conn);
  return new DuckDbEventStore(instance, conn, owned, opts.tmpDir ?? os.tmpdir());
}

export class DuckDbEventStore implements EventStore {
  /** commits run one at a time: two rebuilds of the same day would conflict */
  private commitChain: Promise<unknown> = Promise.resolve();
  private sessionSeq = 0;
  private closed = false;
  /** per site, committed imports that added events; with the epoch, the data version (see dataVersion) */
  private readonly versions = new Map<string, number>();
  private readonly epoch = `${Date.now().toString(36)}.${process.pid}`;

  constructor(
    readonly instance: DuckDBInstance,
    private readonly conn: DuckDBConnection,
    private readonly ownsInstance: boolean,
    private readonly tmpRoot: string,
  ) {}

  /** made on the first import only, so a store that never imports leaves nothing in tmp */
  private tmpDir: string | null = null;

  async beginImport(options: { reidentify?: Reidentify } = {}): Promise<ImportSession> {
    this.assertOpen();
    const conn = await this.instance.connect();
    const id = ++this.sessionSeq;
    const stage = `ff_stage_${process.pid}_${id}`;
    await conn.run(STAGE_DDL(stage));
    this.tmpDir ??= fs.mkdtempSync(path.join(this.tmpRoot, 'footfall-import-'));
    const session = new DuckDbImportSession(conn, stage, this.tmpDir, options.reidentify ?? defaultReidentify, (fn) =>
      this.serialized(fn),
    );
    const commit = session.commit.bind(session);
    session.commit = async () => {
      const result = await commit();
      for (const site of new Set(result.days.map((d) => d.site_id))) this.versions.set(site, (this.versions.get(site) ?? 0) + 1);
      return result;
    };
    return session;
  }

  /**
   * Imports reach this file only through this process while it is open (DuckDB allows one writer;
   * `footfall import` goes through the server's admin socket), so a counter in memory sees them all.
   * The epoch keeps versions of an earlier run of the store from being reused.
   */
  async dataVersion(siteId: string): Promise<string> {
    return `${this.epoch}:${this.versions.get(siteId) ?? 0}`;
  }

  async importBatch(rows: readonly EventRow[], options: { reidentify?: Reidentify } = {}): Promise<ImportResult> {
    const session = await this.beginImport(options);
    try {
      await session.append(rows);
    } catch (err) {
      await session.abort();
      throw err;
    }
    return session.commit();
  }

  async newestEventAt(siteId: string): Promise<string | null> {
    this.assertOpen();
    const r = await this.conn.runAndReadAll('SELECT max(ts_ms) FROM events WHERE site_id = ?', [siteId]);
    const v = r.getRowsJS()[0]?.[0];
    return v == null ? null : new Date(Number(v)).toISOString();
  }

  async siteCoverage(siteId: string): Promise<SiteCoverage> {
    this.assertOpen();
    const r = await this.conn.runAndReadAll('SELECT min(ts_ms), max(ts_ms), count(*) FROM events WHERE site_id = ?', [siteId]);
    const [min, max, n] = r.getRowsJS()[0] ?? [];
    return {
      firstEventAt: min == null ? null : new Date(Number(min)).toISOString(),
      lastEventAt: max == null ? null : new Date(Number(max)).toISOString(),
      events: Number(n ?? 0),
    };
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await this.conn.run('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.commitChain.catch(() => undefined);
    this.conn.closeSync();
    if (this.ownsInstance) this.instance.closeSync();
    if (this.tmpDir) fs.rmSync(this.tmpDir, { recursive: true, force: true });
  }

  private serialized<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.commitChain.then(fn, fn);
    this.commitChain = next.catch(() => undefined);
    return next;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }
}

/** Only used when a caller supplies no identity function (tests of the store alone). */
const defaultReidentify: Reidentify = (row, occurrence) => `${row.event_id}#${occurrence}`;

class DuckDbImportSession implements ImportSession {
  private staged = 0;
  private fileSeq = 0;
  private done = false;

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly stage: string,
    private readonly tmpDir: string,
    private readonly reidentify: Reidentify,
    private readonly serialized: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {}

  async append(rows: readonly EventRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.appendEncoded(encodeEventRows(rows), rows.length);
  }

  async appendEncoded(ndjson: string, count: number): Promise<void> {
    if (this.done) throw new Error('import session already finished');
    await this.load(ndjson, count);
  }

  private async load(ndjson: string, count: number): Promise<void> {
    if (count === 0) return;
    // DuckDB's JSON reader loads a chunk far faster than per-value appender calls from JS,
    // and it runs on DuckDB's threads while JS prepares the next chunk.
    const file = path.join(this.tmpDir, `${this.stage}_${++this.fileSeq}.ndjson`);
    await fs.promises.writeFile(file, ndjson);
    try {
      const r = await this.conn.run(
        `INSERT INTO ${this.stage} SELECT *, CAST(epoch_ms(ts_ms) AS DATE) FROM read_json(${sqlString(file)}, ` +
          `format = 'newline_delimited', records = true, columns = ${STAGE_COLUMNS_SPEC}, maximum_object_size = 16777216)`,
      );
      const n = Number(r.rowsChanged);
      if (n !== count) throw new Error(`staged ${n} rows, expected ${count}`);
      this.staged += n;
    } finally {
      await fs.promises.rm(file, { force: true });
    }
  }

  commit(): Promise<ImportResult> {
    if (this.done) return Promise.reject(new Error('import session already finished'));
    this.done = true;
    return this.serialized(async () => {
      try {
        return await this.commitNow();
      } finally {
        this.conn.closeSync();
      }
    });
  }

  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    this.conn.closeSync(); // temp tables die with their connection
  }

  private async commitNow(): Promise<ImportResult> {
    const c = this.conn;
    const s = this.stage;
    if (this.staged === 0) return { imported: 0, duplicates: 0, days: [] };
    await c.run('BEGIN TRANSACTION');
    try {
      await this.numberRepeats();
      // Stored ids can only meet staged ones within the batch's (site, day) pairs: the id hashes both.
      await c.run(`CREATE TEMP TABLE ${s}_touched AS SELECT DISTINCT site_id, day FROM ${s}`);
      const inDays = `events e SEMI JOIN ${s}_touched t ON e.site_id = t.site_id AND e.day = t.day`;
      let existing = await count(c, `SELECT count(*) FROM ${inDays}`);
      let fresh = this.staged;
      if (existing > 0) {
        // Drops the already-stored rows from the stage in place: no second copy of a wide table.
        await c.run(`DELETE FROM ${s} WHERE event_id IN (SELECT e.event_id FROM ${inDays})`);
        fresh = await count(c, `SELECT count(*) FROM ${s}`);
        if (fresh === 0) {
          await c.run('ROLLBACK');
          return { imported: 0, duplicates: this.staged, days: [] };
        }
        if (fresh < this.staged) {
          await c.run(`DROP TABLE ${s}_touched`);
          await c.run(`CREATE TEMP TABLE ${s}_touched AS SELECT DISTINCT site_id, day FROM ${s}`);
          existing = await count(c, `SELECT count(*) FROM ${inDays}`);
        }
      }
      await c.run(sessionEventsSql(s, `${s}_touched`, `${s}_sess`, existing > 0));
      await c.run(sessionsTableSql(s, `${s}_touched`, `${s}_sess`, `${s}_sessions`, existing > 0));
      const cols = EVENTS_COLUMNS.map((col) => (col === 'session_id' ? 'x.session_id' : `f.${col}`)).join(', ');
      // Arrival order, not a sort: sorting a million wide rows cost more than the rest of the commit,
      // and input files come roughly in time order, which is what the row groups' zone maps need.
      await c.run(`INSERT INTO events (${EVENTS_COLUMNS.join(', ')})
        SELECT ${cols} FROM ${s} f JOIN ${s}_sess x ON x.old = false AND x.rid = f.rowid`);
      if (existing > 0) {
        // Older events of a touched day may now belong to another session (e.g. a gap got filled).
        await c.run(`UPDATE events SET session_id = x.session_id FROM ${s}_sess x
          WHERE x.old AND events.site_id = x.site_id AND events.day = x.day AND events.event_id = x.event_id
            AND events.session_id <> x.session_id`);
      }
      await c.run(`DELETE FROM sessions USING ${s}_touched t WHERE sessions.site_id = t.site_id AND sessions.day = t.day`);
      await c.run(`INSERT INTO sessions SELECT * FROM ${s}_sessions ORDER BY site_id, day, start_ms`);
      // in the same transaction: a report never sees events without their day's rollups
      await rebuildRollups(c, `${s}_touched`);
      const days = (await c.runAndReadAll(`SELECT site_id, day::VARCHAR FROM ${s}_touched ORDER BY 1, 2`))
        .getRowsJS()
        .map(([site_id, day]) => ({ site_id: String(site_id), day: String(day) }));
      await c.run('COMMIT');
      return { imported: fresh, duplicates: this.staged - fresh, days };
    } catch (err) {
      await c.run('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }

  /**
   * Rows arrive with their occurrence-0 identity, so identical events of this batch share an
   * id; give the 2nd, 3rd ... copy the identity of its occurrence number (1-based) (DESIGN 8). Rare, so
   * it runs on the few repeated ids only.
   */
  private async numberRepeats(): Promise<void> {
    const c = this.conn;
    const s = this.stage;
    await c.run(`CREATE TEMP TABLE ${s}_repn AS SELECT event_id, count(*) AS n FROM ${s} GROUP BY event_id HAVING count(*) > 1`);
    if ((await count(c, `SELECT count(*) FROM ${s}_repn`)) === 0) return;
    const reps = (
      await c.runAndReadAll(`SELECT DISTINCT ON (st.event_id) st.*, r.n FROM ${s} st JOIN ${s}_repn r USING (event_id)`)
    ).getRowObjectsJS();
    const extra: EventRow[] = [];
    for (const rep of reps) {
      const n = Number(rep.n);
      const row = fromDb(rep);
      for (let occ = 2; occ <= n; occ++) extra.push({ ...row, event_id: this.reidentify(row, occ) });
    }
    await c.run(`CREATE TEMP TABLE ${s}_rep AS SELECT DISTINCT ON (event_id) * FROM ${s} SEMI JOIN ${s}_repn USING (event_id)`);
    await c.run(`DELETE FROM ${s} WHERE event_id IN (SELECT event_id FROM ${s}_repn)`);
    await c.run(`INSERT INTO ${s} SELECT * FROM ${s}_rep`);
    const before = this.staged;
    await this.load(encodeEventRows(extra), extra.length);
    this.staged = before; // the copies were already counted as staged rows
  }
}

function fromDb(o: Record<string, unknown>): EventRow {
  const r = { ...o } as Record<string, unknown>;
  delete r.n;
  delete r.day;
  r.ts_ms = Number(r.ts_ms);
  r.engagement_time_ms = Number(r.engagement_time_ms);
  return r as unknown as EventRow;
}

async function count(c: DuckDBConnection, sql: string): Promise<number> {
  return Number((await c.runAndReadAll(sql)).getRowsJS()[0]?.[0] ?? 0);
}

function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
