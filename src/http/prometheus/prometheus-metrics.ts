// The metrics port over prom-client, in a registry of its own (so two servers in one process, as in
// tests, never share counts). Names and labels are listed in README "Metrics".
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type {
  CollectionBacklog,
  CollectionOutcome,
  EventAllowanceSample,
  Metrics,
  MetricsExposition,
  RouteMetrics,
} from '../../ports/metrics.js';

/** Seconds: from a cache hit (sub-millisecond) to a query near the default 10 s timeout. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class PrometheusMetrics implements Metrics, MetricsExposition {
  readonly registry = new Registry();
  readonly contentType = this.registry.contentType;

  private readonly requests = new Counter({
    name: 'footfall_http_requests_total',
    help: 'HTTP requests answered, by route pattern and status',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly durations = new Histogram({
    name: 'footfall_http_request_duration_seconds',
    help: 'Time from a request arriving to its response being handed to the socket, by route pattern',
    labelNames: ['route'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly units = new Counter({
    name: 'footfall_units_charged_total',
    help: 'Metered units charged to workspaces (cache hits included)',
    registers: [this.registry],
  });
  private readonly cache = new Counter({
    name: 'footfall_response_cache_requests_total',
    help: 'Lookups of analytics responses in the response cache, by result (hit or miss)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly engine = new Histogram({
    name: 'footfall_engine_query_duration_seconds',
    help: 'Calls into the analytics engine, by engine (duckdb, clickhouse) and outcome (ok, error)',
    labelNames: ['engine', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private readonly reportMails = new Counter({
    name: 'footfall_report_mails_total',
    help: 'Attempts to mail a report, by outcome (sent; retry: refused or unreachable, tried again later; failed: given up)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly importBatches = new Counter({
    name: 'footfall_import_batches_total',
    help: 'Import batches committed through this server',
    registers: [this.registry],
  });
  private readonly importEvents = new Counter({
    name: 'footfall_import_events_total',
    help: 'Events in committed import batches, by result (imported, duplicate)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  private readonly collection = new Counter({
    name: 'footfall_collection_events_total',
    help: 'Events received by live collection, by outcome (accepted, engagement, rejected, ignored)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly loads = new Histogram({
    name: 'footfall_collection_load_duration_seconds',
    help: 'Loads of live collection into the event store, by outcome (ok, error): read, import and commit',
    labelNames: ['outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  private backlog: (() => CollectionBacklog) | null = null;
  // Read at each scrape from the loader (no I/O): what waits to be readable, against the 5 s aim.
  private readonly waiting = new Gauge({
    name: 'footfall_collection_waiting_records',
    help: 'Live collection records accepted (202) and not yet loaded into the event store',
    registers: [this.registry],
    collect: () => this.sampleBacklog(),
  });
  private readonly lag = new Gauge({
    name: 'footfall_collection_lag_seconds',
    help: 'How long the oldest accepted live record not yet loaded has waited (0: none waits)',
    registers: [this.registry],
    collect: () => this.sampleBacklog(),
  });

  private allowance: (() => Promise<EventAllowanceSample[]>) | null = null;
  // Read at each scrape from the counts the event store keeps at commit (no scan of events).
  private readonly eventsUsed = new Gauge({
    name: 'footfall_workspace_events_used',
    help: "Events stored for the current UTC month, by workspace (each event's own timestamp)",
    labelNames: ['workspace'] as const,
    registers: [this.registry],
    collect: () => this.sampleAllowance(),
  });
  private readonly eventsIncluded = new Gauge({
    name: 'footfall_workspace_events_included',
    help: "Events the workspace's plan includes per month (no series: unlimited)",
    labelNames: ['workspace'] as const,
    registers: [this.registry],
    collect: () => this.sampleAllowance(),
  });
  /** one read per scrape: the registry collects both gauges at once */
  private sampling: Promise<void> | null = null;

  private readonly routes = new Map<string, RouteMetrics>();

  eventAllowance(read: () => Promise<EventAllowanceSample[]>): void {
    this.allowance = read;
  }

  collectionBacklog(read: () => CollectionBacklog): void {
    this.backlog = read;
  }

  collectionLoad(seconds: number, ok: boolean): void {
    this.loads.observe({ outcome: ok ? 'ok' : 'error' }, seconds);
  }

  reportMail(outcome: 'sent' | 'retry' | 'failed'): void {
    this.reportMails.inc({ outcome });
  }

  private sampleBacklog(): void {
    const b = this.backlog?.() ?? { waiting: 0, lagSeconds: 0 };
    this.waiting.set(b.waiting);
    this.lag.set(b.lagSeconds);
  }

  private sampleAllowance(): Promise<void> {
    this.sampling ??= this.readAllowance().finally(() => {
      this.sampling = null;
    });
    return this.sampling;
  }

  private async readAllowance(): Promise<void> {
    if (!this.allowance) return;
    const samples = await this.allowance().catch(() => null);
    // a failed read leaves no stale series behind: the gauges are absent for that scrape
    this.eventsUsed.reset();
    this.eventsIncluded.reset();
    for (const s of samples ?? []) {
      this.eventsUsed.set({ workspace: s.workspace_id }, s.used);
      if (s.included !== null) this.eventsIncluded.set({ workspace: s.workspace_id }, s.included);
    }
  }

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Series that exist from the start, so a rate() over them is defined before the first event.
    for (const result of ['hit', 'miss']) this.cache.inc({ result }, 0);
    for (const result of ['imported', 'duplicate']) this.importEvents.inc({ result }, 0);
    for (const outcome of ['accepted', 'engagement', 'rejected', 'ignored']) this.collection.inc({ outcome }, 0);
  }

  route(route: string): RouteMetrics {
    let r = this.routes.get(route);
    if (!r) {
      // Label children bound once per route and status: the request path only looks them up.
      const timer = this.durations.labels(route);
      const byStatus = new Map<number, Counter.Internal>();
      const requests = this.requests;
      r = {
        observe(status, seconds) {
          let counter = byStatus.get(status);
          if (!counter) byStatus.set(status, (counter = requests.labels(route, String(status))));
          counter.inc();
          timer.observe(seconds);
        },
      };
      this.routes.set(route, r);
    }
    return r;
  }

  unitsCharged(units: number): void {
    if (units > 0) this.units.inc(units);
  }

  responseCache(result: 'hit' | 'miss'): void {
    this.cache.inc({ result });
  }

  engineQuery(engine: string, seconds: number, ok: boolean): void {
    this.engine.observe({ engine, outcome: ok ? 'ok' : 'error' }, seconds);
  }

  importCommitted(imported: number, duplicates: number): void {
    this.importBatches.inc();
    if (imported > 0) this.importEvents.inc({ result: 'imported' }, imported);
    if (duplicates > 0) this.importEvents.inc({ result: 'duplicate' }, duplicates);
  }

  collected(outcome: CollectionOutcome): void {
    this.collection.inc({ outcome });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
