// The one place that picks implementations from the configuration.
import type { Config } from './config/config.js';
import { systemClock, type Clock } from './domain/clock.js';
import type { CatalogStore } from './ports/catalog-store.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import type { UsageLedger } from './ports/usage-ledger.js';
import { openControlPlane } from './control/open-control-plane.js';
import { MemoryResponseCache } from './cache/memory-response-cache.js';
import { DuckDbAnalyticsEngine } from './engines/duckdb/analytics-engine.js';
import { duckdbReportRunner } from './services/reports/queries/duckdb-report-runner.js';
import { openEventStore } from './engines/duckdb/open-event-store.js';
import { MemoryRateLimiter } from './limits/memory.js';
import { openRedisRateLimiter } from './limits/redis.js';
import type { AnalyticsDeps, AppDeps, EventsSlot } from './services/deps.js';

export interface Container<Events extends EventsSlot = EventsSlot> extends AppDeps<Events> {
  /** Closes every store the container opened (not those passed in as overrides). Idempotent. */
  close(): Promise<void>;
}

export interface ContainerOverrides<Events extends EventsSlot = EventsSlot> {
  clock?: Clock;
  /** catalog and ledger come together: they share one control-plane store */
  control?: { catalog: CatalogStore; ledger: UsageLedger };
  limiter?: RateLimiter;
  /** with events: the store the app reads analytics from; without analytics, none (503) */
  events?: Events;
  analytics?: AnalyticsDeps;
}

export class UnsupportedStoreError extends Error {
  readonly code = 'NOT_SUPPORTED';
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedStoreError';
  }
}

export async function buildContainer<Events extends EventsSlot = EventsSlot>(
  config: Readonly<Config>,
  overrides: ContainerOverrides<Events> = {},
): Promise<Container<Events>> {
  // The control plane (SQLite or PostgreSQL) is picked by openControlPlane.
  // Refuse every unsupported store up front, naming them all, before opening anything.
  const unsupported: string[] = [];
  if (config.eventsUrl !== undefined && !overrides.events)
    unsupported.push('a ClickHouse events store (FOOTFALL_EVENTS_URL / --events-url) is not supported yet; unset it to use DuckDB in the data dir');
  if (unsupported.length) throw new UnsupportedStoreError(unsupported.join('\n'));

  const clock = overrides.clock ?? systemClock;
  const closers: Array<() => Promise<void>> = [];
  let control = overrides.control;
  if (!control) {
    const cp = await openControlPlane(config, { clock });
    closers.push(() => cp.close());
    control = cp;
  }
  let limiter = overrides.limiter;
  if (!limiter) {
    // Redis when configured: one exact sliding log shared by every API process.
    const own = config.redisUrl ? await openRedisRateLimiter(config.redisUrl) : new MemoryRateLimiter();
    closers.push(() => own.close());
    limiter = own;
  }

  let events = overrides.events;
  let analytics = overrides.analytics;
  if (!events) {
    // DuckDB in the data dir: the one store the read API and (via the admin socket) imports share.
    const store = await openEventStore(config).catch(async (err) => {
      for (const c of closers.reverse()) await c().catch(() => undefined);
      throw err;
    });
    closers.push(() => store.close());
    events = store as unknown as Events;
    analytics ??= {
      engine: new DuckDbAnalyticsEngine({ connect: () => store.instance.connect(), release: (c) => c.closeSync() }),
      reports: duckdbReportRunner({ connect: () => store.instance.connect(), release: (c) => c.closeSync() }),
      cache: new MemoryResponseCache(),
      dataVersion: (siteId) => store.dataVersion(siteId),
    };
  }

  let closing: Promise<void> | undefined;
  return {
    config,
    clock,
    catalog: control.catalog,
    ledger: control.ledger,
    limiter,
    events,
    analytics,
    close: () =>
      (closing ??= (async () => {
        // Close in reverse order of opening; keep going past a failure so nothing stays open.
        const errors: unknown[] = [];
        for (const c of closers.reverse()) await c().catch((e) => errors.push(e));
        if (errors.length) throw errors[0];
      })()),
  };
}
