// What the HTTP layer and the use-cases need from the process: ports only, never implementations.
import type { LifecycleControl } from '../ports/lifecycle-control.js';
import type { Config } from '../config/config.js';
import type { Clock } from '../domain/clock.js';
import type { AnalyticsEngine } from '../ports/analytics-engine.js';
import type { CatalogStore } from '../ports/catalog-store.js';
import type { DnsTxtResolver } from '../ports/dns-txt-resolver.js';
import type { EventCollector } from '../ports/event-collector.js';
import type { EventStore } from '../ports/event-store.js';
import type { Metrics } from '../ports/metrics.js';
import type { PasswordHasher } from '../ports/password-hasher.js';
import type { PeopleStore } from '../ports/people-store.js';
import type { EmbedStore } from '../ports/embed-store.js';
import type { Mailer } from '../ports/mailer.js';
import type { ReportStore } from '../ports/report-store.js';
import type { ResponseCache } from '../ports/response-cache.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { UsageLedger } from '../ports/usage-ledger.js';

/** What analytics routes read through (services/analytics/serve-analytics.ts). */
export interface AnalyticsDeps {
  /** every read of the analytics routes, and the data version (cache keys, one snapshot per request) */
  engine: AnalyticsEngine;
  /** null/absent: every request runs its queries */
  cache?: ResponseCache | null;
  /** the serialized response budget; 5 MiB (tests inject less) */
  maxResponseBytes?: number;
  /**
   * What this process knows about a site's data beyond its events (e.g. the demo still loading): shown
   * in meta.surface.dataFreshness.notes; a response with notes is not cached (they are temporary).
   */
  notes?(siteId: string): string[];
  /** false: the query API reads the raw events even where the daily rollups answer (tests compare the two); default true */
  queryRollups?: boolean;
}

export interface AppDeps {
  config: Readonly<Config>;
  clock: Clock;
  catalog: CatalogStore;
  ledger: UsageLedger;
  limiter: RateLimiter;
  /** the analytics store's write side; /healthz asks whether it answers. Absent: not checked */
  events?: EventStore;
  /** absent: analytics routes answer 503 ANALYTICS_DB_UNAVAILABLE */
  analytics?: AnalyticsDeps;
  /** live collection (POST /api/event, /js/script.js); absent: those routes do not exist (a server started by startServer has it) */
  collector?: EventCollector;
  /** absent: nothing is counted (no metrics listener) */
  metrics?: Metrics;
  /** people, sessions and their password hashes; absent: no management API (/app/api) */
  people?: PeopleStore;
  hasher?: PasswordHasher;
  /** embed keys and share links; absent: embed tokens are refused and share links do not exist */
  embeds?: EmbedStore;
  /** outgoing mail: invitations and the reset links asked for on the sign-in page; absent: no mail is sent */
  mailer?: Mailer;
  /** report subscriptions and their deliveries; absent: no mailed reports */
  reports?: ReportStore;
  /** site and workspace removal, pending deletions, the daily purge's lease; absent: no deletion route, no daily purge */
  lifecycle?: LifecycleControl;
  /** looks up the TXT record that proves a site's domain (the management API's verify); the container's asks FOOTFALL_DNS_SERVERS */
  dns?: DnsTxtResolver;
}
