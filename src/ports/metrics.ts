// What the server counts for operators (the Prometheus names are listed in README "Metrics").
// The HTTP layer, services and ingest call this port; http/prometheus/prometheus-metrics.ts implements
// it with prom-client. Without a metrics listener nothing is kept: the port is absent (or noopMetrics)
// and callers skip the work.

/** Counts of one route: its handle is looked up once, not per request. */
export interface RouteMetrics {
  /** one answered request: final status and seconds from arrival to the last byte handed to the socket */
  observe(status: number, seconds: number): void;
}

/** What happened to one live-collection event (POST /api/event, the live-collection issue). */
export type CollectionOutcome = 'accepted' | 'engagement' | 'rejected' | 'ignored';

export interface Metrics {
  /** `route` is the route pattern (`/v1/me`), or `unmatched` for a path no route has */
  route(route: string): RouteMetrics;
  /** units a request was charged (cache hits included), after the ledger committed them */
  unitsCharged(units: number): void;
  /** one lookup of an analytics response in the response cache */
  responseCache(result: 'hit' | 'miss'): void;
  /** one call into an analytics engine (query, report read, site facts) */
  engineQuery(engine: string, seconds: number, ok: boolean): void;
  /** one import batch committed through the server (admin socket) */
  importCommitted(imported: number, duplicates: number): void;
  /** one event received by live collection */
  collected(outcome: CollectionOutcome): void;
  /**
   * Where the gauges of events used and included per workspace read from at each scrape (the current UTC
   * month; included absent when unlimited). Optional: a Metrics without gauges ignores it.
   */
  eventAllowance?(read: () => Promise<EventAllowanceSample[]>): void;
  /**
   * Where the gauges of live collection's backlog read from at each scrape (the serving process's
   * loader). Optional, as eventAllowance.
   */
  collectionBacklog?(read: () => CollectionBacklog): void;
  /** one load of live collection into the event store ended (committed or failed), with its duration */
  collectionLoad?(seconds: number, ok: boolean): void;
  /** one attempt to mail a report ended: sent, to be retried, or failed for good (docs/decisions/reports.md) */
  reportMail?(outcome: 'sent' | 'retry' | 'failed'): void;
}

/** Accepted live events not yet readable: how many, and how long the oldest has waited. */
export interface CollectionBacklog {
  waiting: number;
  /** 0 when none waits; never short of the oldest's true wait */
  lagSeconds: number;
}

export interface EventAllowanceSample {
  workspace_id: string;
  used: number;
  /** null: unlimited */
  included: number | null;
}

/** The text a scrape returns. */
export interface MetricsExposition {
  contentType: string;
  text(): Promise<string>;
}

const noopRoute: RouteMetrics = { observe() {} };

export const noopMetrics: Metrics = {
  route: () => noopRoute,
  unitsCharged() {},
  responseCache() {},
  engineQuery() {},
  importCommitted() {},
  collected() {},
};

/**
 * Wraps every method of a port that returns a promise so each call reports its duration and
 * outcome. For ports whose methods are all I/O (analytics engines, report runners).
 */
export function timedCalls<T extends object>(target: T, observe: (seconds: number, ok: boolean) => void): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (typeof value !== 'function') return value;
      let fn = wrapped.get(prop);
      if (!fn) {
        fn = function (this: unknown, ...args: unknown[]) {
          const start = performance.now();
          const out = (value as (...a: unknown[]) => unknown).apply(obj, args);
          if (!(out instanceof Promise)) return out;
          return out.then(
            (v) => {
              observe((performance.now() - start) / 1000, true);
              return v;
            },
            (err: unknown) => {
              observe((performance.now() - start) / 1000, false);
              throw err;
            },
          );
        };
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}
