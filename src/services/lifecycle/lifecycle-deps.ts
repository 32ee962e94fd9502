// What the data-lifecycle use-cases work with: the catalog, the control plane's lifecycle rows, and the
// event store's lifecycle side (the store itself, or the running server's through its admin socket).
import type { Clock } from '../../domain/clock.js';
import type { CatalogStore } from '../../ports/catalog-store.js';
import type { EventStore } from '../../ports/event-store.js';
import type { LifecycleControl } from '../../ports/lifecycle-control.js';

/** The part of the event store the lifecycle uses. */
export type LifecycleStore = Pick<EventStore, 'purgeDays' | 'previewPurge' | 'deleteSiteData' | 'undoImport' | 'eventCounts'>;

export interface LifecycleDeps {
  catalog: CatalogStore;
  lifecycle: LifecycleControl;
  store: LifecycleStore;
  clock: Clock;
}
