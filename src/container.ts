// The one place that picks implementations from the configuration.
import type { Config } from './config/config.js';
import { systemClock, type Clock } from './domain/clock.js';
import type { CatalogStore } from './ports/catalog-store.js';
import { timedCalls, type Metrics, type MetricsExposition } from './ports/metrics.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import type { UsageLedger } from './ports/usage-ledger.js';
import { openControlPlane } from './control/open-control-plane.js';
import { MemoryResponseCache } from './cache/memory-response-cache.js';
import { PrometheusMetrics } from './http/metrics/prometheus-metrics.js';
import { DuckDbAnalyticsEngine } from './engines/duckdb/analytics-engine.js';
import { duckdbReportRunner } from './engines/duckdb/report-runner.js';
import { openClickHouse } from './engines/clickhouse/open-clickhouse.js';
import { clickhouseReportRunner } from './engines/clickhouse/report-runner.js';
import { engineError } from './engines/clickhouse/node.js';
import { openEventStore } from './engines/duckdb/open-event-store.js';
import { MemoryRateLimiter } from './limits/memory.js';
import { openRedisRateLimiter } from './limits/redis.js';
import type { AnalyticsDeps, AppDeps, EventsSlot } from './services/deps.js';
import path from 'node:path';
import type { EventStore } from './ports/event-store.js';
import { openGeoLookup } from './ingest/parse/mmdb-geo-lookup.js';
import { openCollection, type LiveCollection } from './ingest/collect/open-collection.js';
import type { LoaderOptions } from './ingest/collect/loader.js';

export interface Container<Events extends EventsSlot = EventsSlot> extends AppDeps<Events> {
  /** what the metrics listener serves; set when config.metricsPort is */
  exposition?: MetricsExposition;
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
  /** AnalyticsDeps.notes of the analytics the container opens (e.g. `npm start` loading the demo) */
  analyticsNotes?: (siteId: string) => string[];
  /** counts kept (and served) even without a metrics port, e.g. by tests */
  metrics?: Metrics & MetricsExposition;
}

export async function buildContainer<Events extends EventsSlot = EventsSlot>(
  config: Readonly<Config>,
  overrides: ContainerOverrides<Events> = {},
): Promise<Container<Events>> {
  const clock = overrides.clock ?? systemClock;
  const metrics = overrides.metrics ?? (config.metricsPort !== undefined ? new PrometheusMetrics() : undefined);
  /** engine calls timed by engine name when metrics are kept */
  const timed = <T extends object>(port: T, engine: string): T =>
    metrics ? timedCalls(port, (seconds, ok) => metrics.engineQuery(engine, seconds, ok)) : port;
  const closers: Array<() => Promise<void>> = [];
  const closeOpened = async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  let events = overrides.events;
  let analytics = overrides.analytics;
  try {
    if (!events && config.eventsUrl !== undefined) {
      // ClickHouse first: a URL that cannot be served stops start-up before anything is created locally.
      // Every process (API servers and importers) reads and writes the same tables.
      const ch = await openClickHouse(config.eventsUrl);
      closers.push(() => ch.close());
      events = ch.store as unknown as Events;
      analytics ??= {
        engine: timed(ch.engine, 'clickhouse'),
        reports: timed(clickhouseReportRunner({ coordinator: ch.nodes[0], shards: ch.nodes, layout: ch.layout }), 'clickhouse'),
        // per process; keys carry the data version read from the shared commit log, so an import by any
        // process is seen by every process's cache
        cache: new MemoryResponseCache(),
        // read before the query (cache key): a store that is down must answer 503 like the query would
        dataVersion: (siteId) =>
          ch.store.dataVersion(siteId).catch((e: unknown) => {
            throw engineError(e, false);
          }),
        notes: overrides.analyticsNotes,
      };
    }

    // The control plane (SQLite or PostgreSQL) is picked by openControlPlane.
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

    if (!events) {
      // DuckDB in the data dir: the one store the read API and (via the admin socket) imports share.
      const store = await openEventStore(config);
      closers.push(() => store.close());
      events = store as unknown as Events;
      const conn = { connect: () => store.instance.connect(), release: (c: { closeSync(): void }) => c.closeSync() };
      analytics ??= {
        engine: timed(new DuckDbAnalyticsEngine(conn), 'duckdb'),
        reports: timed(duckdbReportRunner({ ...conn, pageTitlesRollup: true }), 'duckdb'),
        cache: new MemoryResponseCache(),
        dataVersion: (siteId) => store.dataVersion(siteId),
        notes: overrides.analyticsNotes,
      };
    }
    return { ...assemble(config, clock, control, limiter, events, analytics, closers), metrics, exposition: metrics };
  } catch (err) {
    await closeOpened();
    throw err;
  }
}

function assemble<Events extends EventsSlot>(
  config: Readonly<Config>,
  clock: Clock,
  control: { catalog: CatalogStore; ledger: UsageLedger },
  limiter: RateLimiter,
  events: Events | undefined,
  analytics: AnalyticsDeps | undefined,
  closers: Array<() => Promise<void>>,
): Container<Events> {
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

/**
 * Live collection of a serving process (POST /api/event): its spool in the data dir, loading into the
 * container's event store. Null without an event store that takes imports.
 */
export async function openLiveCollection(
  config: Readonly<Config>,
  container: Pick<AppDeps, 'catalog' | 'clock' | 'events'>,
  options: Pick<LoaderOptions, 'log' | 'intervalMs'> = {},
): Promise<LiveCollection | null> {
  const events = container.events as Partial<EventStore> | undefined;
  if (typeof events?.beginImport !== 'function' || typeof events.checkpoint !== 'function') return null;
  // A database named explicitly is opened now, so a bad file stops the start; the bundled one (large)
  // only when the first event arrives.
  const explicit = config.geoipDb !== undefined && config.geoipDb !== 'off' ? openGeoLookup(config.geoipDb) : undefined;
  return openCollection({
    dir: path.join(config.dataDir, 'spool'),
    catalog: container.catalog,
    store: events as EventStore,
    clock: container.clock,
    geo: () => (explicit !== undefined ? explicit : openGeoLookup(config.geoipDb)),
    loader: options,
  });
}
