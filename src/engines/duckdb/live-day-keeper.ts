// Where the DuckDB store's live days stand (live-days.ts): the first live day as committed, the sites
// that may have data from it on, and the roll-up of days that stopped being live, which runs beside
// the loads. The store (duckdb-event-store.ts) hands each commit's hooks and its lifecycle to it.
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { CommitLock } from '../../ports/commit-lock.js';
import type { DayRef } from '../../ports/event-store.js';
import { advanceLiveDays, buildEndedDays, dropEndedDays, liveDay, liveFromAt, liveSitesOf, swapEndedDays } from './live-days.js';
import type { BuiltDays } from './rollups.js';

/** A roll-up of days that stopped being live, under way: from and to which liveFrom, and the changes to those days since it began. */
interface RollingUp {
  from: number;
  target: number;
  touches: number;
  done: Promise<void>;
}

export class LiveDayKeeper {
  /** the roll-up of ended days under way (rollUp), or null */
  private rolling: RollingUp | null = null;

  constructor(
    private readonly deps: {
      instance: DuckDBInstance;
      /** the store's commit lock */
      serialized: CommitLock;
      clock: () => number;
      closed: () => boolean;
    },
    /** the first live day as committed, or null: no day is live yet */
    private liveFromMs: number | null,
    /** every site that may have data on the live days (liveSitesOf): a superset, recounted when the days move */
    private liveSites: Set<string>,
  ) {}

  /**
   * The first day (ms) whose rollup rows are not kept while it is live, so reads count it and the
   * days after it from the events (live-days.ts); null: every day's rollup rows are exact. It only
   * moves after the transaction that rolled the days before it up has committed.
   */
  liveFrom(): number | null {
    return this.liveFromMs;
  }

  /**
   * liveFrom for the reads of one site: null when the site has nothing on the live days (no event,
   * session, rollup or action row), so its reads need no split (each split costs a read a second
   * statement, about 2 ms on a 30-day range of a 1M-event store even with today empty).
   */
  liveFromFor(siteId: string): number | null {
    return this.liveSites.has(siteId) ? this.liveFromMs : null;
  }

  /**
   * Under the commit lock, at each commit: gives the first live day. When a day has ended, its
   * roll-up is started beside the loads (rollUp) and the day stays live until it is done: the load
   * that finds it does not wait for it.
   */
  async advance(c: DuckDBConnection): Promise<number | null> {
    const from = this.liveFromMs;
    const target = liveFromAt(this.deps.clock());
    if (from === null) return this.liveFromNow(c, await advanceLiveDays(c, null, target));
    if (from < target && this.rolling === null) {
      const rolling: RollingUp = { from, target, touches: 0, done: Promise.resolve() };
      this.rolling = rolling;
      rolling.done = this.rollUp(rolling).finally(() => {
        if (this.rolling === rolling) this.rolling = null;
      });
    }
    return from;
  }

  /** Under the commit lock, before an import's transaction: the days it will write. */
  touch(days: readonly DayRef[]): void {
    if (this.liveFromMs === null) return;
    // its sites with a day from liveFrom on read with a split from now on
    const from = liveDay(this.liveFromMs);
    for (const d of days) if (d.day >= from) this.liveSites.add(d.site_id);
    const r = this.rolling;
    if (r !== null) {
      const start = liveDay(r.from);
      const end = liveDay(r.target);
      if (days.some((d) => d.day >= start && d.day < end)) r.touches++;
    }
  }

  /** Under the commit lock, before a purge, a deletion or an undo: a roll-up under way may have read rows it changes. */
  rebuilding(): void {
    if (this.rolling) this.rolling.touches++;
  }

  /** Resolves once no roll-up of ended days is under way (tests; the store's close waits for it too). */
  async settled(): Promise<void> {
    while (this.rolling) await this.rolling.done;
  }

  /** liveFrom has moved (the transaction that moved it has committed): its live sites counted, then taken. */
  private async liveFromNow(c: DuckDBConnection, liveFrom: number): Promise<number> {
    if (liveFrom !== this.liveFromMs) {
      // counted before the new day is taken: until then reads split at the old one, which stays exact
      const sites = await liveSitesOf(c, liveFrom);
      this.liveSites = sites;
      this.liveFromMs = liveFrom;
    }
    return liveFrom;
  }

  /**
   * The roll-up of days that stopped being live (live-days.ts), off the loads' path: their rows are
   * built on a connection of its own without the commit lock (about 5 s for a day of 1M events),
   * then swapped in under the lock with the new liveFrom in one short transaction. Until then the
   * days stay live, so reads count them from the events and stay exact. A commit that touches those
   * days meanwhile (late events), or a purge, a deletion or an undo, would leave the build stale: then
   * the days are built again under the lock, as a commit did before. A failure leaves liveFrom where
   * it was; the next commit starts again.
   */
  private async rollUp(r: RollingUp): Promise<void> {
    // the commits before this point (the one that started it included) are in what the build reads;
    // a later change of those days is counted in r.touches
    const seen = await this.deps.serialized(async () => r.touches);
    if (this.deps.closed()) return;
    let c: DuckDBConnection;
    try {
      c = await this.deps.instance.connect();
    } catch {
      return; // the next commit starts again
    }
    let built: BuiltDays | null = null;
    try {
      built = await buildEndedDays(c, r.from, r.target);
      const fresh = built;
      await this.deps.serialized(async () => {
        if (this.deps.closed() || this.liveFromMs !== r.from) return;
        if (r.touches === seen) await swapEndedDays(c, r.from, r.target, fresh);
        else await advanceLiveDays(c, r.from, r.target);
        await this.liveFromNow(c, r.target);
      });
    } catch {
      // liveFrom stays; the days stay live and exact, and the next commit starts the roll-up again
    } finally {
      if (built) await dropEndedDays(c, built);
      c.closeSync();
    }
  }
}
