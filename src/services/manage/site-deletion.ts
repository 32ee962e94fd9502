// Deleting a site from the management API (docs/product.md §10): owners only (every stored event of the
// site goes with it), after typing the site's name; the same crash-safe order as `footfall site delete`
// (services/lifecycle/deletion.ts).
import type { Clock } from '../../domain/clock.js';
import { ManageError, invalidField } from '../../domain/manage-errors.js';
import type { CatalogStore, Site } from '../../ports/catalog-store.js';
import type { LifecycleControl } from '../../ports/lifecycle-control.js';
import { deleteSite, type FinishedDeletion } from '../lifecycle/deletion.js';
import type { LifecycleStore } from '../lifecycle/lifecycle-deps.js';
import { requireRole, type WorkspaceAccess } from './access.js';

export interface SiteDeletionDeps {
  catalog: CatalogStore;
  clock: Clock;
  lifecycle?: LifecycleControl;
  events?: LifecycleStore;
}

export async function deleteSiteConfirmed(
  deps: SiteDeletionDeps,
  access: WorkspaceAccess & { site: Site },
  typedName: string,
): Promise<FinishedDeletion> {
  requireRole(access, 'owner');
  if (typedName !== access.site.name)
    throw invalidField(
      'name',
      `Type the site's name exactly as it is ("${access.site.name}") to confirm the deletion: nothing was deleted.`,
    );
  if (!deps.lifecycle || !deps.events)
    throw new ManageError('INTERNAL_ERROR', 'This server cannot delete sites (it has no event store of its own).');
  try {
    return await deleteSite({ catalog: deps.catalog, clock: deps.clock, lifecycle: deps.lifecycle, store: deps.events }, access.site.id);
  } catch (err) {
    // The catalog step commits first: past it the site is gone for every read, and the daily purge finishes the rest.
    if (!(await deps.catalog.getSite(access.site.id)))
      throw new ManageError(
        'INTERNAL_ERROR',
        'The site is deleted; removing its stored events did not finish and is retried by the next daily purge (or by footfall site delete).',
      );
    throw err;
  }
}
