// The embedded event store: DuckDB file <dataDir>/events.duckdb (docs/product.md §1).
// One logical import = one ImportSession = one transaction at commit (docs/decisions.md (store)).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inProcessCommitLock, type CommitLock } from '../../ports/commit-lock.js';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import {
  checkedCheckpoint,
  importInOneSession,
  encodeEventRows,
  type Checkpoint,
  type EngagementRow,
  type EventRow,
  type EventStore,
  type ImportOptions,
  type ImportResult,
  type ImportSession,
  type Reidentify,
  type SiteCoverage,
} from '../../ports/event-store.js';
import { EVENTS_DDL, META_DDL, SCHEMA_VERSION, SESSIONS_DDL, STAGE_DDL, stageSelectSql, ENGAGEMENT_STAGE_DDL, engagementSelectSql } from './schema.js';
import { ensureRollups } from './rollups.js';
import { COMMIT_GROUP_ROWS, prepareImport, releaseImport, writeImport, type PreparedImport } from './import-commit.js';
import { importResourceError, openDuckDbInstance, type DuckDbLimits, type OpenedInstance } from './duckdb-instance.js';
import { countRows } from './count-rows.js';
import { sqlString } from './sql-string.js';

export const EVENTS_DUCKDB_FILE = 'events.duckdb';

export { EventStoreBusyError, DEFAULT_DUCKDB_MEMORY_LIMIT } from './duckdb-instance.js';

export interface DuckDbEventStoreOptions extends DuckDbLimits {
  /** database file; ':memory:' for a throwaway store */
  file: string;
  /** share an instance already open in this process (one instance per file per process) */
  instance?: DuckDBInstance;
  /** staged rows one commit step takes (default COMMIT_GROUP_ROWS); tests make it small */
  commitGroupRows?: number;
}

export async function openDuckDbEventStore(opts: DuckDbEventStoreOptions): Promise<DuckDbEventStore> {
  let opened: OpenedInstance;
  const owned = !opts.instance;
  if (opts.instance) {
    const tempDir = fs.mkdtempSync(path.join(opts.tempDir ?? os.tmpdir(), 'footfall-import-'));
    opened = { instance: opts.instance, tempDir, memoryLimit: 'the instance\'s', tempLimit: 'the instance\'s' };
  } else {
    opened = await openDuckDbInstance(opts.file, opts);
  }
  const conn = await opened.instance.connect();
  try {
    await conn.run(EVENTS_DDL);
    await conn.run(SESSIONS_DDL);
    await conn.run(META_DDL);
    await conn.run(
      `INSERT INTO footfall_meta VALUES ('schema_version', ?) ON CONFLICT DO NOTHING`,
      [String(SCHEMA_VERSION)],
    );
    await ensureRollups(conn);
  } catch (err) {
    conn.closeSync();
    if (owned) opened.instance.closeSync();
    throw err;
  }
  return new DuckDbEventStore(opened, conn, owned, opts.commitGroupRows ?? COMMIT_GROUP_ROWS);
}

export class DuckDbEventStore implements EventStore {
  /** commits run one at a time: two rebuilds of the same day would conflict */
  private readonly serialized = inProcessCommitLock();
  private sessionSeq = 0;
  private closed = false;
  /** per site, committed imports that added events; with the epoch, the data version (see dataVersion) */
  private readonly versions = new Map<string, number>();
  private readonly epoch = `${Date.now().toString(36)}.${process.pid}`;

  readonly instance: DuckDBInstance;
  /** the store's own temp folder: spilled data and staged chunks, emptied at open and removed at close */
  readonly tempDir: string;

  constructor(
    private readonly opened: OpenedInstance,
    private readonly conn: DuckDBConnection,
    private readonly ownsInstance: boolean,
    private readonly commitGroupRows: number,
  ) {
    this.instance = opened.instance;
    this.tempDir = opened.tempDir;
  }

  async beginImport(options: ImportOptions = {}): Promise<ImportSession> {
    this.assertOpen();
    const conn = await this.instance.connect();
    const id = ++this.sessionSeq;
    const stage = `ff_stage_${process.pid}_${id}`;
    await conn.run(STAGE_DDL(stage));
    const session = new DuckDbImportSession(
      conn,
      stage,
      this.opened,
      options.reidentify ?? defaultReidentify,
      this.commitGroupRows,
      this.serialized,
      checkedCheckpoint(options.checkpoint),
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

  importBatch(rows: readonly EventRow[], options: ImportOptions = {}): Promise<ImportResult> {
    return importInOneSession(this, rows, options);
  }

  async checkpoint(source: string): Promise<number | null> {
    this.assertOpen();
    const r = await this.conn.runAndReadAll('SELECT value FROM footfall_meta WHERE key = ?', [checkpointKey(source)]);
    const v = r.getRowsJS()[0]?.[0];
    return v == null ? null : Number(v);
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
    await this.serialized(async () => undefined); // the commit under way, if any, ends first
    this.conn.closeSync();
    if (this.ownsInstance) this.instance.closeSync();
    fs.rmSync(this.opened.tempDir, { recursive: true, force: true });
  }


  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }
}

/** The footfall_meta key of a loader's checkpoint. */
const checkpointKey = (source: string) => `checkpoint:${source}`;

/** Only used when a caller supplies no identity function (tests of the store alone). */
const defaultReidentify: Reidentify = (row, occurrence) => `${row.event_id}#${occurrence}`;

class DuckDbImportSession implements ImportSession {
  private staged = 0;
  private engaged = 0;
  /** neighbouring staged rows whose day goes back (see load) */
  private dayDescents = 0;
  private fileSeq = 0;
  private done = false;

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly stage: string,
    private readonly opened: OpenedInstance,
    private readonly reidentify: Reidentify,
    private readonly groupRows: number,
    private readonly serialized: CommitLock,
    private readonly checkpoint: Checkpoint | null,
  ) {}

  async append(rows: readonly EventRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.appendEncoded(encodeEventRows(rows), rows.length);
  }

  async appendEngagement(rows: readonly EngagementRow[]): Promise<void> {
    if (this.done) throw new Error('import session already finished');
    if (rows.length === 0) return;
    const table = `${this.stage}_eng`;
    if (this.engaged === 0) await this.conn.run(ENGAGEMENT_STAGE_DDL(table));
    const file = path.join(this.opened.tempDir, `${this.stage}_eng_${++this.fileSeq}.ndjson`);
    try {
      await fs.promises.writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
      await this.conn.run(`INSERT INTO ${table} ${engagementSelectSql(sqlString(file))}`);
      this.engaged += rows.length;
    } catch (err) {
      throw await this.resourceError(err);
    } finally {
      await fs.promises.rm(file, { force: true });
    }
  }

  async appendEncoded(ndjson: string | Uint8Array, count: number): Promise<void> {
    if (this.done) throw new Error('import session already finished');
    await this.load(ndjson, count);
  }

  private async load(ndjson: string | Uint8Array, count: number): Promise<void> {
    if (count === 0) return;
    // DuckDB's JSON reader loads a chunk far faster than per-value appender calls from JS,
    // and it runs on DuckDB's threads while JS prepares the next chunk.
    const file = path.join(this.opened.tempDir, `${this.stage}_${++this.fileSeq}.ndjson`);
    try {
      await fs.promises.writeFile(file, ndjson);
      const r = await this.conn.run(`INSERT INTO ${this.stage} ${stageSelectSql(sqlString(file))}`);
      const n = Number(r.rowsChanged);
      if (n !== count) throw new Error(`staged ${n} rows, expected ${count}`);
      // How often the day goes back between neighbouring rows: input in time order (most logs) is
      // stored as it comes, with row groups that keep days apart; shuffled input is sorted by day.
      const descents = await this.conn.runAndReadAll(
        `SELECT count(*) FILTER (WHERE day < prev) FROM (SELECT day, lag(day) OVER (ORDER BY rowid) AS prev FROM ${this.stage} WHERE rowid >= ${this.staged})`,
      );
      this.dayDescents += Number(descents.getRowsJS()[0]?.[0] ?? 0);
      this.staged += n;
    } catch (err) {
      throw await this.resourceError(err);
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
    const engaged = this.engaged > 0 ? { engagement: { applied: 0, dropped: this.engaged } } : {};
    const cp = this.checkpoint;
    if (this.staged === 0 && this.engaged === 0 && !cp) return { imported: 0, duplicates: 0, days: [] };
    let r: PreparedImport | undefined;
    try {
      // everything but the writes runs before the transaction (import-writes.ts: tables dropped
      // inside one stay until it ends)
      await this.numberRepeats();
      r = await prepareImport(c, this.stage, this.engaged > 0 ? `${this.stage}_eng` : null, {
        groupRows: this.groupRows,
        sortByDay: this.dayDescents * 1000 > this.staged,
      });
      await c.run('BEGIN TRANSACTION');
      await writeImport(c, r);
      // In the same transaction as the rows: the loader's position moves exactly when they land.
      if (cp) {
        await c.run(`INSERT INTO footfall_meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [
          checkpointKey(cp.source),
          String(cp.position),
        ]);
      }
      if (r.imported === 0 && r.engagement.applied === 0) {
        await c.run(cp ? 'COMMIT' : 'ROLLBACK');
        return { imported: 0, duplicates: this.staged, days: [], ...engaged };
      }
      await c.run('COMMIT');
      return {
        imported: r.imported,
        duplicates: this.staged - r.imported,
        days: r.days,
        ...(this.engaged > 0 ? { engagement: r.engagement } : {}),
      };
    } catch (err) {
      const mapped = await this.resourceError(err);
      await c.run('ROLLBACK').catch(() => undefined);
      throw mapped;
    } finally {
      // the scratch tables the transaction copied from, now that it has ended
      if (r) await releaseImport(c, r).catch(() => undefined);
    }
  }

  /** A resource error as a person can act on it (with the temp space DuckDB held when it struck), or `err` itself. */
  private async resourceError(err: unknown): Promise<unknown> {
    return importResourceError(err, this.opened, spilledBytes(this.opened.tempDir)) ?? err;
  }

  /**
   * Rows arrive with their occurrence-0 identity, so identical events of this batch share an
   * id; give the 2nd, 3rd ... copy the identity of its occurrence number (1-based) (docs/product.md §8.2). Rare, so
   * it runs on the few repeated ids only.
   */
  private async numberRepeats(): Promise<void> {
    const c = this.conn;
    const s = this.stage;
    await c.run(`CREATE TEMP TABLE ${s}_repn AS SELECT event_id, count(*) AS n FROM ${s} GROUP BY event_id HAVING count(*) > 1`);
    if ((await countRows(c, `${s}_repn`)) === 0) return;
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
  // a row of the store's own staging table: EventRow's columns by its DDL, which no type here can see
  return r as unknown as EventRow;
}

/** Bytes DuckDB has spilled into the temp folder (its files; not our staged chunks). */
function spilledBytes(dir: string): number | null {
  try {
    let total = 0;
    for (const f of fs.readdirSync(dir)) if (!f.endsWith('.ndjson')) total += fs.statSync(path.join(dir, f)).size;
    return total;
  } catch {
    return null;
  }
}
