// The event store on ClickHouse (one server, or a cluster through Distributed tables). ClickHouse has
// no transactions, so an import is made all-or-nothing by generations (docs/decisions.md (clickhouse)):
// rows go to a staging table; commit rewrites every (site, day) that gains events under a new gen
// (old events + new ones, sessions rebuilt by sessionize.ts) while readers still see the old gen;
// ONE insert into the commit log (ff_days) then switches all those days at once.
import { randomBytes } from 'node:crypto';
import { MAX_ENGAGEMENT_MS, type StoredSession } from '../../domain/events.js';
import {
  checkedCheckpoint,
  decodeEventRow,
  encodeEventRows,
  EVENT_ROW_FIELDS,
  type DayRef,
  type EngagementRow,
  type EventRow,
  type EventStore,
  type Checkpoint,
  type ImportOptions,
  type ImportResult,
  type ImportSession,
  type Reidentify,
  type SiteCoverage,
} from '../../ports/event-store.js';
import { encodeClickHouseLiteral as lit } from '../sql/clickhouse-literal.js';
import { currentGens, daysIn, siteCoverage, siteVersion, type DayGen } from './commit-log.js';
import type { ClickHouseNode } from './node.js';
import { EVENT_COLUMNS, ident, SESSION_COLUMNS, stageDdl, type TableLayout } from './schema.js';
import { sessionize, utcDay, type SessionizedEvent } from './sessionize.js';

/** Rows one commit step holds in memory at most (old and new events of a group of days), roughly. */
const GROUP_ROWS = 200_000;
/** Inserts through a Distributed table reach the shards before the statement returns. */
const INSERT_SETTINGS = { insert_distributed_sync: 1 } as const;

export interface ClickHouseStoreParts {
  /** where imports, the commit log and Distributed tables live */
  coordinator: ClickHouseNode;
  /** every server holding rows (the coordinator alone without a cluster) */
  shards: ClickHouseNode[];
  layout: TableLayout;
}

export class ClickHouseEventStore implements EventStore {
  private commitChain: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly p: ClickHouseStoreParts) {}

  async beginImport(options: ImportOptions = {}): Promise<ImportSession> {
    this.assertOpen();
    const checkpoint = checkedCheckpoint(options.checkpoint);
    // the time in the name lets a later open drop stages a dead process left behind
    const stage = `ff_stage_${Date.now()}_${randomBytes(6).toString('hex')}`;
    await this.p.coordinator.command(stageDdl(this.p.coordinator.opts.database, stage));
    return new ClickHouseImportSession(this.p, stage, options.reidentify ?? defaultReidentify, (fn) => this.serialized(fn), checkpoint);
  }

  async importBatch(rows: readonly EventRow[], options: ImportOptions = {}): Promise<ImportResult> {
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
    return (await this.siteCoverage(siteId)).lastEventAt;
  }

  /** Positions only grow, so the newest is the largest (whatever the gens' clocks said). */
  async checkpoint(source: string): Promise<number | null> {
    this.assertOpen();
    const [r] = await this.p.coordinator.query<{ p: number | string; n: number | string }>(
      `SELECT max(events) AS p, count() AS n FROM ${ident(this.p.layout.days)} WHERE site_id = ${lit(checkpointSite(source))}`,
    );
    return r && Number(r.n) > 0 ? Number(r.p) : null;
  }

  async siteCoverage(siteId: string): Promise<SiteCoverage> {
    this.assertOpen();
    const c = await siteCoverage(this.p.coordinator, this.p.layout.days, siteId);
    return {
      firstEventAt: c.firstMs === null ? null : new Date(c.firstMs).toISOString(),
      lastEventAt: c.lastMs === null ? null : new Date(c.lastMs).toISOString(),
      events: c.events,
    };
  }

  /** Read from the commit log, so every process sharing the store sees the same versions. */
  async dataVersion(siteId: string): Promise<string> {
    this.assertOpen();
    return siteVersion(this.p.coordinator, this.p.layout.days, siteId);
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await Promise.all(this.p.shards.map((n) => n.query('SELECT 1 AS ok')));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.commitChain.catch(() => undefined);
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

const defaultReidentify: Reidentify = (row, occurrence) => `${row.event_id}#${occurrence}`;

/**
 * A loader's checkpoint is a row of the commit log itself (no site id starts with `#`): written by
 * the same insert that commits the import's days, so it is seen exactly when they are. Its `events`
 * column holds the position.
 */
const checkpointSite = (source: string) => `#checkpoint/${source}`;

function checkpointRow(cp: Checkpoint, gen: number, committedMs: number): string {
  return JSON.stringify({ site_id: checkpointSite(cp.source), day: '1970-01-01', gen, events: cp.position, first_ms: 0, last_ms: 0, committed_ms: committedMs });
}

type DbRow = Record<string, unknown>;

/** A row as ClickHouse returns it -> EventRow (UInt8 booleans, no extra columns). */
function toEventRow(r: DbRow): EventRow {
  const out: Record<string, unknown> = {};
  for (const f of EVENT_ROW_FIELDS) out[f] = r[f];
  out.has_click_id = r.has_click_id === 1 || r.has_click_id === true;
  out.ts_ms = Number(r.ts_ms);
  out.engagement_time_ms = Number(r.engagement_time_ms);
  return out as unknown as EventRow;
}

/** The port's wire rows (JSON arrays) as the JSONEachRow objects ClickHouse 18.16 reads. */
function asObjects(ndjson: string): string {
  let out = '';
  for (const line of ndjson.split('\n')) if (line) out += JSON.stringify(decodeEventRow(line)) + '\n';
  return out;
}

function encodeWith(rows: readonly object[], columns: [string, string][], extra: Record<string, unknown>): string {
  let out = '';
  for (const r of rows) {
    const o: Record<string, unknown> = {};
    for (const [c] of columns) o[c] = c in extra ? extra[c] : (r as Record<string, unknown>)[c];
    out += JSON.stringify(o) + '\n';
  }
  return out;
}

interface DayPlan extends DayRef {
  staged: number;
  /** current generation before this import, if the day has one */
  old: DayGen | undefined;
}

class ClickHouseImportSession implements ImportSession {
  private staged = 0;
  private done = false;
  /** engagement rows of this import: few (live collection batches), kept in memory until commit */
  private readonly engagement: EngagementRow[] = [];
  private engagementApplied = 0;

  constructor(
    private readonly p: ClickHouseStoreParts,
    private readonly stage: string,
    private readonly reidentify: Reidentify,
    private readonly serialized: <T>(fn: () => Promise<T>) => Promise<T>,
    private readonly checkpoint: Checkpoint | null,
  ) {}

  /** Commits the checkpoint alone (an import that changed nothing still moves its loader on). */
  private async commitCheckpointOnly(): Promise<void> {
    if (!this.checkpoint) return;
    await this.c.insertNdjson(ident(this.p.layout.days), checkpointRow(this.checkpoint, Date.now() * 1000, Date.now()) + '\n');
  }

  private get c(): ClickHouseNode {
    return this.p.coordinator;
  }

  async append(rows: readonly EventRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.appendEncoded(encodeEventRows(rows), rows.length);
  }

  async appendEngagement(rows: readonly EngagementRow[]): Promise<void> {
    if (this.done) throw new Error('import session already finished');
    this.engagement.push(...rows);
  }

  async appendEncoded(ndjson: string, count: number): Promise<void> {
    if (this.done) throw new Error('import session already finished');
    if (count === 0) return;
    await this.c.insertNdjson(ident(this.stage), asObjects(ndjson));
    this.staged += count;
  }

  commit(): Promise<ImportResult> {
    if (this.done) return Promise.reject(new Error('import session already finished'));
    this.done = true;
    return this.serialized(async () => {
      try {
        return await this.commitNow();
      } finally {
        await this.dropStage();
      }
    });
  }

  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    await this.dropStage();
  }

  private async dropStage(): Promise<void> {
    await this.c.command(`DROP TABLE IF EXISTS ${ident(this.stage)}`).catch(() => undefined);
  }

  /** The staged rows, one per event_id (repeats were given their own ids by numberRepeats). */
  private uniqueStage(where = ''): string {
    return `(SELECT * FROM ${ident(this.stage)}${where ? ` WHERE ${where}` : ''} LIMIT 1 BY event_id)`;
  }

  private async commitNow(): Promise<ImportResult> {
    const L = this.p.layout;
    const [{ n }] = await this.c.query<{ n: number }>(`SELECT count() AS n FROM ${ident(this.stage)}`);
    if (Number(n) !== this.staged) throw new Error(`staged ${n} rows, expected ${this.staged}`);
    const engaged = this.engagement.length ? { engagement: { applied: 0, dropped: this.engagement.length } } : {};
    if (this.staged === 0 && this.engagement.length === 0) {
      await this.commitCheckpointOnly();
      return { imported: 0, duplicates: 0, days: [] };
    }
    await this.numberRepeats();

    const staged = await this.c.query<{ site_id: string; day: string; n: number }>(
      `SELECT site_id, toString(toDate(intDiv(ts_ms, 86400000))) AS day, count() AS n FROM ${this.uniqueStage()}
       GROUP BY site_id, day ORDER BY site_id, day`,
    );
    const dayRows = withEngagementDays(staged, this.engagement);
    const olds = new Map((await currentGens(this.c, L.days, dayRows)).map((g) => [`${g.site_id}|${g.day}`, g]));
    const plans: DayPlan[] = dayRows.map((d) => ({ site_id: d.site_id, day: d.day, staged: Number(d.n), old: olds.get(`${d.site_id}|${d.day}`) }));
    // a new gen is above every gen these days had, so "newest" stays "current" whatever the clocks say
    const gen = Math.max(Date.now() * 1000 + Math.floor(Math.random() * 1000), ...[...olds.values()].map((g) => g.gen + 1));

    const committed: { plan: DayPlan; events: number; first: number; last: number }[] = [];
    let fresh = 0;
    try {
      for (const group of groupDays(plans)) {
        const r = await this.rewrite(group, gen);
        fresh += r.fresh;
        committed.push(...r.days);
      }
      if (committed.length === 0) {
        await this.commitCheckpointOnly();
        return { imported: 0, duplicates: this.staged, days: [], ...engaged };
      }
      // Another process may have committed some of these days since we read them: our rewrite would drop its events.
      const now = await currentGens(this.c, L.days, committed.map((d) => d.plan));
      const changed = now.filter((g) => g.gen !== olds.get(`${g.site_id}|${g.day}`)?.gen);
      if (changed.length) {
        throw new Error(`another import committed ${changed[0].site_id} ${changed[0].day} during this one; nothing was stored, import again`);
      }
      const committedMs = Date.now();
      // THE commit point: one insert into an unpartitioned table is one part, seen whole or not at all.
      await this.c.insertNdjson(
        ident(L.days),
        [
          ...committed.map((d) =>
            JSON.stringify({ site_id: d.plan.site_id, day: d.plan.day, gen, events: d.events, first_ms: d.first, last_ms: d.last, committed_ms: committedMs }),
          ),
          ...(this.checkpoint ? [checkpointRow(this.checkpoint, gen, committedMs)] : []),
        ].join('\n') + '\n',
      );
    } catch (err) {
      await this.dropGeneration(gen, plans).catch(() => undefined);
      throw err;
    }
    await this.dropSuperseded(gen, committed.map((d) => d.plan).filter((p) => p.old)).catch(() => undefined);
    const days = committed.map((d) => ({ site_id: d.plan.site_id, day: d.plan.day }));
    const engagement = this.engagement.length
      ? { engagement: { applied: this.engagementApplied, dropped: this.engagement.length - this.engagementApplied } }
      : {};
    return { imported: fresh, duplicates: this.staged - fresh, days, ...engagement };
  }

  /** Writes the new generation of a group of days; days that gain no event are left as they are. */
  private async rewrite(group: DayPlan[], gen: number) {
    const L = this.p.layout;
    const withOld = group.filter((p) => p.old);
    const existing = withOld.length
      ? (
          await this.c.query<DbRow>(
            `SELECT * FROM ${ident(L.events)} WHERE ${daysIn(withOld)} AND (site_id, day, gen) IN (${withOld
              .map((p) => `(${lit(p.site_id)}, ${lit(p.day)}, ${lit(p.old!.gen)})`)
              .join(', ')})`,
          )
        ).map(toEventRow)
      : [];
    const known = new Set(existing.map((e) => e.event_id));
    const staged = (
      await this.c.query<DbRow>(`SELECT * FROM ${this.uniqueStage(daysIn(group, 'site_id', 'toDate(intDiv(ts_ms, 86400000))'))}`)
    ).map(toEventRow);
    const fresh = staged.filter((r) => !known.has(r.event_id));
    const gaining = new Set(fresh.map((r) => `${r.site_id}|${utcDay(r.ts_ms)}`));
    const inGroup = new Set(group.map((p) => `${p.site_id}|${p.day}`));
    const engaged = applyEngagement(
      [...existing, ...fresh],
      this.engagement.filter((e) => inGroup.has(`${e.site_id}|${utcDay(e.ts_ms)}`)),
    );
    this.engagementApplied += engaged.applied;
    for (const k of engaged.days) gaining.add(k);
    const { events, sessions } = sessionize([...existing, ...fresh]);
    const keep = <T extends { site_id: string; day: string }>(x: T) => gaining.has(`${x.site_id}|${x.day}`);
    const evs = events.filter(keep);
    await this.insertEvents(evs, gen);
    await this.insertSessions(sessions.filter(keep), gen);
    const stats = new Map<string, { events: number; first: number; last: number }>();
    for (const e of evs) {
      const k = `${e.site_id}|${e.day}`;
      const s = stats.get(k);
      if (!s) stats.set(k, { events: 1, first: e.ts_ms, last: e.ts_ms });
      else {
        s.events++;
        if (e.ts_ms < s.first) s.first = e.ts_ms;
        if (e.ts_ms > s.last) s.last = e.ts_ms;
      }
    }
    const days = group.filter((p) => stats.has(`${p.site_id}|${p.day}`)).map((plan) => ({ plan, ...stats.get(`${plan.site_id}|${plan.day}`)! }));
    return { fresh: fresh.length, days };
  }

  private async insertEvents(rows: SessionizedEvent[], gen: number): Promise<void> {
    rows.sort((a, b) => (a.site_id < b.site_id ? -1 : a.site_id > b.site_id ? 1 : a.ts_ms - b.ts_ms));
    for (let i = 0; i < rows.length; i += 50_000) {
      await this.c.insertNdjson(ident(this.p.layout.events), encodeWith(rows.slice(i, i + 50_000), EVENT_COLUMNS, { gen }), INSERT_SETTINGS);
    }
  }

  private async insertSessions(rows: StoredSession[], gen: number): Promise<void> {
    for (let i = 0; i < rows.length; i += 50_000) {
      await this.c.insertNdjson(ident(this.p.layout.sessions), encodeWith(rows.slice(i, i + 50_000), SESSION_COLUMNS, { gen }), INSERT_SETTINGS);
    }
  }

  /**
   * Rows arrive with their occurrence-0 identity, so identical events of this batch share an id;
   * the 2nd, 3rd ... copy gets the identity of its occurrence number (DESIGN 8). The stage keeps the
   * copies; uniqueStage() reads one row per id.
   */
  private async numberRepeats(): Promise<void> {
    const counts = await this.c.query<{ event_id: string; n: number }>(
      `SELECT event_id, count() AS n FROM ${ident(this.stage)} GROUP BY event_id HAVING n > 1`,
    );
    if (counts.length === 0) return;
    const n = new Map(counts.map((c) => [c.event_id, Number(c.n)]));
    const reps = await this.c.query<DbRow>(
      `SELECT * FROM ${ident(this.stage)} WHERE event_id IN (${counts.map((c) => lit(c.event_id)).join(', ')}) LIMIT 1 BY event_id`,
    );
    if (reps.length === 0) return;
    const extra: EventRow[] = [];
    for (const rep of reps) {
      const row = toEventRow(rep);
      for (let occ = 2; occ <= n.get(row.event_id)!; occ++) extra.push({ ...row, event_id: this.reidentify(row, occ) });
    }
    await this.c.insertNdjson(ident(this.stage), asObjects(encodeEventRows(extra)));
  }

  /** An import that failed before its commit point: its rows were never visible; remove them. */
  private async dropGeneration(gen: number, plans: DayPlan[]): Promise<void> {
    if (plans.length === 0) return;
    await this.mutateShards(`gen = ${lit(gen)}`);
  }

  /** Rows of generations the commit replaced (invisible already): reclaimed in the background. */
  private async dropSuperseded(gen: number, replaced: DayPlan[]): Promise<void> {
    if (replaced.length === 0) return;
    await this.mutateShards(`${daysIn(replaced)} AND gen < ${lit(gen)}`);
  }

  private async mutateShards(where: string): Promise<void> {
    const L = this.p.layout;
    await Promise.all(
      this.p.shards.flatMap((n) => [L.eventsLocal, L.sessionsLocal].map((t) => n.command(`ALTER TABLE ${ident(t)} DELETE WHERE ${where}`))),
    );
  }
}

/** The staged days plus the days engagement rows fall on (as days with no staged event). */
function withEngagementDays(staged: { site_id: string; day: string; n: number }[], engagement: readonly EngagementRow[]) {
  const known = new Set(staged.map((d) => `${d.site_id}|${d.day}`));
  const out = [...staged];
  for (const e of engagement) {
    const day = utcDay(e.ts_ms);
    if (!known.has(`${e.site_id}|${day}`)) {
      known.add(`${e.site_id}|${day}`);
      out.push({ site_id: e.site_id, day, n: 0 });
    }
  }
  return out.sort((a, b) => (a.site_id === b.site_id ? (a.day < b.day ? -1 : a.day > b.day ? 1 : 0) : a.site_id < b.site_id ? -1 : 1));
}

/**
 * Adds each engagement row to its visitor's latest pageview of the path at or before its time that
 * day (EngagementRow), in place; returns the `site|day` keys of the days it changed and how many
 * rows found their pageview.
 */
function applyEngagement(rows: EventRow[], engagement: readonly EngagementRow[]): { days: Set<string>; applied: number } {
  const changed = new Set<string>();
  if (engagement.length === 0) return { days: changed, applied: 0 };
  const byKey = new Map<string, EventRow[]>();
  for (const r of rows) {
    if (r.type !== 'pageview' || r.path_canon === null) continue;
    const k = `${r.site_id}|${utcDay(r.ts_ms)}|${r.visitor_key}|${r.path_canon}`;
    const list = byKey.get(k);
    if (list) list.push(r);
    else byKey.set(k, [r]);
  }
  let applied = 0;
  for (const e of engagement) {
    const day = utcDay(e.ts_ms);
    let target: EventRow | null = null;
    for (const r of byKey.get(`${e.site_id}|${day}|${e.visitor_key}|${e.path_canon}`) ?? []) {
      if (r.ts_ms > e.ts_ms) continue;
      if (!target || r.ts_ms > target.ts_ms || (r.ts_ms === target.ts_ms && r.event_id > target.event_id)) target = r;
    }
    if (!target) continue;
    target.engagement_time_ms = Math.min(target.engagement_time_ms + e.engagement_ms, MAX_ENGAGEMENT_MS);
    changed.add(`${e.site_id}|${day}`);
    applied++;
  }
  return { days: changed, applied };
}

/** Days in groups of about GROUP_ROWS rows (old and new), a day never split. */
function* groupDays(plans: DayPlan[]): Generator<DayPlan[]> {
  let group: DayPlan[] = [];
  let rows = 0;
  for (const p of plans) {
    const n = p.staged + (p.old?.events ?? 0);
    if (group.length && rows + n > GROUP_ROWS) {
      yield group;
      group = [];
      rows = 0;
    }
    group.push(p);
    rows += n;
  }
  if (group.length) yield group;
}
