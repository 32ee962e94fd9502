// One import into the DuckDB store (duckdb-event-store.ts): rows staged chunk by chunk into a temp
// table of the session's own connection, and one transaction at commit (import-commit.ts prepares it,
// import-writes.ts writes it; docs/decisions/store.md).
import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { CommitLock } from '../../ports/commit-lock.js';
import {
  encodeEventRows,
  type Checkpoint,
  type DayRef,
  type EngagementRow,
  type EventRow,
  type ImportResult,
  type ImportSession,
  type Reidentify,
} from '../../ports/event-store.js';
import { stageSelectSql, ENGAGEMENT_STAGE_DDL, engagementSelectSql } from './schema.js';
import { prepareImport, releaseImport, writeImport, type PreparedImport } from './import-commit.js';
import { importResourceError, type OpenedInstance } from './duckdb-instance.js';
import { StatementScript } from './statement-script.js';
import { sqlString } from './sql-string.js';
import type { Span } from './site-edges.js';

/** The footfall_meta key of a loader's checkpoint. */
export const checkpointKey = (source: string) => `checkpoint:${source}`;

/**
 * A commit of fewer staged rows (events and engagement) runs on ONE DuckDB thread. It is a hundred
 * statements over small tables, and a second thread costs more in hand-offs between threads than it
 * saves: the live loader's loads take 14-36% less CPU (the `loads` bench) and collection answers 10-15%
 * more events on two cores (docs/decisions/collection-at-the-floor.md). Larger imports keep every
 * thread: reading and sorting a million rows gains from them.
 */
export const ONE_THREAD_BELOW_ROWS = 100_000;

/** What a session commits besides its rows. */
export interface SessionOptions {
  reidentify: Reidentify;
  /** staged rows one commit step takes */
  groupRows: number;
  /** a commit of fewer staged rows runs on one DuckDB thread (ONE_THREAD_BELOW_ROWS) */
  oneThreadBelowRows: number;
  checkpoint: Checkpoint | null;
  importId: string | undefined;
  /**
   * Under the commit lock, before the import is prepared: moves the store's live days on if a day
   * has ended, and gives the first live day (live-days.ts), or null. Absent: nothing is live.
   */
  liveFrom?: (c: DuckDBConnection) => Promise<number | null>;
  /** the days the import will write, once prepared and before its transaction (the store's live sites) */
  touches?: (days: readonly DayRef[]) => void;
  /** once its transaction has committed: per site, the first and last ts of the events it staged (site-edges.ts) */
  added?: (spans: ReadonlyMap<string, Span>) => void;
}

export class DuckDbImportSession implements ImportSession {
  private staged = 0;
  private engaged = 0;
  /** neighbouring staged rows whose day goes back (see load) */
  private dayDescents = 0;
  private fileSeq = 0;
  private done = false;

  private readonly reidentify: Reidentify;
  private readonly groupRows: number;
  private readonly oneThreadBelowRows: number;
  private readonly checkpoint: Checkpoint | null;
  private readonly importId: string | undefined;
  private readonly liveFrom: SessionOptions['liveFrom'];
  private readonly touches: SessionOptions['touches'];
  private readonly added: SessionOptions['added'];

  constructor(
    private readonly conn: DuckDBConnection,
    private readonly stage: string,
    private readonly opened: OpenedInstance,
    private readonly serialized: CommitLock,
    opts: SessionOptions,
  ) {
    this.reidentify = opts.reidentify;
    this.groupRows = opts.groupRows;
    this.oneThreadBelowRows = opts.oneThreadBelowRows;
    this.checkpoint = opts.checkpoint;
    this.importId = opts.importId;
    this.liveFrom = opts.liveFrom;
    this.touches = opts.touches;
    this.added = opts.added;
  }

  async append(rows: readonly EventRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.appendEncoded(encodeEventRows(rows), rows.length);
  }

  async appendEngagement(rows: readonly EngagementRow[]): Promise<void> {
    if (this.done) throw new Error('import session already finished');
    if (rows.length === 0) return;
    const table = `${this.stage}_eng`;
    const file = path.join(this.opened.tempDir, `${this.stage}_eng_${++this.fileSeq}.ndjson`);
    try {
      await fs.promises.writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
      const script = new StatementScript();
      if (this.engaged === 0) script.add(ENGAGEMENT_STAGE_DDL(table));
      await script.add(`INSERT INTO ${table} ${engagementSelectSql(sqlString(file))}`).run(this.conn);
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
      const threads = this.opened.threads;
      const single = threads !== undefined && threads > 1 && this.staged + this.engaged < this.oneThreadBelowRows;
      try {
        // (a day that stopped being live is rolled up with every thread)
        const liveFromMs = this.liveFrom ? await this.liveFrom(this.conn) : null;
        // `threads` is the instance's: reads running meanwhile get one thread too (the SET waits for
        // the tasks under way), and get them all back when the commit ends.
        if (single) await this.conn.run('SET threads = 1');
        return await this.commitNow(liveFromMs);
      } finally {
        // (a connection that cannot run it is broken; the next small commit sets it back)
        if (single) await this.conn.run(`SET threads = ${threads}`).catch(() => undefined);
        this.conn.closeSync();
      }
    });
  }

  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    this.conn.closeSync(); // temp tables die with their connection
  }

  private async commitNow(liveFromMs: number | null): Promise<ImportResult> {
    const c = this.conn;
    const engaged = this.engaged > 0 ? { engagement: { applied: 0, dropped: this.engaged } } : {};
    const cp = this.checkpoint;
    if (this.staged === 0 && this.engaged === 0 && !cp && this.importId === undefined) return { imported: 0, duplicates: 0, days: [] };
    let r: PreparedImport | undefined;
    try {
      // everything but the writes runs before the transaction (import-writes.ts: tables dropped
      // inside one stay until it ends)
      await this.numberRepeats();
      r = await prepareImport(c, this.stage, this.engaged > 0 ? `${this.stage}_eng` : null, {
        groupRows: this.groupRows,
        sortByDay: this.dayDescents * 1000 > this.staged,
        importId: this.importId,
        liveFromMs,
      });
      this.touches?.(r.days);
      // The transaction is one script (statement-script.ts): it lasts what its statements take, not
      // the turns of the event loop between them. A statement that fails ends the script; the
      // transaction is then rolled back below.
      const tx = new StatementScript().add('BEGIN TRANSACTION');
      writeImport(tx, r);
      // In the same transaction as the rows: the loader's position moves exactly when they land.
      if (cp) {
        tx.add(`INSERT INTO footfall_meta VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [
          { value: checkpointKey(cp.source), type: 'varchar' },
          { value: String(cp.position), type: 'varchar' },
        ]);
      }
      // known to undoImport even when it stored nothing (which it then removes)
      if (this.importId !== undefined) {
        tx.add(`INSERT INTO imports VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [
          { value: this.importId, type: 'varchar' },
          { value: Date.now(), type: 'bigint' },
          { value: r.imported, type: 'bigint' },
        ]);
      }
      const nothing = r.imported === 0 && r.engagement.applied === 0;
      await tx.add(nothing && !cp && this.importId === undefined ? 'ROLLBACK' : 'COMMIT').run(c);
      if (nothing) return { imported: 0, duplicates: this.staged, days: [], ...engaged };
      this.added?.(r.spans);
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
    const repeated = await new StatementScript()
      .add(`CREATE TEMP TABLE ${s}_repn AS SELECT event_id, count(*) AS n FROM ${s} GROUP BY event_id HAVING count(*) > 1`)
      .read(c, `SELECT count(*) FROM ${s}_repn`);
    if (Number(repeated[0]?.[0] ?? 0) === 0) return;
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
