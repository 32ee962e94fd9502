// The demo's traffic loaded into a store that is already serving (`npm start`): newest week first,
// then the rest, each part one import, so the default "last 7 days" reads are complete within seconds
// and everything is readable within about a minute on this kind of machine. Until then, reads of a
// demo site say what is loaded (AnalyticsDeps.notes -> meta.surface.dataFreshness.notes).
import type { CatalogStore } from '../../ports/catalog-store.js';
import type { EventStore } from '../../ports/event-store.js';
import { reidentify } from '../pipeline/import-lines.js';
import { importDemoTraffic, type DemoTraffic } from './seed-demo.js';

const DAY_MS = 86_400_000;
/** The first part: the days of the API's default range (docs/product.md §8.8: the 7 days ending today). */
const FIRST_DAYS = 7;

export class DemoLoad {
  private readonly sites: Set<string>;
  private loadedFromMs: number | null = null;
  private finished = false;
  private readonly stopper = new AbortController();
  private running: Promise<unknown> | null = null;

  constructor(readonly traffic: DemoTraffic) {
    this.sites = new Set(traffic.sites.map((s) => s.id));
  }

  /** What a read of `siteId` should know while the demo loads. */
  notes(siteId: string): string[] {
    if (this.finished || !this.sites.has(siteId)) return [];
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const first = day(this.traffic.startDayMs);
    if (this.loadedFromMs === null) return [`The demo traffic (${first} to today) is still loading: nothing of it is readable yet.`];
    return [
      `The demo traffic is still loading: ${day(this.loadedFromMs)} to today is readable, ${first} to ${day(this.loadedFromMs - DAY_MS)} follows shortly.`,
    ];
  }

  /**
   * Imports the traffic in two parts (each all-or-nothing); re-running it adds nothing twice. `stopped`:
   * stop() ended it first; the part under way was not stored and a later run loads it.
   */
  run(catalog: CatalogStore, store: EventStore): Promise<{ imported: number; stopped: boolean }> {
    const running = this.load(catalog, store);
    this.running = running;
    return running;
  }

  /** Stops a run at its next chunk and waits for it to end (before its store is closed). */
  async stop(): Promise<void> {
    this.stopper.abort(new DemoLoadStopped());
    await this.running?.catch(() => undefined);
  }

  private async load(catalog: CatalogStore, store: EventStore): Promise<{ imported: number; stopped: boolean }> {
    const lastDayMs = this.traffic.startDayMs + (this.traffic.days - 1) * DAY_MS;
    const splitMs = Math.max(this.traffic.startDayMs, lastDayMs - (FIRST_DAYS - 1) * DAY_MS);
    const parts = [{ fromDayMs: splitMs, toDayMs: lastDayMs }];
    if (splitMs > this.traffic.startDayMs) parts.push({ fromDayMs: this.traffic.startDayMs, toDayMs: splitMs - DAY_MS });
    let imported = 0;
    for (const days of parts) {
      if (this.stopper.signal.aborted) return { imported, stopped: true };
      const sink = await store.beginImport({ reidentify });
      try {
        // small chunks: the serving process's event loop gets a turn between them
        imported += (await importDemoTraffic({ catalog, sink, traffic: this.traffic, days, chunkSize: 5_000, signal: this.stopper.signal }))
          .imported;
      } catch (err) {
        if (err instanceof DemoLoadStopped) return { imported, stopped: true };
        throw err;
      }
      this.loadedFromMs = days.fromDayMs;
    }
    this.finished = true;
    return { imported, stopped: false };
  }
}

class DemoLoadStopped extends Error {
  constructor() {
    super('the demo traffic load was stopped');
  }
}
