// The embedded event store: DuckDB file <dataDir>/events.duckdb (docs/product.md §1).
// One logical import = one ImportSession = one transaction at commit (docs/decisions/store.md); a
// purge, a site deletion or an undo is one transaction too (duckdb-lifecycle.ts, import-undo.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inProcessCommitLock } from '../../ports/commit-lock.js';
import type { DuckDBInstance, DuckDBConnection } from '@duckdb/node-api';
import {
  checkedCheckpoint,
  checkedDay,
  importInOneSession,
  type EventCount,
  type EventRow,
  type EventStore,
  type ImportOptions,
  type ImportResult,
  type ImportSession,
  type Month,
  type Reidentify,
  type RemovedData,
  type SiteCoverage,
  type TableRows,
  type UndoneImport,
} from '../../ports/event-store.js';
import { EVENTS_DDL, META_DDL, SESSIONS_DDL, STAGE_DDL } from './schema.js';
import { recordSchemaVersion, refuseNewerStore } from './schema-version.js';
import { ensureRollups } from './rollups.js';
import { COMMIT_GROUP_ROWS } from './import-commit.js';
import { openDuckDbInstance, type DuckDbLimits, type OpenedInstance } from './duckdb-instance.js';
import { checkpointKey, DuckDbImportSession, ONE_THREAD_BELOW_ROWS, type SessionOptions } from './duckdb-import-session.js';
import { deleteDays, ensureLifecycleTables, readEventCounts, removedDays } from './duckdb-lifecycle.js';
import { undoImport } from './import-undo.js';
import { liveSitesOf, readLiveFrom } from './live-days.js';
import { LiveDayKeeper } from './live-day-keeper.js';
import { SiteEdges, type Edges, type Span } from './site-edges.js';
import { tableCounts } from './backup-file.js';

export const EVENTS_DUCKDB_FILE = 'events.duckdb';

export { EventStoreBusyError, DEFAULT_DUCKDB_MEMORY_LIMIT } from './duckdb-instance.js';

export interface DuckDbEventStoreOptions extends DuckDbLimits {
  /** database file; ':memory:' for a throwaway store */
  file: string;
  /** share an instance already open in this process (one instance per file per process) */
  instance?: DuckDBInstance;
  /** staged rows one commit step takes (default COMMIT_GROUP_ROWS); tests make it small */
  commitGroupRows?: number;
  /** a commit of fewer staged rows runs on one DuckDB thread (default ONE_THREAD_BELOW_ROWS); tests move it */
  oneThreadBelowRows?: number;
  /** the time (ms) that says which days are live (live-days.ts); default Date.now; tests move it */
  clock?: () => number;
}

export async function openDuckDbEventStore(opts: DuckDbEventStoreOptions): Promise<DuckDbEventStore> {
  let opened: OpenedInstance;
  const owned = !opts.instance;
  if (opts.instance) {
    const tempDir = fs.mkdtempSync(path.join(opts.tempDir ?? os.tmpdir(), 'footfall-import-'));
    opened = { instance: opts.instance, tempDir, memoryLimit: "the instance's", tempLimit: "the instance's" };
  } else {
    opened = await openDuckDbInstance(opts.file, opts);
  }
  const conn = await opened.instance.connect();
  let liveFrom: number | null;
  let liveSites: Set<string>;
  try {
    // before anything is written: a store a newer footfall wrote is not this code's to change
    await refuseNewerStore(conn, opts.file === ':memory:' ? opts.file : path.resolve(opts.file));
    await conn.run(EVENTS_DDL);
    await conn.run(SESSIONS_DDL);
    await conn.run(META_DDL);
    await ensureLifecycleTables(conn);
    await ensureRollups(conn);
    await recordSchemaVersion(conn);
    liveFrom = await readLiveFrom(conn);
    liveSites = await liveSitesOf(conn, liveFrom);
  } catch (err) {
    conn.closeSync();
    if (owned) opened.instance.closeSync();
    throw err;
  }
  return new DuckDbEventStore(
    opts.file,
    opened,
    conn,
    owned,
    {
      groupRows: opts.commitGroupRows ?? COMMIT_GROUP_ROWS,
      oneThreadBelowRows: opts.oneThreadBelowRows ?? ONE_THREAD_BELOW_ROWS,
    },
    { clock: opts.clock ?? Date.now, liveFrom, liveSites },
  );
}

export class DuckDbEventStore implements EventStore {
  /** commits run one at a time: two rebuilds of the same day would conflict */
  private readonly serialized = inProcessCommitLock();
  private sessionSeq = 0;
  private closed = false;
  /** per site, committed imports that added events; with the epoch, the data version (see dataVersion) */
  private readonly versions = new Map<string, number>();
  private readonly epoch = `${Date.now().toString(36)}.${process.pid}`;
  /** the live days (live-days.ts): the first one, the sites with data there, the roll-up of ended ones */
  private readonly live: LiveDayKeeper;
  /** each site's first and newest event under its data version, widened by each load (site-edges.ts) */
  readonly edges = new SiteEdges(
    (siteId) => this.scanEdges(siteId),
    (siteId) => this.versions.get(siteId) ?? 0,
  );

  readonly instance: DuckDBInstance;
  /** the store's own temp folder: spilled data and staged chunks, emptied at open and removed at close */
  readonly tempDir: string;

  constructor(
    /** the database file (':memory:' for a throwaway store) */
    readonly file: string,
    private readonly opened: OpenedInstance,
    private readonly conn: DuckDBConnection,
    private readonly ownsInstance: boolean,
    private readonly commit: Pick<SessionOptions, 'groupRows' | 'oneThreadBelowRows'>,
    live: { clock: () => number; liveFrom: number | null; liveSites: Set<string> },
  ) {
    this.instance = opened.instance;
    this.tempDir = opened.tempDir;
    this.live = new LiveDayKeeper(
      { instance: this.instance, serialized: this.serialized, clock: live.clock, closed: () => this.closed },
      live.liveFrom,
      live.liveSites,
    );
  }

  /** The first live day, or null (LiveDayKeeper.liveFrom). */
  liveFrom(): number | null {
    return this.live.liveFrom();
  }

  /** liveFrom for the reads of one site: null when it has nothing on the live days (LiveDayKeeper.liveFromFor). */
  liveFromFor(siteId: string): number | null {
    return this.live.liveFromFor(siteId);
  }

  /** Resolves once no roll-up of ended days is under way (LiveDayKeeper.settled). */
  liveDaysSettled(): Promise<void> {
    return this.live.settled();
  }

  async beginImport(options: ImportOptions = {}): Promise<ImportSession> {
    this.assertOpen();
    const conn = await this.instance.connect();
    const id = ++this.sessionSeq;
    const stage = `ff_stage_${process.pid}_${id}`;
    await conn.run(STAGE_DDL(stage));
    // the events it added, per site (known once its transaction has committed)
    let spans: ReadonlyMap<string, Span> = new Map();
    const session = new DuckDbImportSession(conn, stage, this.opened, this.serialized, {
      reidentify: options.reidentify ?? defaultReidentify,
      ...this.commit,
      checkpoint: checkedCheckpoint(options.checkpoint),
      importId: options.importId,
      liveFrom: (c) => this.live.advance(c),
      touches: (days) => this.live.touch(days),
      added: (s) => (spans = s),
    });
    const commit = session.commit.bind(session);
    session.commit = async () => {
      const result = await commit();
      this.changed(
        result.days.map((d) => d.site_id),
        spans,
      );
      return result;
    };
    return session;
  }

  /** Reads made before a change of these sites' data are not reused after it (dataVersion). */
  private changed(sites: Iterable<string>, added?: ReadonlyMap<string, Span>): void {
    for (const site of new Set(sites)) {
      const from = this.versions.get(site) ?? 0;
      this.versions.set(site, from + 1);
      // an import only adds events; anything else (a purge, a deletion, an undo) may remove some
      if (added) this.edges.added(site, from, from + 1, added.get(site) ?? null);
      else this.edges.removed(site);
    }
  }

  /** A site's first and newest event, read from its events (SiteEdges.of remembers them). */
  private async scanEdges(siteId: string): Promise<Edges> {
    this.assertOpen();
    // a connection of its own, as the engine's reads: requests read side by side
    const c = await this.instance.connect();
    try {
      const r = await c.runAndReadAll('SELECT min(ts_ms), max(ts_ms) FROM events WHERE site_id = ?', [siteId]);
      const [lo, hi] = r.getRowsJS()[0] ?? [null, null];
      return { firstMs: lo == null ? null : Number(lo), newestMs: hi == null ? null : Number(hi) };
    } finally {
      c.closeSync();
    }
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

  previewPurge(siteId: string, beforeDay: string): Promise<RemovedData> {
    this.assertOpen();
    return removedDays(this.conn, siteId, checkedDay(beforeDay));
  }

  purgeDays(siteId: string, beforeDay: string): Promise<RemovedData> {
    return this.lifecycle(siteId, checkedDay(beforeDay));
  }

  deleteSiteData(siteId: string): Promise<RemovedData> {
    return this.lifecycle(siteId, null);
  }

  /** purgeDays (before a day) or deleteSiteData (null): one transaction of deletes, under the commit lock. */
  private lifecycle(siteId: string, beforeDay: string | null): Promise<RemovedData> {
    this.assertOpen();
    return this.serialized(async () => {
      const c = await this.instance.connect();
      try {
        this.live.rebuilding();
        const removed = await deleteDays(c, siteId, beforeDay);
        this.changed([siteId]);
        return removed;
      } finally {
        c.closeSync();
      }
    });
  }

  undoImport(importId: string): Promise<UndoneImport> {
    this.assertOpen();
    return this.serialized(async () => {
      // scratch tables of its own connection: they go with it
      const c = await this.instance.connect();
      try {
        this.live.rebuilding();
        const undone = await undoImport(c, importId, `ff_undo_${process.pid}_${++this.sessionSeq}`);
        this.changed(undone.days.map((d) => d.site_id));
        return undone;
      } finally {
        c.closeSync();
      }
    });
  }

  eventCounts(query: { siteIds: readonly string[]; months: readonly Month[] }): Promise<EventCount[]> {
    this.assertOpen();
    return readEventCounts(this.conn, query);
  }

  /**
   * Copies the store into `file` as it stands between two commits (docs/decisions/backups.md): under the
   * commit lock, which every write of this file takes (imports, live loads, purges, deletions, undos, the
   * live days' swap), a CHECKPOINT moves what the WAL holds into the file, the tables' rows are counted,
   * and the file is copied (with its WAL, if the checkpoint left one). `whileHeld` runs next, still under
   * the lock: what must agree with this copy (the spool's records past the loaders' checkpoints). Reads
   * go on meanwhile; imports and loads wait, the records they would load stay in the spool.
   */
  backupTo<T>(file: string, whileHeld: () => Promise<T>): Promise<{ counts: Record<string, number>; held: T }> {
    this.assertOpen();
    if (this.file === ':memory:') return Promise.reject(new Error('an in-memory events store has no file to back up'));
    return this.serialized(async () => {
      const c = await this.instance.connect();
      try {
        await c.run('CHECKPOINT');
        const counts = await tableCounts(c);
        await fs.promises.copyFile(this.file, file, fs.constants.COPYFILE_EXCL);
        const wal = `${this.file}.wal`;
        if ((await fs.promises.stat(wal).catch(() => null))?.size)
          await fs.promises.copyFile(wal, `${file}.wal`, fs.constants.COPYFILE_EXCL);
        return { counts, held: await whileHeld() };
      } finally {
        c.closeSync();
      }
    });
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await this.conn.run('SELECT 1');
  }

  async tableRows(): Promise<TableRows[]> {
    this.assertOpen();
    const names = (
      await this.conn.runAndReadAll(
        'SELECT table_name FROM duckdb_tables() WHERE NOT temporary AND database_name = current_database() ORDER BY table_name',
      )
    ).getRowsJS();
    const tables: Record<string, number> = {};
    for (const [name] of names) {
      const r = await this.conn.runAndReadAll(`SELECT count(*) FROM "${String(name).replaceAll('"', '""')}"`);
      tables[String(name)] = Number(r.getRowsJS()[0]?.[0] ?? 0);
    }
    return [{ server: 'duckdb', tables }];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.serialized(async () => undefined); // the commit under way, if any, ends first
    await this.live.settled(); // a roll-up under way stops at its next step
    this.conn.closeSync();
    if (this.ownsInstance) this.instance.closeSync();
    fs.rmSync(this.opened.tempDir, { recursive: true, force: true });
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }
}

/** Only used when a caller supplies no identity function (tests of the store alone). */
const defaultReidentify: Reidentify = (row, occurrence) => `${row.event_id}#${occurrence}`;
