// Moves spooled events into the event store: once the oldest waiting one is 2 s old, or at once when
// 10,000 are waiting, one import of what the spool holds past the loader's checkpoint, committed WITH the checkpoint
// (EventStore Checkpoint). So each record lands exactly once: a crash before the commit replays the
// batch at the next start, a crash after it finds the checkpoint past the batch. Event ids are the
// spool's (given at acceptance), so the store's deduplication would also hold on its own; engagement
// is not idempotent, and the checkpoint is what keeps it from being added twice.
// A commit has a large fixed cost (sessions and rollups of the visitor-days it touches), and it shares
// the cores with the requests that keep arriving: while they do, the loader rests after a load as long
// as that load took (so it loads at most half the time, in bigger batches), but never so long that the
// oldest waiting event would miss `readableWithinMs` (its wait, the rest and a load as long as the
// longest of the last few).
import type { EngagementRow, EventStore, ImportResult } from '../../ports/event-store.js';
import { eventIdentity } from '../parse/identity.js';
import type { Spool } from './spool.js';
import type { SpoolRecord } from './spool-format.js';

export interface LoaderOptions {
  /** how long the oldest waiting record waits before a load starts (default 2000 ms) */
  intervalMs?: number;
  /**
   * what the rest between loads keeps to: accepted records readable within this (default 3000 ms: with
   * the /v1 read that finds them, within 5 s)
   */
  readableWithinMs?: number;
  /** load at once when this many records are waiting (default 10,000) */
  triggerRecords?: number;
  /** records one import takes at most (default 100,000: a backlog is loaded in steps) */
  maxBatch?: number;
  /**
   * how long an accepted record may wait to become readable before the loader says it is behind: a
   * warning at most once a minute while it is, and a line once it has caught up (default 5000 ms, the
   * readability aim). Prometheus has the same as footfall_collection_lag_seconds; a small install
   * without it still hears of it.
   */
  behindMs?: number;
  /** where failed loads and a loader behind are reported (failed loads are retried; the spool keeps the events) */
  log?: {
    warn(details: Record<string, unknown>, message: string): void;
    info?(details: Record<string, unknown>, message: string): void;
  };
}

/** What the loader tells the collector after each commit (and about each record it replays at start). */
export interface LoaderEvents {
  /** a record of an earlier run, found past the checkpoint at start */
  replayed?(record: SpoolRecord): void;
  /** everything before `position` is readable now */
  loaded?(position: number, result: ImportResult): void;
  /** a load ended: how long it took (its commit included) and whether it committed */
  loadEnded?(seconds: number, ok: boolean): void;
}

/** What waits to become readable (CollectionBacklog of ports/metrics.ts). */
export interface LoaderBacklog {
  /** records accepted (or replayed) and not yet loaded */
  waiting: number;
  /**
   * when the oldest of them was accepted, or a little earlier (so the lag it gives is never short of
   * the truth); null: none waits
   */
  oldestAcceptedAt: number | null;
}

const MAX_BACKOFF_MS = 30_000;
/** while the loader is behind, it says so at most this often */
const BEHIND_LOG_EVERY_MS = 60_000;
/** loads whose durations the rest looks at */
const RECENT_LOADS = 3;

export class Loader {
  private position = 0;
  /** the next look at the spool (schedule()) */
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;
  /** when the oldest record not yet taken by a load was accepted (null: none) */
  private oldestAt: number | null = null;
  /**
   * when the oldest record not yet loaded was accepted (null: none): unlike oldestAt it holds while
   * a load has taken the record and not committed it, and after a failed load
   */
  private unloadedSince: number | null = null;
  /** how long the last loads took (newest last), and when the last one ended: the rest follows them */
  private loadMs: number[] = [];
  private lastEndAt = 0;
  private running: Promise<void> | null = null;
  private again = false;
  private failures = 0;
  /** records accepted (or replayed) and not yet loaded */
  private waiting = 0;
  private retryAt = 0;
  private stopped = false;
  /** on the way out: load until nothing waits */
  private draining = false;
  /** records committed by this loader */
  private committed = 0;
  /** since when accepted records have waited longer than behindMs (null: they do not), and the last warning */
  private behindSince: number | null = null;
  private behindWarnedAt = -Infinity;
  private readonly intervalMs: number;
  private readonly readableWithinMs: number;
  private readonly triggerRecords: number;
  private readonly maxBatch: number;
  private readonly behindMs: number;

  constructor(
    private readonly spool: Spool,
    private readonly store: Pick<EventStore, 'beginImport' | 'checkpoint'>,
    private readonly events: LoaderEvents = {},
    private readonly opts: LoaderOptions = {},
  ) {
    this.intervalMs = opts.intervalMs ?? 2000;
    this.readableWithinMs = opts.readableWithinMs ?? 3000;
    this.triggerRecords = opts.triggerRecords ?? 10_000;
    this.maxBatch = opts.maxBatch ?? 100_000;
    this.behindMs = opts.behindMs ?? 5000;
  }

  /** Finds the checkpoint, reports the records of earlier runs still to load, and starts the timer. */
  async start(): Promise<void> {
    this.position = (await this.store.checkpoint(this.spool.id)) ?? (await this.spool.firstPosition());
    if (this.events.replayed) {
      for (let at = this.position; ; ) {
        const { records, next } = await this.spool.read(at, 50_000);
        for (const r of records) this.events.replayed(r);
        this.waiting += records.length;
        if (records.length) {
          this.oldestAt ??= Date.now();
          this.unloadedSince ??= this.oldestAt;
        }
        if (records.length === 0 || next === at) break;
        at = next;
      }
    }
    void this.kick();
  }

  /** The collector calls this for each record it spooled. */
  accepted(): void {
    this.waiting++;
    const first = this.oldestAt === null;
    if (first) this.oldestAt = Date.now();
    this.unloadedSince ??= this.oldestAt;
    // (the load under way, if any, schedules the next when it ends)
    if (!this.running && (first || this.waiting === this.triggerRecords)) this.schedule();
  }

  /**
   * How long to rest after the last load: as long as it took, less what the oldest waiting record
   * cannot spare (the next load may take as long as the longest of the last few).
   */
  private restMs(): number {
    const last = this.loadMs.at(-1) ?? 0;
    return Math.max(0, Math.min(last, this.readableWithinMs - last - Math.max(0, ...this.loadMs)));
  }

  /** When the next load is due (Infinity: nothing waits). */
  private dueAt(): number {
    if (this.oldestAt === null && this.waiting === 0) return Infinity;
    const wanted = this.waiting >= this.triggerRecords ? 0 : (this.oldestAt ?? this.lastEndAt) + this.intervalMs;
    return Math.max(wanted, this.lastEndAt + this.restMs(), this.retryAt);
  }

  /** Arms the timer for the next due load (or loads now). */
  private schedule(): void {
    if (this.stopped || this.running) return;
    const at = this.dueAt();
    if (at === Infinity || at >= this.timerAt) return;
    const now = Date.now();
    if (at <= now) return void this.kick();
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.timerAt = Infinity;
      if (this.dueAt() <= Date.now()) void this.kick();
      else this.schedule();
    }, at - now);
    this.timer.unref();
  }

  /** Everything before this position is in the store. */
  get loadedUpTo(): number {
    return this.position;
  }

  /** What waits to become readable: operators watch it against the 5 s readability aim. */
  get backlog(): LoaderBacklog {
    return { waiting: this.waiting, oldestAcceptedAt: this.waiting > 0 ? this.unloadedSince : null };
  }

  /** How long the oldest record not yet loaded has waited at `now` (0: none waits); never short of the truth. */
  lagMs(now = Date.now()): number {
    const { oldestAcceptedAt } = this.backlog;
    return oldestAcceptedAt === null ? 0 : Math.max(0, now - oldestAcceptedAt);
  }

  /** Loads now (or right after the load under way); resolves when that load is done. */
  kick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
    this.running = this.loop().finally(() => {
      this.running = null;
      this.schedule();
    });
    return this.running;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      if (Date.now() < this.retryAt) return;
      if (this.stopped) return;
      const started = Date.now();
      try {
        const from = this.position;
        const more = await this.loadOnce();
        if (this.position !== from) {
          this.lastEndAt = Date.now();
          this.loadMs = [...this.loadMs.slice(-(RECENT_LOADS - 1)), this.lastEndAt - started];
          this.events.loadEnded?.((this.lastEndAt - started) / 1000, true);
        }
        this.failures = 0;
        this.retryAt = 0;
        if (more) this.again = true;
      } catch (err) {
        this.failures++;
        this.events.loadEnded?.((Date.now() - started) / 1000, false);
        // A store that is down is retried with backoff; the spool keeps everything meanwhile.
        const wait = Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(this.failures, 8)) * (0.5 + Math.random() / 2);
        this.retryAt = Date.now() + wait;
        this.opts.log?.warn(
          { err, failures: this.failures, retry_in_ms: Math.round(wait) },
          'collection loader: import failed; the events stay in the spool',
        );
        this.reportLag();
        return;
      }
      this.reportLag();
    } while (this.again && !this.stopped);
  }

  /** After each load: says when accepted records wait longer than behindMs, and when they no longer do. */
  private reportLag(): void {
    const now = Date.now();
    const lagMs = this.lagMs(now);
    if (lagMs > this.behindMs) {
      this.behindSince ??= now;
      if (now - this.behindWarnedAt < BEHIND_LOG_EVERY_MS) return;
      this.behindWarnedAt = now;
      this.opts.log?.warn(
        { lag_s: Math.round(lagMs / 100) / 10, waiting: this.waiting, last_load_s: Math.round((this.loadMs.at(-1) ?? 0) / 100) / 10 },
        `collection loader: accepted events wait more than ${this.behindMs / 1000} s to become readable (loads take longer than events arrive; see footfall_collection_lag_seconds)`,
      );
    } else if (this.behindSince !== null && lagMs <= this.behindMs / 2) {
      // half the bound, so that a loader hovering at it does not say so at every load
      this.opts.log?.info?.(
        { behind_s: Math.round((now - this.behindSince) / 100) / 10 },
        'collection loader: caught up; accepted events become readable within seconds again',
      );
      this.behindSince = null;
      this.behindWarnedAt = -Infinity;
    }
  }

  /** One import of the waiting records; true when more were left for another. */
  private async loadOnce(): Promise<boolean> {
    // what is accepted from now on waits for the next load (what this read takes, it takes)
    this.oldestAt = null;
    const durable = this.spool.durableEnd;
    const { records, next } = await this.spool.read(this.position, this.maxBatch);
    if (next === this.position) return false;
    const end = next;
    let ndjson = '';
    let events = 0;
    const engagement: EngagementRow[] = [];
    for (const r of records) {
      if (r.kind === 'E') {
        ndjson += r.payload + '\n';
        events++;
      } else engagement.push(JSON.parse(r.payload) as EngagementRow);
    }
    let result: ImportResult;
    try {
      const session = await this.store.beginImport({ reidentify: eventIdentity, checkpoint: { source: this.spool.id, position: end } });
      try {
        if (events) await session.appendEncoded(ndjson, events);
        if (engagement.length) await session.appendEngagement(engagement);
      } catch (err) {
        await session.abort().catch(() => undefined);
        throw err;
      }
      result = await session.commit();
    } catch (err) {
      // A commit whose answer was lost may have happened: the checkpoint says.
      const stored = await this.store.checkpoint(this.spool.id).catch(() => null);
      if (stored === null || stored < end) throw err;
      result = { imported: 0, duplicates: 0, days: [] };
    }
    this.position = end;
    this.committed += records.length;
    this.waiting = Math.max(0, this.waiting - records.length);
    const more = records.length >= this.maxBatch || next < durable;
    // What waits now was accepted since this load began (oldestAt), unless it left some from before.
    if (this.waiting === 0) this.unloadedSince = null;
    else if (!more) this.unloadedSince = this.oldestAt ?? this.unloadedSince;
    this.events.loaded?.(end, result);
    await this.spool
      .release(end)
      .catch((err: unknown) => this.opts.log?.warn({ err }, 'collection loader: could not delete a loaded spool segment'));
    // A backlog (a read stops at the end of each segment, and at maxBatch) goes on at once; otherwise
    // the next load waits for schedule().
    return more || (this.draining && records.length > 0);
  }

  /**
   * Loads everything a read-only spool (a dead process's) holds past its checkpoint, a batch at a
   * time, without a timer; `stopping` is asked between batches. Resolves with whether all of it is
   * in the store and how many records this call committed; a failed import throws (the spool keeps
   * the rest, from the checkpoint on).
   */
  async drain(stopping: () => boolean = () => false): Promise<{ done: boolean; records: number }> {
    this.position = (await this.store.checkpoint(this.spool.id)) ?? (await this.spool.firstPosition());
    this.draining = true;
    const before = this.committed;
    for (;;) {
      if (stopping()) return { done: false, records: this.committed - before };
      const at = this.position;
      await this.loadOnce();
      if (this.position === at) return { done: true, records: this.committed - before };
    }
  }

  /** Stops the timer and waits for the load under way; with `flush`, first loads what is waiting (once). */
  async stop(opts: { flush?: boolean } = {}): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
    if (opts.flush && !this.stopped) {
      this.retryAt = 0;
      this.draining = true;
      await this.kick();
    }
    this.stopped = true;
    while (this.running) await this.running.catch(() => undefined);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
