// Deleting sites and workspaces (docs/product.md §10). The order makes every crash recoverable: the catalog
// rows go first in one transaction that records the deletion as pending (from then the id answers like an
// unknown one, and its hostnames are free), then the event store deletes the site's rows (all or nothing,
// idempotent), then the pending row goes. A run that died in between is finished by the same command run
// again, or by the next daily purge.
import { CatalogError } from '../../ports/catalog-store.js';
import type { RemovedData } from '../../ports/event-store.js';
import type { PendingSiteDeletion } from '../../ports/lifecycle-control.js';
import type { LifecycleDeps } from './lifecycle-deps.js';

export interface FinishedDeletion {
  siteId: string;
  workspaceId: string;
  removed: RemovedData;
}

async function finish(deps: LifecycleDeps, pending: PendingSiteDeletion): Promise<FinishedDeletion> {
  const removed = await deps.store.deleteSiteData(pending.siteId);
  await deps.lifecycle.finishSiteDeletion(pending.siteId);
  return { siteId: pending.siteId, workspaceId: pending.workspaceId, removed };
}

/** Deletes a site and everything stored of it; a deletion left pending by a crash is finished. NOT_FOUND when neither. */
export async function deleteSite(deps: LifecycleDeps, siteId: string): Promise<FinishedDeletion> {
  const pending = await deps.lifecycle.removeSite(siteId);
  if (!pending) throw new CatalogError('NOT_FOUND', `unknown site "${siteId}"`);
  return finish(deps, pending);
}

/** Deletes a workspace, its sites and everything stored of them; finishes what a crash left. NOT_FOUND when neither. */
export async function deleteWorkspace(deps: LifecycleDeps, workspaceId: string): Promise<FinishedDeletion[]> {
  const pending = await deps.lifecycle.removeWorkspace(workspaceId);
  if (!pending) throw new CatalogError('NOT_FOUND', `unknown workspace "${workspaceId}"`);
  const done: FinishedDeletion[] = [];
  for (const p of pending) done.push(await finish(deps, p));
  return done;
}

/** Finishes every deletion a crash left pending (the daily run does this first). */
export async function finishPendingDeletions(deps: LifecycleDeps): Promise<FinishedDeletion[]> {
  const done: FinishedDeletion[] = [];
  for (const p of await deps.lifecycle.pendingSiteDeletions()) done.push(await finish(deps, p));
  return done;
}
