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

/** The loader's settings: its options with their defaults. */
type LoaderSettings = Required<Pick<LoaderOptions, 'intervalMs' | 'readableWithinMs' | 'triggerRecords' | 'maxBatch' | 'behindMs'>>;

/** Everything the loader keeps between calls, in one place, by what it is about. */
interface LoaderState {
  /** everything before this spool position is in the store */
  position: number;
  /** records committed by this loader */
  committed: number;
  backlog: {
    /** records accepted (or replayed) and not yet loaded */
    waiting: number;
    /** when the oldest record not yet taken by a load was accepted (null: none) */
    oldestAt: number | null;
    /**
     * when the oldest record not yet loaded was accepted (null: none): unlike oldestAt it holds while
     * a load has taken the record and not committed it, and after a failed load
     */
    unloadedSince: number | null;
  };
  pace: {
    /** how long the last loads took (newest last), and when the last one ended: the rest follows them */
    loadMs: number[];
    lastEndAt: number;
    /** failed loads in a row, and when the next may try (backoff) */
    failures: number;
    retryAt: number;
  };
  /** the next look at the spool (schedule()) */
  timer: { handle: NodeJS.Timeout | null; at: number };
  run: {
    /** the load under way, and whether another should follow it at once */
    running: Promise<void> | null;
    again: boolean;
    stopped: boolean;
    /** on the way out: load until nothing waits */
    draining: boolean;
  };
  /** since when accepted records have waited longer than behindMs (null: they do not), and the last warning */
  lag: { behindSince: number | null; warnedAt: number };
}

export class Loader {
  private readonly s: LoaderState = {
    position: 0,
    committed: 0,
    backlog: { waiting: 0, oldestAt: null, unloadedSince: null },
    pace: { loadMs: [], lastEndAt: 0, failures: 0, retryAt: 0 },
    timer: { handle: null, at: Infinity },
    run: { running: null, again: false, stopped: false, draining: false },
    lag: { behindSince: null, warnedAt: -Infinity },
  };
  private readonly settings: LoaderSettings;

  constructor(
    private readonly spool: Spool,
    private readonly store: Pick<EventStore, 'beginImport' | 'checkpoint'>,
    private readonly events: LoaderEvents = {},
    private readonly opts: LoaderOptions = {},
  ) {
    this.settings = {
      intervalMs: opts.intervalMs ?? 2000,
      readableWithinMs: opts.readableWithinMs ?? 3000,
      triggerRecords: opts.triggerRecords ?? 10_000,
      maxBatch: opts.maxBatch ?? 100_000,
      behindMs: opts.behindMs ?? 5000,
    };
  }

  /** Finds the checkpoint, reports the records of earlier runs still to load, and starts the timer. */
  async start(): Promise<void> {
    this.s.position = (await this.store.checkpoint(this.spool.id)) ?? (await this.spool.firstPosition());
    if (this.events.replayed) {
      for (let at = this.s.position; ; ) {
        const { records, next } = await this.spool.read(at, 50_000);
        for (const r of records) this.events.replayed(r);
        this.s.backlog.waiting += records.length;
        if (records.length) {
          this.s.backlog.oldestAt ??= Date.now();
          this.s.backlog.unloadedSince ??= this.s.backlog.oldestAt;
        }
        if (records.length === 0 || next === at) break;
        at = next;
      }
    }
    void this.kick();
  }

  /** The collector calls this for each record it spooled. */
  accepted(): void {
    this.s.backlog.waiting++;
    const first = this.s.backlog.oldestAt === null;
    if (first) this.s.backlog.oldestAt = Date.now();
    this.s.backlog.unloadedSince ??= this.s.backlog.oldestAt;
    // (the load under way, if any, schedules the next when it ends)
    if (!this.s.run.running && (first || this.s.backlog.waiting === this.settings.triggerRecords)) this.schedule();
  }

  /**
   * How long to rest after the last load: as long as it took, less what the oldest waiting record
   * cannot spare (the next load may take as long as the longest of the last few).
   */
  private restMs(): number {
    const last = this.s.pace.loadMs.at(-1) ?? 0;
    return Math.max(0, Math.min(last, this.settings.readableWithinMs - last - Math.max(0, ...this.s.pace.loadMs)));
  }

  /** When the next load is due (Infinity: nothing waits). */
  private dueAt(): number {
    if (this.s.backlog.oldestAt === null && this.s.backlog.waiting === 0) return Infinity;
    const wanted =
      this.s.backlog.waiting >= this.settings.triggerRecords
        ? 0
        : (this.s.backlog.oldestAt ?? this.s.pace.lastEndAt) + this.settings.intervalMs;
    return Math.max(wanted, this.s.pace.lastEndAt + this.restMs(), this.s.pace.retryAt);
  }

  /** Arms the timer for the next due load (or loads now). */
  private schedule(): void {
    if (this.s.run.stopped || this.s.run.running) return;
    const at = this.dueAt();
    if (at === Infinity || at >= this.s.timer.at) return;
    const now = Date.now();
    if (at <= now) return void this.kick();
    if (this.s.timer.handle) clearTimeout(this.s.timer.handle);
    this.s.timer.at = at;
    this.s.timer.handle = setTimeout(() => {
      this.s.timer.handle = null;
      this.s.timer.at = Infinity;
      if (this.dueAt() <= Date.now()) void this.kick();
      else this.schedule();
    }, at - now);
    this.s.timer.handle.unref();
  }

  /** Everything before this position is in the store. */
  get loadedUpTo(): number {
    return this.s.position;
  }

  /** What waits to become readable: operators watch it against the 5 s readability aim. */
  get backlog(): LoaderBacklog {
    return { waiting: this.s.backlog.waiting, oldestAcceptedAt: this.s.backlog.waiting > 0 ? this.s.backlog.unloadedSince : null };
  }

  /** How long the oldest record not yet loaded has waited at `now` (0: none waits); never short of the truth. */
  lagMs(now = Date.now()): number {
    const { oldestAcceptedAt } = this.backlog;
    return oldestAcceptedAt === null ? 0 : Math.max(0, now - oldestAcceptedAt);
  }

  /** Loads now (or right after the load under way); resolves when that load is done. */
  kick(): Promise<void> {
    if (this.s.run.stopped) return Promise.resolve();
    if (this.s.run.running) {
      this.s.run.again = true;
      return this.s.run.running;
    }
    if (this.s.timer.handle) clearTimeout(this.s.timer.handle);
    this.s.timer.handle = null;
    this.s.timer.at = Infinity;
    this.s.run.running = this.loop().finally(() => {
      this.s.run.running = null;
      this.schedule();
    });
    return this.s.run.running;
  }

  private async loop(): Promise<void> {
    do {
      this.s.run.again = false;
      if (Date.now() < this.s.pace.retryAt) return;
      if (this.s.run.stopped) return;
      const started = Date.now();
      try {
        const from = this.s.position;
        const more = await this.loadOnce();
        if (this.s.position !== from) {
          this.s.pace.lastEndAt = Date.now();
          this.s.pace.loadMs = [...this.s.pace.loadMs.slice(-(RECENT_LOADS - 1)), this.s.pace.lastEndAt - started];
          this.events.loadEnded?.((this.s.pace.lastEndAt - started) / 1000, true);
        }
        this.s.pace.failures = 0;
        this.s.pace.retryAt = 0;
        if (more) this.s.run.again = true;
      } catch (err) {
        this.s.pace.failures++;
        this.events.loadEnded?.((Date.now() - started) / 1000, false);
        // A store that is down is retried with backoff; the spool keeps everything meanwhile.
        const wait = Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(this.s.pace.failures, 8)) * (0.5 + Math.random() / 2);
        this.s.pace.retryAt = Date.now() + wait;
        this.opts.log?.warn(
          { err, failures: this.s.pace.failures, retry_in_ms: Math.round(wait) },
          'collection loader: import failed; the events stay in the spool',
        );
        this.reportLag();
        return;
      }
      this.reportLag();
    } while (this.s.run.again && !this.s.run.stopped);
  }

  /** After each load: says when accepted records wait longer than behindMs, and when they no longer do. */
  private reportLag(): void {
    const now = Date.now();
    const lagMs = this.lagMs(now);
    if (lagMs > this.settings.behindMs) {
      this.s.lag.behindSince ??= now;
      if (now - this.s.lag.warnedAt < BEHIND_LOG_EVERY_MS) return;
      this.s.lag.warnedAt = now;
      this.opts.log?.warn(
        {
          lag_s: Math.round(lagMs / 100) / 10,
          waiting: this.s.backlog.waiting,
          last_load_s: Math.round((this.s.pace.loadMs.at(-1) ?? 0) / 100) / 10,
        },
        `collection loader: accepted events wait more than ${this.settings.behindMs / 1000} s to become readable (loads take longer than events arrive; see footfall_collection_lag_seconds)`,
      );
    } else if (this.s.lag.behindSince !== null && lagMs <= this.settings.behindMs / 2) {
      // half the bound, so that a loader hovering at it does not say so at every load
      this.opts.log?.info?.(
        { behind_s: Math.round((now - this.s.lag.behindSince) / 100) / 10 },
        'collection loader: caught up; accepted events become readable within seconds again',
      );
      this.s.lag.behindSince = null;
      this.s.lag.warnedAt = -Infinity;
    }
  }

  /** One import of the waiting records; true when more were left for another. */
  private async loadOnce(): Promise<boolean> {
    // what is accepted from now on waits for the next load (what this read takes, it takes)
    this.s.backlog.oldestAt = null;
    const durable = this.spool.durableEnd;
    const { records, next } = await this.spool.read(this.s.position, this.settings.maxBatch);
    if (next === this.s.position) return false;
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
    this.s.position = end;
    this.s.committed += records.length;
    this.s.backlog.waiting = Math.max(0, this.s.backlog.waiting - records.length);
    const more = records.length >= this.settings.maxBatch || next < durable;
    // What waits now was accepted since this load began (oldestAt), unless it left some from before.
    if (this.s.backlog.waiting === 0) this.s.backlog.unloadedSince = null;
    else if (!more) this.s.backlog.unloadedSince = this.s.backlog.oldestAt ?? this.s.backlog.unloadedSince;
    this.events.loaded?.(end, result);
    await this.spool
      .release(end)
      .catch((err: unknown) => this.opts.log?.warn({ err }, 'collection loader: could not delete a loaded spool segment'));
    // A backlog (a read stops at the end of each segment, and at maxBatch) goes on at once; otherwise
    // the next load waits for schedule().
    return more || (this.s.run.draining && records.length > 0);
  }

  /**
   * Loads everything a read-only spool (a dead process's) holds past its checkpoint, a batch at a
   * time, without a timer; `stopping` is asked between batches. Resolves with whether all of it is
   * in the store and how many records this call committed; a failed import throws (the spool keeps
   * the rest, from the checkpoint on).
   */
  async drain(stopping: () => boolean = () => false): Promise<{ done: boolean; records: number }> {
    this.s.position = (await this.store.checkpoint(this.spool.id)) ?? (await this.spool.firstPosition());
    this.s.run.draining = true;
    const before = this.s.committed;
    for (;;) {
      if (stopping()) return { done: false, records: this.s.committed - before };
      const at = this.s.position;
      await this.loadOnce();
      if (this.s.position === at) return { done: true, records: this.s.committed - before };
    }
  }

  /** Stops the timer and waits for the load under way; with `flush`, first loads what is waiting (once). */
  async stop(opts: { flush?: boolean } = {}): Promise<void> {
    if (this.s.timer.handle) clearTimeout(this.s.timer.handle);
    this.s.timer.handle = null;
    this.s.timer.at = Infinity;
    if (opts.flush && !this.s.run.stopped) {
      this.s.pace.retryAt = 0;
      this.s.run.draining = true;
      await this.kick();
    }
    this.s.run.stopped = true;
    while (this.s.run.running) await this.s.run.running.catch(() => undefined);
    if (this.s.timer.handle) clearTimeout(this.s.timer.handle);
    this.s.timer.handle = null;
  }
}
