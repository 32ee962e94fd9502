// Live collection of one serving process: its spool (one of the data dir's, spool-root.ts), the
// loader into the event store (replaying what an earlier run left), the loader of the spools other
// processes left, and the collector POST /api/event hands requests to.
import type { Clock } from '../../domain/clock.js';
import type { CatalogStore } from '../../ports/catalog-store.js';
import type { EventCollector } from '../../ports/event-collector.js';
import { decodeEventRow, type EventStore } from '../../ports/event-store.js';
import type { GeoLookup } from '../../ports/geo-lookup.js';
import type { Metrics } from '../../ports/metrics.js';
import { Collector } from './collector.js';
import { Loader, type LoaderOptions } from './loader.js';
import { OrphanLoader } from './orphan-loader.js';
import { SitesProgress } from './sites-progress.js';
import type { SpoolOptions } from './spool.js';
import { openOwnSpool } from './spool-root.js';
import type { SpoolRecord } from './spool-format.js';

export interface LiveCollection {
  collector: EventCollector;
  /** loads what waits now (tests, shutdown); resolves when that load is done */
  flush(): Promise<void>;
  /** the server has stopped accepting: loads what waits (once), then closes the spool */
  close(): Promise<void>;
}

export interface OpenCollectionOptions {
  /** the spool root, `<data dir>/spool`: this process's spool is one directory in it */
  dir: string;
  /**
   * other processes serve the same data dir (their stores take writers from every process): each
   * keeps a spool, and the spools of those that stop are loaded by those still running. Otherwise
   * this process owns the data dir, and a second one is refused.
   */
  shared?: boolean;
  /** how often a shared data dir is looked at for spools of stopped processes (default 5000 ms) */
  orphanIntervalMs?: number;
  catalog: Pick<CatalogStore, 'findSiteByHostname' | 'listTenants' | 'getOrCreateSecret'>;
  store: Pick<EventStore, 'beginImport' | 'checkpoint'>;
  clock: Clock;
  /** opened on the first event (a geolocation database is large; a server that collects nothing never loads it) */
  geo: () => GeoLookup | null;
  loader?: LoaderOptions;
  spool?: SpoolOptions;
  /** where the loader's backlog and loads are reported (the process's own spool; not the orphans') */
  metrics?: Pick<Metrics, 'collectionBacklog' | 'collectionLoad'>;
}

export async function openCollection(opts: OpenCollectionOptions): Promise<LiveCollection> {
  const shared = opts.shared ?? false;
  const { spool, rootLock } = await openOwnSpool(opts.dir, { shared, spool: opts.spool });
  let orphans: OrphanLoader | undefined;
  try {
    const progress = await SitesProgress.open(spool.dir);
    const loader: Loader = new Loader(
      spool,
      opts.store,
      {
        replayed: (r) => {
          const at = siteAndTime(r);
          if (at) progress.accepted(at.site, at.ts, r.end, loader.loadedUpTo);
        },
        loaded: () => void progress.save(),
        loadEnded: (seconds, ok) => opts.metrics?.collectionLoad?.(seconds, ok),
      },
      opts.loader,
    );
    opts.metrics?.collectionBacklog?.(() => ({ waiting: loader.backlog.waiting, lagSeconds: loader.lagMs() / 1000 }));
    await loader.start();
    orphans = new OrphanLoader({
      root: opts.dir,
      own: spool.dir,
      store: opts.store,
      intervalMs: shared ? (opts.orphanIntervalMs ?? 5000) : null,
      loader: { maxBatch: opts.loader?.maxBatch, log: opts.loader?.log },
    });
    orphans.start();
    const collector = new Collector({ catalog: opts.catalog, clock: opts.clock, spool, loader, geo: opts.geo, progress });
    let closing: Promise<void> | undefined;
    return {
      collector,
      flush: () => loader.kick(),
      close: () =>
        (closing ??= (async () => {
          try {
            await orphans?.stop();
            await loader.stop({ flush: true });
            await progress.save();
          } finally {
            await spool.close();
            rootLock?.release();
          }
        })()),
    };
  } catch (err) {
    await orphans?.stop();
    await spool.close();
    rootLock?.release();
    throw err;
  }
}

/** The site and time of a spooled record (an encoded event row, or an engagement row's JSON). */
function siteAndTime(r: SpoolRecord): { site: string; ts: number } | null {
  try {
    if (r.kind === 'E') {
      const row = decodeEventRow(r.payload);
      return { site: row.site_id, ts: row.ts_ms };
    }
    const g = JSON.parse(r.payload) as { site_id: string; ts_ms: number };
    return { site: g.site_id, ts: g.ts_ms };
  } catch {
    return null;
  }
}
