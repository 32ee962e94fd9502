// Loads the spools no live process holds: those of processes that died (kill -9, a crash) or
// stopped and did not come back. Each is taken with its ProcessLock (so one process only loads it),
// loaded from its own checkpoint to its end (its records keep their ids; the checkpoint committed
// with each batch keeps a spool taken over again after a crash from loading anything twice), then
// removed. A process sharing its data dir looks every few seconds; one that owns it alone, at start.
import type { EventStore } from '../../ports/event-store.js';
import { Loader, type LoaderOptions } from './loader.js';
import { Spool } from './spool.js';
import { listSpools, takeSpoolLock } from './spool-root.js';

export interface OrphanLoaderOptions {
  /** the spool root, `<data dir>/spool` */
  root: string;
  /** this process's own spool (never an orphan) */
  own: string;
  store: Pick<EventStore, 'beginImport' | 'checkpoint'>;
  /** look again this often (ms); null: only once, at start */
  intervalMs: number | null;
  loader?: Pick<LoaderOptions, 'maxBatch' | 'log'>;
}

export class OrphanLoader {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  /** spools this loader loaded and removed, with the records it committed from them */
  readonly loaded: { dir: string; records: number }[] = [];

  constructor(private readonly opts: OrphanLoaderOptions) {}

  start(): void {
    void this.scan();
    if (this.opts.intervalMs !== null) {
      this.timer = setInterval(() => void this.scan(), this.opts.intervalMs);
      this.timer.unref();
    }
  }

  /** Looks for orphans now (or waits for the look under way); resolves when it is done. */
  scan(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= this.loadAll().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async loadAll(): Promise<void> {
    for (const dir of await listSpools(this.opts.root)) {
      if (this.stopped) return;
      if (dir === this.opts.own) continue;
      const lock = takeSpoolLock(dir);
      if (!lock) continue;
      try {
        await this.loadOne(dir, lock);
      } catch (err) {
        // Left for the next look (here or in another process): the checkpoint says where to go on.
        this.opts.loader?.log?.warn({ err, spool: dir }, 'collection: could not load the spool of a stopped process; retrying later');
      }
    }
  }

  private async loadOne(dir: string, lock: NonNullable<ReturnType<typeof takeSpoolLock>>): Promise<void> {
    const spool = await Spool.open(dir, { lock, readOnly: true });
    let removed = false;
    try {
      const loader = new Loader(spool, this.opts.store, {}, { maxBatch: this.opts.loader?.maxBatch });
      const { done, records } = await loader.drain(() => this.stopped);
      if (!done) return;
      await spool.remove();
      removed = true;
      this.loaded.push({ dir, records });
      if (records > 0)
        this.opts.loader?.log?.warn(
          { spool: dir, records },
          'collection: loaded the spool a stopped process left (it had not loaded these records)',
        );
    } finally {
      if (!removed) await spool.close();
    }
  }

  /** Stops looking; a spool being loaded stops after its current batch (the next look goes on from its checkpoint). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.running) await this.running.catch(() => undefined);
  }
}
