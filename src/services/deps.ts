// What the HTTP layer and the use-cases need from the process: ports only, never implementations.
import type { Config } from '../config/config.js';
import type { Clock } from '../domain/clock.js';
import type { CatalogStore } from '../ports/catalog-store.js';
import type { RateLimiter } from '../ports/rate-limiter.js';
import type { UsageLedger } from '../ports/usage-ledger.js';

/**
 * The analytics engine slot. Its port arrives with the analytics issue; until then the platform
 * only needs to know whether it answers (for /healthz) and how to close it.
 */
export interface EventsSlot {
  ping?(): Promise<void>;
  close?(): Promise<void>;
}

export interface AppDeps<Events extends EventsSlot = EventsSlot> {
  config: Readonly<Config>;
  clock: Clock;
  catalog: CatalogStore;
  ledger: UsageLedger;
  limiter: RateLimiter;
  events?: Events;
}
