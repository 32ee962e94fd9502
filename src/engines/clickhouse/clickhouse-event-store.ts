// The event store on ClickHouse (one server, or a cluster's servers each holding its own visitors).
// ClickHouse has no transactions, so an import is made all-or-nothing by generations
// (docs/decisions/scale-stack.md): rows are staged on the server of their visitor; commit rewrites,
// on each server and in SQL there (day-rewrite.ts), every (site, day) that gains events under a new
// gen while readers still see the old gen; ONE insert into the first server's commit log (ff_days)
// then switches all those days at once. The other servers' logs get copies of their rows after it.
// Purges and deletions commit the same way, then delete what nobody sees any more (clickhouse-lifecycle.ts).
import { randomBytes } from 'node:crypto';
import { inProcessCommitLock } from '../../ports/commit-lock.js';
import {
  checkedCheckpoint,
  checkedDay,
  importInOneSession,
  ImportNotFoundError,
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
import { encodeClickHouseLiteral as lit } from '../sql/clickhouse-literal.js';
import { ClickHouseImportSession, type SessionOptions } from './clickhouse-import-session.js';
import { checkpointSite, importSite, siteCoverage, syncedVersion, type Shard } from './commit-log.js';
import { previewRemoval, readEventCounts, removeDays } from './clickhouse-lifecycle.js';
import { ident, stageDdl, stageRouterDdl } from './schema.js';
import type { ClickHouseStoreParts } from './clickhouse-store-parts.js';

/** Names of an import's scratch tables start with this and the creation time (open drops stale ones). */
export const SCRATCH_PREFIX = 'ff_tmp_';

export class ClickHouseEventStore implements EventStore {
  private readonly serialized = inProcessCommitLock();
  private closed = false;

  constructor(private readonly p: ClickHouseStoreParts) {}

  async beginImport(options: ImportOptions = {}): Promise<ImportSession> {
    this.assertOpen();
    return this.session({
      reidentify: options.reidentify ?? defaultReidentify,
      checkpoint: checkedCheckpoint(options.checkpoint),
      importId: options.importId,
    });
  }

  private async session(opts: SessionOptions): Promise<ClickHouseImportSession> {
    // the time in the name lets a later open drop the tables of a process that died
    const tag = `${SCRATCH_PREFIX}${Date.now()}_${randomBytes(6).toString('hex')}`;
    const db = this.p.coordinator.node.opts.database;
    const stage = `${tag}_stage`;
    await Promise.all(this.p.shards.map((s) => s.node.command(stageDdl(db, stage))));
    let entry = stage;
    if (this.p.layout.cluster) {
      entry = `${tag}_route`;
      await this.p.coordinator.node.command(stageRouterDdl(db, entry, this.p.layout.cluster, stage));
    }
    return new ClickHouseImportSession(this.p, tag, stage, entry, this.serialized, opts);
  }

  importBatch(rows: readonly EventRow[], options: ImportOptions = {}): Promise<ImportResult> {
    return importInOneSession(this, rows, options);
  }

  async newestEventAt(siteId: string): Promise<string | null> {
    return (await this.siteCoverage(siteId)).lastEventAt;
  }

  /** Positions only grow, so the newest is the largest (whatever the gens' clocks said). */
  async checkpoint(source: string): Promise<number | null> {
    this.assertOpen();
    const [r] = await this.p.coordinator.node.query<{ p: number | string; n: number | string }>(
      `SELECT max(events) AS p, count() AS n FROM ${ident(this.p.layout.days)} WHERE site_id = ${lit(checkpointSite(source))}`,
    );
    return r && Number(r.n) > 0 ? Number(r.p) : null;
  }

  async siteCoverage(siteId: string): Promise<SiteCoverage> {
    this.assertOpen();
    const c = await siteCoverage(this.p.coordinator.node, this.p.layout.days, siteId);
    return {
      firstEventAt: c.firstMs === null ? null : new Date(c.firstMs).toISOString(),
      lastEventAt: c.lastMs === null ? null : new Date(c.lastMs).toISOString(),
      events: c.events,
    };
  }

  /** From the commit log, so every process sharing the store sees the same versions. */
  async dataVersion(siteId: string): Promise<string> {
    this.assertOpen();
    return syncedVersion(this.p.coordinator, this.others, this.p.layout.days, siteId);
  }

  private get others(): Shard[] {
    return this.p.shards.filter((s) => s !== this.p.coordinator);
  }

  previewPurge(siteId: string, beforeDay: string): Promise<RemovedData> {
    this.assertOpen();
    return previewRemoval(this.p, siteId, checkedDay(beforeDay));
  }

  /**
   * Not under this process's import lock: the purge's commit point takes the commit lock as an import's
   * does, and the mutations after it take long at size while live collection keeps committing.
   */
  purgeDays(siteId: string, beforeDay: string): Promise<RemovedData> {
    this.assertOpen();
    return removeDays(this.p, siteId, checkedDay(beforeDay));
  }

  deleteSiteData(siteId: string): Promise<RemovedData> {
    this.assertOpen();
    return removeDays(this.p, siteId, null);
  }

  /**
   * An import's commit in reverse (clickhouse-import-session.ts): each day holding its events is
   * rewritten under a new generation from the events it keeps, and one insert into the log commits them.
   */
  async undoImport(importId: string): Promise<UndoneImport> {
    this.assertOpen();
    const [known] = await this.p.coordinator.node.query<{ n: number }>(
      `SELECT count() AS n FROM ${ident(this.p.layout.days)} WHERE site_id = ${lit(importSite(importId))}`,
    );
    if (Number(known?.n ?? 0) === 0) throw new ImportNotFoundError(importId);
    const session = await this.session({ reidentify: defaultReidentify, checkpoint: null, importId: undefined, undo: importId });
    const { result, committed } = await session.commitDays();
    const bySiteMonth = new Map<string, { site_id: string; month: Month; events: number }>();
    for (const d of committed) {
      const key = `${d.site_id}|${d.day.slice(0, 7)}`;
      const m = bySiteMonth.get(key) ?? bySiteMonth.set(key, { site_id: d.site_id, month: d.day.slice(0, 7), events: 0 }).get(key)!;
      m.events -= d.added;
    }
    const months = [...bySiteMonth.values()].sort((a, b) =>
      a.site_id === b.site_id ? (a.month < b.month ? -1 : 1) : a.site_id < b.site_id ? -1 : 1,
    );
    return { importId, events: months.reduce((n, m) => n + m.events, 0), days: result.days, bySiteMonth: months };
  }

  eventCounts(query: { siteIds: readonly string[]; months: readonly Month[] }): Promise<EventCount[]> {
    this.assertOpen();
    return readEventCounts(this.p, query);
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await Promise.all(this.p.shards.map((s) => s.node.query('SELECT 1 AS ok')));
  }

  /** The active parts' rows of each table on each server (scratch tables of imports under way left out). */
  async tableRows(): Promise<TableRows[]> {
    this.assertOpen();
    const out: TableRows[] = [];
    for (const s of this.p.shards) {
      const rows = await s.node.query<{ table: string; n: number }>(
        `SELECT table, sum(rows) AS n FROM system.parts WHERE database = currentDatabase() AND active AND NOT startsWith(table, ${lit(SCRATCH_PREFIX)}) GROUP BY table ORDER BY table`,
      );
      out.push({ server: `shard ${s.num}`, tables: Object.fromEntries(rows.map((r) => [r.table, Number(r.n)])) });
    }
    return out;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.serialized(async () => undefined); // the commit under way, if any, ends first
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }
}

const defaultReidentify: Reidentify = (row, occurrence) => `${row.event_id}#${occurrence}`;
