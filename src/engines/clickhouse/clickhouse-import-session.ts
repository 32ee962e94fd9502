// One import into the ClickHouse event store (clickhouse-event-store.ts): rows staged on the server of
// their visitor, then a commit that rewrites on each server every (site, day) gaining events or
// engagement under a new generation (day-rewrite.ts) and switches them all with one insert into the
// first server's commit log (commit-log.ts).
import type { CommitLock } from '../../ports/commit-lock.js';
import {
  EVENT_ROW_FIELDS,
  type Checkpoint,
  type DayRef,
  type EngagementRow,
  type EventRow,
  type ImportResult,
  type ImportSession,
  type Reidentify,
} from '../../ports/event-store.js';
import { encodeClickHouseLiteral as lit } from '../sql/clickhouse-literal.js';
import type { ClickHouseStoreParts } from './clickhouse-store-parts.js';
import { checkpointRow, eventCountRows, currentGens, daysIn, deletedAt, importRow, utcDay, type Shard } from './commit-log.js';
import { groupDays, rewriteDays, storedRows, type RewrittenDay, type ShardDay } from './day-rewrite.js';
import type { ClickHouseNode } from './node.js';
import { ident } from './schema.js';
import { encodedRowsTsv, eventRowsTsv, TSV_COLUMNS } from './tab-separated.js';

/** Inserts through a Distributed table reach the servers before the statement returns. */
const INSERT_SETTINGS = { insert_distributed_sync: 1 } as const;

/** A row as ClickHouse returns it -> EventRow (UInt8 booleans, no extra columns). */
function toEventRow(r: Record<string, unknown>): EventRow {
  const out: Record<string, unknown> = {};
  for (const f of EVENT_ROW_FIELDS) out[f] = r[f];
  out.has_click_id = r.has_click_id === 1 || r.has_click_id === true;
  out.ts_ms = Number(r.ts_ms);
  out.engagement_time_ms = Number(r.engagement_time_ms);
  // a row of the import's own stage: EventRow's columns by its DDL, which no type here can see
  return out as unknown as EventRow;
}

const dayKey = (d: DayRef) => `${d.site_id}|${d.day}`;

/** A (site, day) staged on a server, with its staged rows (one per id). */
interface StagedDay {
  site_id: string;
  d: string;
  n: number;
}

/** A day a server rewrote under the new generation. */
export type CommittedDay = RewrittenDay & { shard: Shard };

/** What the servers' rewrites did: each server's rewritten days, all of them, the staged rows that were new and the engagement applied. */
interface Rewrites {
  byShard: { shard: Shard; days: RewrittenDay[] }[];
  committed: CommittedDay[];
  fresh: number;
  applied: number;
}

/** The commit log rows of the committed days (of one server's, or of all with null). */
function logRows(
  committed: readonly CommittedDay[],
  of: Shard | null,
  gen: number,
  committedMs: number,
  importId: string | undefined,
): string {
  return (
    committed
      .filter((c) => of === null || c.shard === of)
      .map((c) =>
        JSON.stringify({
          site_id: c.site_id,
          day: c.day,
          gen,
          shard: c.shard.num,
          events: c.events,
          first_ms: c.firstMs,
          last_ms: c.lastMs,
          committed_ms: committedMs,
          import_id: importId ?? '',
        }),
      )
      .join('\n') + '\n'
  );
}

/** What a session commits besides its rows, and what it is. */
export interface SessionOptions {
  reidentify: Reidentify;
  checkpoint: Checkpoint | null;
  /** remembered by the events the import stores first (ImportOptions.importId) */
  importId: string | undefined;
  /** an undo of this import rather than an import: its events leave the days they are on */
  undo?: string;
}

export class ClickHouseImportSession implements ImportSession {
  private staged = 0;
  private done = false;
  /** engagement rows of this import: few (live collection batches), kept in memory until commit */
  private readonly engagement: EngagementRow[] = [];

  private readonly reidentify: Reidentify;
  private readonly checkpoint: Checkpoint | null;

  constructor(
    private readonly p: ClickHouseStoreParts,
    private readonly tag: string,
    /** each server's staging table */
    private readonly stage: string,
    /** where appends go: the stage (one server) or the router spreading rows over the servers */
    private readonly entry: string,
    private readonly serialized: CommitLock,
    private readonly opts: SessionOptions,
  ) {
    this.reidentify = opts.reidentify;
    this.checkpoint = opts.checkpoint;
  }

  /**
   * The records a commit writes besides its days: the checkpoint, the import (known to undoImport even
   * when it stored nothing), the event counts it moves.
   */
  private records(gen: number, committedMs: number, imported: number, committed: readonly CommittedDay[]): string {
    const { checkpoint, importId } = this.opts;
    return (
      (checkpoint ? checkpointRow(checkpoint, gen, this.p.coordinator.num, committedMs) + '\n' : '') +
      (importId !== undefined ? importRow(importId, imported, gen, committedMs) + '\n' : '') +
      eventCountRows(committed, gen, committedMs)
    );
  }

  /** Commits the records alone (an import that changed nothing still moves its loader on, and is known). */
  private async commitRecordsOnly(): Promise<void> {
    const now = Date.now();
    await this.p.coordinator.node.insertNdjson(ident(this.p.layout.days), this.records(now * 1000, now, 0, []));
  }

  async append(rows: readonly EventRow[]): Promise<void> {
    if (this.done) throw new Error('import session already finished');
    if (rows.length === 0) return;
    await this.p.coordinator.node.insertTabSeparated(ident(this.entry), TSV_COLUMNS, eventRowsTsv(rows), INSERT_SETTINGS);
    this.staged += rows.length;
  }

  async appendEncoded(ndjson: string | Uint8Array, count: number): Promise<void> {
    if (this.done) throw new Error('import session already finished');
    if (count === 0) return;
    const text = typeof ndjson === 'string' ? ndjson : Buffer.from(ndjson.buffer, ndjson.byteOffset, ndjson.byteLength).toString('utf8');
    await this.p.coordinator.node.insertTabSeparated(ident(this.entry), TSV_COLUMNS, encodedRowsTsv(text), INSERT_SETTINGS);
    this.staged += count;
  }

  async appendEngagement(rows: readonly EngagementRow[]): Promise<void> {
    if (this.done) throw new Error('import session already finished');
    this.engagement.push(...rows);
  }

  async commit(): Promise<ImportResult> {
    return (await this.commitDays()).result;
  }

  /** commit(), and each day committed (with the change of its events): an undo's figures come from them. */
  commitDays(): Promise<{ result: ImportResult; committed: CommittedDay[] }> {
    if (this.done) return Promise.reject(new Error('import session already finished'));
    this.done = true;
    return this.serialized(async () => {
      try {
        return await this.commitNow();
      } finally {
        await this.dropScratch();
      }
    });
  }

  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.dropScratch();
  }

  private async dropScratch(): Promise<void> {
    const drop = (n: ClickHouseNode, t: string) => n.command(`DROP TABLE IF EXISTS ${ident(t)}`).catch(() => undefined);
    if (this.entry !== this.stage) await drop(this.p.coordinator.node, this.entry);
    await Promise.all(this.p.shards.map((s) => drop(s.node, this.stage)));
  }

  /** The commit's stages, in order; any failure from the rewrites to the commit point leaves nothing visible. */
  private async commitNow(): Promise<{ result: ImportResult; committed: CommittedDay[] }> {
    const nothing = { result: { imported: 0, duplicates: 0, days: [] }, committed: [] };
    await this.checkStaged();
    if (this.staged === 0 && this.engagement.length === 0 && this.opts.undo === undefined) {
      await this.commitRecordsOnly();
      return nothing;
    }
    await Promise.all(this.p.shards.map((s) => this.numberRepeats(s)));
    const staged = this.opts.undo === undefined ? await this.stagedDays() : await this.undoneDays(this.opts.undo);
    if (staged.every((days) => days.length === 0) && this.engagement.length === 0) return nothing;
    // engagement may fall on any server's visitors: its days are every server's to look at
    const engagementDays = uniqueDays(this.engagement.map((e) => ({ site_id: e.site_id, day: utcDay(e.ts_ms) })));
    const { gen, oldOf } = await this.newGeneration(
      uniqueDays([...staged.flat().map((r) => ({ site_id: r.site_id, day: r.d })), ...engagementDays]),
    );
    const committedMs = Date.now();
    let rewrites: Rewrites;
    try {
      rewrites = await this.rewriteEveryServer(staged, engagementDays, oldOf, gen);
      if (rewrites.committed.length === 0) {
        await this.commitRecordsOnly();
        return { result: { imported: 0, duplicates: this.staged, days: [], ...this.engaged(rewrites.applied) }, committed: [] };
      }
      await this.commitPoint(rewrites, oldOf, gen, committedMs);
    } catch (err) {
      await this.dropGeneration(gen).catch(() => undefined);
      throw err;
    }
    await this.afterCommit(rewrites, oldOf, gen, committedMs);
    const days = uniqueDays(rewrites.byShard.flatMap((r) => r.days)).sort((a, b) =>
      a.site_id === b.site_id ? (a.day < b.day ? -1 : 1) : a.site_id < b.site_id ? -1 : 1,
    );
    return {
      result: { imported: rewrites.fresh, duplicates: this.staged - rewrites.fresh, days, ...this.engaged(rewrites.applied) },
      committed: rewrites.committed,
    };
  }

  /**
   * Per server, the (site, day)s whose current generation holds events of the import `undo`, with how
   * many: the days its commits rewrote (their log rows name it), as they stand now.
   */
  private async undoneDays(undo: string): Promise<StagedDay[][]> {
    const L = this.p.layout;
    const authority = this.p.coordinator.node;
    const touched = await authority.query<{ site_id: string; day: string }>(
      `SELECT DISTINCT site_id, toString(day) AS day FROM ${ident(L.days)} WHERE import_id = ${lit(undo)} AND shard > 0`,
    );
    const gens = await currentGens(authority, L.days, touched);
    return Promise.all(
      this.p.shards.map(async (s) => {
        const mine = gens.filter((g) => g.shard === s.num);
        if (mine.length === 0) return [];
        const current = mine.map((g) => `(${lit(g.site_id)}, toDate(${lit(g.day)}), ${lit(g.gen)})`).join(', ');
        return s.node.query<StagedDay>(
          `SELECT site_id, toString(day) AS d, count() AS n FROM ${ident(L.events)} WHERE (site_id, day, gen) IN (${current}) AND import_id = ${lit(undo)} GROUP BY site_id, d`,
        );
      }),
    );
  }

  /** Every row appended reached a stage (the servers' stages hold as many rows as were appended). */
  private async checkStaged(): Promise<void> {
    const counts = await Promise.all(
      this.p.shards.map((s) => s.node.query<{ n: number }>(`SELECT count() AS n FROM ${ident(this.stage)}`)),
    );
    const total = counts.reduce((n, r) => n + Number(r[0].n), 0);
    if (total !== this.staged) throw new Error(`staged ${total} rows, expected ${this.staged}`);
  }

  /** Per server: every (site, day) staged there and its rows (one per id). */
  private stagedDays(): Promise<StagedDay[][]> {
    return Promise.all(
      this.p.shards.map((s) =>
        s.node.query<StagedDay>(
          `SELECT site_id, toString(toDate(intDiv(ts_ms, 86400000))) AS d, count() AS n FROM (SELECT site_id, ts_ms, event_id FROM ${ident(this.stage)} LIMIT 1 BY event_id) GROUP BY site_id, d`,
        ),
      ),
    );
  }

  /** The generation this commit writes under, and the one each (server, site, day) it touches shows now. */
  private async newGeneration(touched: readonly DayRef[]): Promise<{ gen: number; oldOf: Map<string, number> }> {
    const [olds, deleted] = await Promise.all([
      currentGens(this.p.coordinator.node, this.p.layout.days, touched),
      deletedAt(this.p.coordinator.node, this.p.layout.days, [...new Set(touched.map((d) => d.site_id))]),
    ]);
    const oldOf = new Map(olds.map((g) => [`${g.shard}|${dayKey(g)}`, g.gen]));
    // a new gen is above every gen these days had, so "newest" stays "current" whatever the clocks say,
    // and above a deletion of their sites (whose older counts are no longer counted)
    const gen = Math.max(
      Date.now() * 1000 + Math.floor(Math.random() * 1000),
      ...olds.map((g) => g.gen + 1),
      ...[...deleted.values()].map((g) => g + 1),
    );
    return { gen, oldOf };
  }

  /** Each server rewrites its days that gain events or engagement under `gen` (day-rewrite.ts), a group at a time. */
  private async rewriteEveryServer(
    staged: StagedDay[][],
    engagementDays: readonly DayRef[],
    oldOf: Map<string, number>,
    gen: number,
  ): Promise<Rewrites> {
    const byShard: Rewrites['byShard'] = [];
    let fresh = 0;
    let applied = 0;
    const engagementOf = (group: readonly DayRef[]) => {
      const days = new Set(group.map(dayKey));
      return this.engagement.filter((e) => days.has(`${e.site_id}|${utcDay(e.ts_ms)}`));
    };
    await Promise.all(
      this.p.shards.map(async (s, i) => {
        const rows = new Map(staged[i].map((r) => [`${r.site_id}|${r.d}`, Number(r.n)]));
        const days = uniqueDays([...staged[i].map((r) => ({ site_id: r.site_id, day: r.d })), ...engagementDays]).map(
          (d): ShardDay & { n: number } => ({ ...d, n: rows.get(dayKey(d)) ?? 0, oldGen: oldOf.get(`${s.num}|${dayKey(d)}`) ?? 0 }),
        );
        const stored = await storedRows(this.p.coordinator.node, s.num, this.p.layout.days, days);
        let step = 0;
        for (const group of groupDays(days, stored)) {
          const r = await rewriteDays(s, this.p.layout, this.stage, group, engagementOf(group), gen, `${this.tag}_${s.num}_${step++}`, {
            importId: this.opts.importId ?? null,
            without: this.opts.undo,
          });
          fresh += r.fresh;
          applied += r.applied;
          if (r.days.length) byShard.push({ shard: s, days: r.days });
        }
      }),
    );
    const committed = byShard.flatMap((r) => r.days.map((d) => ({ shard: r.shard, ...d })));
    return { byShard, committed, fresh, applied };
  }

  /**
   * Under the lock, so no other commit lands between the check and the insert: fails if another
   * process committed one of these days since we read them (our rewrite would drop its events),
   * else writes the commit log rows (and the checkpoint) in one insert.
   */
  private async commitPoint(rewrites: Rewrites, oldOf: Map<string, number>, gen: number, committedMs: number): Promise<void> {
    const L = this.p.layout;
    const { committed } = rewrites;
    await this.p.commitLock(async () => {
      const now = await currentGens(this.p.coordinator.node, L.days, uniqueDays(committed));
      const changed = now.filter((g) => g.gen !== oldOf.get(`${g.shard}|${dayKey(g)}`));
      if (changed.length) {
        throw new Error(
          `another import committed ${changed[0].site_id} ${changed[0].day} during this one; nothing was stored, import again`,
        );
      }
      // THE commit point: one insert into an unpartitioned table is one part, seen whole or not at all.
      const days = logRows(committed, null, gen, committedMs, this.opts.undo === undefined ? this.opts.importId : undefined);
      await this.p.coordinator.node.insertNdjson(ident(L.days), days + this.records(gen, committedMs, rewrites.fresh, committed));
    });
  }

  /** Committed. Each other server's log gets its rows (readers mend a copy a dead process left behind); replaced gens go. */
  private async afterCommit(rewrites: Rewrites, oldOf: Map<string, number>, gen: number, committedMs: number): Promise<void> {
    const L = this.p.layout;
    await Promise.all(
      this.p.shards
        .filter((s) => s !== this.p.coordinator && rewrites.byShard.some((r) => r.shard === s))
        .map((s) =>
          s.node
            .insertNdjson(
              ident(L.days),
              logRows(rewrites.committed, s, gen, committedMs, this.opts.undo === undefined ? this.opts.importId : undefined),
            )
            .catch(() => undefined),
        ),
    );
    await Promise.all(
      rewrites.byShard.map((r) =>
        this.dropSuperseded(
          r.shard,
          r.days.map((d) => ({ ...d, oldGen: oldOf.get(`${r.shard.num}|${dayKey(d)}`) ?? 0 })),
        ).catch(() => undefined),
      ),
    );
  }

  /** The engagement part of a result (absent when the import brought none). */
  private engaged(applied: number): { engagement?: { applied: number; dropped: number } } {
    return this.engagement.length ? { engagement: { applied, dropped: this.engagement.length - applied } } : {};
  }

  /**
   * Rows arrive with their occurrence-0 identity, so identical events of this batch share an id;
   * the 2nd, 3rd ... copy gets the identity of its occurrence number (docs/product.md §8.2). Copies are alike,
   * so they are on one server; the stage keeps them and each rewrite reads one row per id.
   */
  private async numberRepeats(s: Shard): Promise<void> {
    const st = ident(this.stage);
    const counts = await s.node.query<{ event_id: string; n: number }>(
      `SELECT event_id, count() AS n FROM ${st} GROUP BY event_id HAVING n > 1`,
    );
    if (counts.length === 0) return;
    const n = new Map(counts.map((c) => [c.event_id, Number(c.n)]));
    const reps = await s.node.query<Record<string, unknown>>(
      `SELECT * FROM ${st} WHERE event_id IN (${counts.map((c) => lit(c.event_id)).join(', ')}) LIMIT 1 BY event_id`,
    );
    const extra: EventRow[] = [];
    for (const rep of reps) {
      const row = toEventRow(rep);
      for (let occ = 2; occ <= n.get(row.event_id)!; occ++) extra.push({ ...row, event_id: this.reidentify(row, occ) });
    }
    await s.node.insertTabSeparated(st, TSV_COLUMNS, eventRowsTsv(extra));
  }

  /** An import that failed before its commit point: its rows were never visible; remove them. */
  private async dropGeneration(gen: number): Promise<void> {
    await Promise.all(this.p.shards.map((s) => this.mutate(s, `gen = ${lit(gen)}`)));
  }

  /**
   * Rows of the generations the commit replaced (invisible already): reclaimed in the background.
   * Only gens up to the one replaced: a gen between it and ours belongs to another import still
   * writing (it will find our commit and fail whole), and deleting its rows under it would make it
   * count what it wrote as nothing. Rows of an import that died are reclaimed by a later commit.
   */
  private async dropSuperseded(s: Shard, days: readonly ShardDay[]): Promise<void> {
    const byOld = new Map<number, DayRef[]>();
    for (const d of days) if (d.oldGen > 0) byOld.set(d.oldGen, [...(byOld.get(d.oldGen) ?? []), d]);
    if (byOld.size === 0) return;
    await this.mutate(s, [...byOld].map(([old, group]) => `(${daysIn(group)} AND gen <= ${lit(old)})`).join(' OR '));
  }

  private async mutate(s: Shard, where: string): Promise<void> {
    const L = this.p.layout;
    await Promise.all(
      [L.events, L.sessions, L.rollups, L.titles, L.actions].map((t) => s.node.command(`ALTER TABLE ${ident(t)} DELETE WHERE ${where}`)),
    );
  }
}

function uniqueDays(days: readonly DayRef[]): DayRef[] {
  const seen = new Map<string, DayRef>();
  for (const d of days) if (!seen.has(dayKey(d))) seen.set(dayKey(d), { site_id: d.site_id, day: d.day });
  return [...seen.values()];
}
