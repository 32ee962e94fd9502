// The one place that picks implementations from the configuration: for the server (buildContainer),
// and for the command line and imports (openControlStores, openImportStores), which get their stores
// from here too.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config/config.js';
import { systemClock, type Clock } from './domain/clock.js';
import type { AnalyticsEngine } from './ports/analytics-engine.js';
import type { CatalogStore } from './ports/catalog-store.js';
import type { PasswordHasher } from './ports/password-hasher.js';
import type { PeopleStore } from './ports/people-store.js';
import type { EmbedStore } from './ports/embed-store.js';
import { timedCalls, type Metrics, type MetricsExposition } from './ports/metrics.js';
import type { EventStore, TableRows } from './ports/event-store.js';
import type { CommitLock } from './ports/commit-lock.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import type { UsageLedger } from './ports/usage-ledger.js';
import { CONTROL_SQLITE_FILE, openControlPlane } from './control/open-control-plane.js';
import type { ControlPlane } from './control/sqlite/open.js';
import { MemoryResponseCache } from './cache/memory-response-cache.js';
import type { ImportTarget } from './ingest/pipeline/import-target.js';
import type { ImportStores } from './ingest/pipeline/run-import.js';
import { AdminClient } from './ingest/admin/admin-socket-client.js';
import type { LifecycleStore } from './services/lifecycle/lifecycle-deps.js';
import type { LifecycleControl } from './ports/lifecycle-control.js';
import { allowanceSamples } from './services/lifecycle/event-usage.js';
import { MemoryRateLimiter } from './limits/memory.js';
import type { AnalyticsDeps, AppDeps } from './services/deps.js';
import type { LiveCollection } from './ingest/collect/open-collection.js';
import type { LoaderOptions } from './ingest/collect/loader.js';
import type { DnsTxtResolver } from './ports/dns-txt-resolver.js';
import { NodeDnsTxtResolver } from './dns/node-dns-txt-resolver.js';
import type { TakeSnapshot } from './ports/backup.js';
import { SPOOL_DIR, snapshotDataDir } from './container-backup.js';
// The composition root's parts, kept in files of their own; commands reach them here, as every store.
export { codeVersions, inspectStoreFiles } from './container-backup.js';
export { openMailer } from './container-mail.js';
import type { Mailer } from './ports/mailer.js';
import type { ReportStore } from './ports/report-store.js';
import { openMailer } from './container-mail.js';

// The engines, the Redis client, prom-client, argon2, the import pipeline and the geolocation reader
// are imported where they are opened: a command loads what it uses, and `footfall --help` none of it.

/** The analytics store the configuration names, opened: its write side, its read side, and how imports reach it. */
export interface AnalyticsBackend {
  store: EventStore;
  /** every read, and the data version (cache keys, one snapshot per request) */
  engine: AnalyticsEngine;
  /** one process owns the store (DuckDB's file): other processes import through its admin socket */
  adminImports: boolean;
  /** the embedded stores only: a consistent copy of the data dir's stores into a directory (`footfall backup`) */
  snapshot?: TakeSnapshot;
  close(): Promise<void>;
}

type StoreConfig = Pick<Config, 'dataDir' | 'eventsUrl'>;

/** DuckDB in the data dir, whose file one process owns; else ClickHouse, which takes writers from any process. */
const embedded = (config: StoreConfig) => config.eventsUrl === undefined;

/** Opens the analytics backend: the server, the command line and imports all open it here. */
export async function openAnalyticsBackend(config: StoreConfig, opts: { commitLock?: CommitLock } = {}): Promise<AnalyticsBackend> {
  if (!embedded(config)) {
    // Every process (API servers and importers) reads and writes the same tables; the control
    // plane's commit lock orders their commit points.
    const { openClickHouse } = await import('./engines/clickhouse/open-clickhouse.js');
    const ch = await openClickHouse(config.eventsUrl!, { commitLock: opts.commitLock });
    return { store: ch.store, engine: ch.engine, adminImports: false, close: () => ch.close() };
  }
  const [{ openEventStore }, { DuckDbAnalyticsEngine }] = await Promise.all([
    import('./engines/duckdb/open-event-store.js'),
    import('./engines/duckdb/duckdb-analytics-engine.js'),
  ]);
  const store = await openEventStore(config);
  const engine = new DuckDbAnalyticsEngine({
    connect: () => store.instance.connect(),
    release: (c) => c.closeSync(),
    dataVersion: (siteId) => store.dataVersion(siteId),
    liveFrom: (siteId) => store.liveFromFor(siteId),
    edges: (siteId) => store.edges.of(siteId),
  });
  return { store, engine, adminImports: true, snapshot: (dir) => snapshotDataDir(config.dataDir, store, dir), close: () => store.close() };
}

/** Where `footfall backup` takes its snapshot: the running server, or the stores opened here. */
export interface BackupSource {
  via: 'server' | 'store';
  snapshot: TakeSnapshot;
  close(): Promise<void>;
}

/** The data dir holds no control plane: nothing to back up there. */
export class NotADataDirError extends Error {
  readonly code = 'NOT_A_DATA_DIR';
  constructor(dataDir: string) {
    super(`${dataDir} holds no footfall data (no ${CONTROL_SQLITE_FILE}): name the data dir to back up with --data-dir`);
    this.name = 'NotADataDirError';
  }
}

/**
 * The embedded stores' snapshot for `footfall backup`: through the admin socket when a server owns the data
 * dir (only it may hold DuckDB's file and its commit lock), else the events store opened here, whose file
 * lock keeps a server from starting on the data dir until the snapshot is written.
 */
export async function openBackupSource(config: Pick<Config, 'dataDir' | 'eventsUrl'> & StoreLimits): Promise<BackupSource> {
  const client = await AdminClient.connect(config.dataDir);
  if (client) return { via: 'server', snapshot: (dir) => client.backup(dir), close: async () => client.close() };
  if (!fs.existsSync(path.join(config.dataDir, CONTROL_SQLITE_FILE))) throw new NotADataDirError(config.dataDir);
  const backend = await openAnalyticsBackend(config);
  if (!backend.snapshot) {
    await backend.close();
    throw new Error('only the embedded stores are backed up by footfall backup');
  }
  return { via: 'store', snapshot: backend.snapshot, close: () => backend.close() };
}

type StoreLimits = Partial<Pick<Config, 'duckdbMemoryLimit' | 'duckdbTempDir' | 'duckdbTempLimit' | 'duckdbThreads'>>;

/**
 * Where an import writes: the running server's admin socket when DuckDB's file is one process's and a
 * server serves the data dir, else the store itself (as openLifecycleStores chooses for purges).
 */
export async function openImportTarget(config: StoreConfig, opts: { commitLock?: CommitLock } = {}): Promise<ImportTarget> {
  const client = embedded(config) ? await AdminClient.connect(config.dataDir) : null;
  if (client) return { via: 'server', begin: (o) => client.beginImport(o?.importId), close: async () => client.close() };
  const [{ reidentify }, opened] = await Promise.all([import('./ingest/pipeline/import-lines.js'), openAnalyticsBackend(config, opts)]);
  return { via: 'store', begin: (o) => opened.store.beginImport({ reidentify, importId: o?.importId }), close: () => opened.close() };
}

/** What a lifecycle command (purge, delete, undo, usage) works with: the control plane and the store's lifecycle side. */
export interface LifecycleStores {
  control: ControlPlane;
  store: LifecycleStore;
  /** the running server's store through its admin socket, or the store opened here */
  via: 'server' | 'store';
  /** the store's rows per table and server (EventStore.tableRows), when the store was opened here */
  tableRows?: () => Promise<TableRows[]>;
  close(): Promise<void>;
}

/**
 * Opens the control plane, then the event store's lifecycle side: through the running server's admin socket
 * when it owns the embedded store, else the store itself (ClickHouse takes every process).
 */
export async function openLifecycleStores(config: Pick<Config, 'dataDir' | 'controlUrl' | 'eventsUrl'>): Promise<LifecycleStores> {
  const control = await openControlPlane(config);
  try {
    const client = embedded(config) ? await AdminClient.connect(config.dataDir) : null;
    if (client) {
      const close = async () => {
        client.close();
        await control.close();
      };
      return { control, store: client.lifecycleStore(), via: 'server', close };
    }
    const backend = await openAnalyticsBackend(config, { commitLock: control.commitLock });
    const close = async () => {
      try {
        await backend.close();
      } finally {
        await control.close();
      }
    };
    const rows = backend.store.tableRows?.bind(backend.store);
    return { control, store: backend.store, via: 'store', ...(rows ? { tableRows: rows } : {}), close };
  } catch (err) {
    await control.close();
    throw err;
  }
}

/** The control plane (SQLite in the data dir or PostgreSQL) for a command. */
export function openControlStores(config: Pick<Config, 'dataDir' | 'controlUrl'>, opts: { clock?: Clock } = {}): Promise<ControlPlane> {
  return openControlPlane(config, opts);
}

/** The resolvers that look up domain proofs (site verify): FOOTFALL_DNS_SERVERS, else the system's. */
export function openDnsTxtResolver(config: Pick<Config, 'dnsServers'>): DnsTxtResolver {
  return new NodeDnsTxtResolver({ servers: config.dnsServers });
}

/** Password hashing at the production parameters, for a command that sets a password (a share link's); loaded when asked, like the server's. */
export async function openPasswordHasher(): Promise<PasswordHasher> {
  return new (await import('./control/password-hasher.js')).Argon2PasswordHasher();
}

/** Whether a control plane exists already (a shared one is configured, or the data dir holds one). */
export function hasControlPlane(config: Pick<Config, 'dataDir' | 'controlUrl'>): boolean {
  return config.controlUrl !== undefined || fs.existsSync(path.join(config.dataDir, CONTROL_SQLITE_FILE));
}

/** What an import needs: the catalog (sites, salts) and where events go. The control plane first. */
export async function openImportStores(
  config: Pick<Config, 'dataDir' | 'controlUrl' | 'eventsUrl'>,
  opts: { clock?: Clock } = {},
): Promise<ImportStores> {
  const control = await openControlPlane(config, opts);
  let target: ImportTarget;
  try {
    target = await openImportTarget(config, { commitLock: control.commitLock });
  } catch (err) {
    await control.close();
    throw err;
  }
  return {
    catalog: control.catalog,
    people: control.people,
    target,
    close: async () => {
      try {
        await target.close();
      } finally {
        await control.close();
      }
    },
  };
}

export interface Container extends AppDeps {
  /** the overrides' store, else the one the container opened: there always is one */
  events: EventStore;
  /** what the metrics listener serves; set when config.metricsPort is */
  exposition?: MetricsExposition;
  /** the analytics backend the container opened (absent when events or analytics came as overrides) */
  backend?: AnalyticsBackend;
  /** Closes every store the container opened (not those passed in as overrides). Idempotent. */
  close(): Promise<void>;
}

export interface ContainerOverrides {
  clock?: Clock;
  /** catalog and ledger come together: they share one control-plane store (and people, when given) */
  control?: {
    catalog: CatalogStore;
    ledger: UsageLedger;
    commitLock?: CommitLock;
    people?: PeopleStore;
    embeds?: EmbedStore;
    reports?: ReportStore;
    lifecycle?: LifecycleControl;
  };
  /** password hashing (default: argon2id at the production parameters) */
  hasher?: PasswordHasher;
  /** the resolver of domain proofs (default: openDnsTxtResolver of the config) */
  dns?: DnsTxtResolver;
  limiter?: RateLimiter;
  /** with events: the store the app reads analytics from; without analytics, none (503) */
  events?: EventStore;
  analytics?: AnalyticsDeps;
  /** AnalyticsDeps.notes of the analytics the container opens (e.g. `npm start` loading the demo) */
  analyticsNotes?: (siteId: string) => string[];
  /** counts kept (and served) even without a metrics port, e.g. by tests */
  metrics?: Metrics & MetricsExposition;
  /** outgoing mail (default: openMailer of the config) */
  mailer?: Mailer;
}

export async function buildContainer(config: Readonly<Config>, overrides: ContainerOverrides = {}): Promise<Container> {
  const clock = overrides.clock ?? systemClock;
  const metrics =
    overrides.metrics ??
    (config.metricsPort !== undefined ? new (await import('./http/prometheus/prometheus-metrics.js')).PrometheusMetrics() : undefined);
  /** engine calls timed by engine name when metrics are kept */
  const timed = <T extends object>(port: T, engine: string): T =>
    metrics ? timedCalls(port, (seconds, ok) => metrics.engineQuery(engine, seconds, ok)) : port;
  const closers: Array<() => Promise<void>> = [];
  const closeOpened = async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  let analytics = overrides.analytics;
  let backend: AnalyticsBackend | undefined;
  // The control plane's, once it is open (the events store may be opened first; it commits only later).
  let commitLock: CommitLock | undefined;
  try {
    const open = async (): Promise<EventStore> => {
      const opened = await openAnalyticsBackend(config, { commitLock: (fn) => (commitLock ? commitLock(fn) : fn()) });
      backend = opened;
      closers.push(() => opened.close());
      // per process; keys carry the data version (on ClickHouse read from the shared commit log, so an
      // import by any process is seen by every process's cache)
      analytics ??= {
        engine: timed(backend.engine, embedded(config) ? 'duckdb' : 'clickhouse'),
        cache: new MemoryResponseCache(),
        notes: overrides.analyticsNotes,
      };
      return opened.store;
    };
    // ClickHouse first: a URL that cannot be served stops start-up before anything is created locally.
    let events = overrides.events ?? (embedded(config) ? undefined : await open());

    // The control plane (SQLite or PostgreSQL) is picked by openControlPlane.
    let control = overrides.control;
    if (!control) {
      const cp = await openControlPlane(config, { clock });
      closers.push(() => cp.close());
      control = cp;
    }
    commitLock = control.commitLock;
    let limiter = overrides.limiter;
    if (!limiter) {
      // Redis when configured: one exact sliding log shared by every API process.
      const own = config.redisUrl
        ? await (await import('./limits/redis.js')).openRedisRateLimiter(config.redisUrl)
        : new MemoryRateLimiter();
      closers.push(() => own.close());
      limiter = own;
    }
    // DuckDB in the data dir: the one store the read API and (via the admin socket) imports share.
    events ??= await open();
    let mailer = overrides.mailer;
    if (!mailer) {
      const own = await openMailer(config);
      if (own) closers.push(() => own.close());
      mailer = own;
    }
    const store = events;
    const catalog = control.catalog;
    metrics?.eventAllowance?.(() => allowanceSamples({ catalog, store, clock }));
    return {
      ...assemble(config, clock, control, limiter, events, analytics, backend, closers),
      people: control.people,
      embeds: control.embeds,
      reports: control.reports,
      lifecycle: control.lifecycle,
      hasher: overrides.hasher ?? new (await import('./control/password-hasher.js')).Argon2PasswordHasher(),
      dns: overrides.dns ?? openDnsTxtResolver(config),
      mailer,
      metrics,
      exposition: metrics,
    };
  } catch (err) {
    await closeOpened();
    throw err;
  }
}

function assemble(
  config: Readonly<Config>,
  clock: Clock,
  control: { catalog: CatalogStore; ledger: UsageLedger },
  limiter: RateLimiter,
  events: EventStore,
  analytics: AnalyticsDeps | undefined,
  backend: AnalyticsBackend | undefined,
  closers: Array<() => Promise<void>>,
): Container {
  let closing: Promise<void> | undefined;
  return {
    config,
    clock,
    catalog: control.catalog,
    ledger: control.ledger,
    limiter,
    events,
    analytics,
    backend,
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
 * container's event store (every store takes imports; DuckDB's from the process that owns it, this one).
 * Several processes may collect on one data dir when the stores are every process's (ClickHouse
 * events, and PostgreSQL whose commit lock orders their loaders' commits); otherwise the process owns
 * the data dir.
 */
export async function openLiveCollection(
  config: Readonly<Config>,
  container: Pick<Container, 'catalog' | 'clock' | 'events' | 'metrics'>,
  options: Pick<LoaderOptions, 'log' | 'intervalMs' | 'triggerRecords'> = {},
): Promise<LiveCollection> {
  // A database named explicitly is opened now, so a bad file stops the start; the bundled one (large)
  // only when the first event arrives.
  const [{ openGeoLookup }, { openCollection }] = await Promise.all([
    import('./ingest/parse/mmdb-geo-lookup.js'),
    import('./ingest/collect/open-collection.js'),
  ]);
  const explicit = config.geoipDb !== undefined && config.geoipDb !== 'off' ? openGeoLookup(config.geoipDb) : undefined;
  return openCollection({
    dir: path.join(config.dataDir, SPOOL_DIR),
    shared: config.eventsUrl !== undefined && config.controlUrl !== undefined,
    catalog: container.catalog,
    store: container.events,
    clock: container.clock,
    geo: () => (explicit !== undefined ? explicit : openGeoLookup(config.geoipDb)),
    loader: options,
    metrics: container.metrics,
  });
}
