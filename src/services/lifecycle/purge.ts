// Technical retention (docs/product.md §10): every site loses its UTC days before today minus its
// workspace's plan months. Read per run, so a plan change moves the window on the next run.
import type { PlanId } from '../../domain/plans.js';
import { technicalRetentionMonths } from '../../domain/plans.js';
import { firstKeptDay, utcDay } from '../../domain/retention.js';
import type { RemovedData } from '../../ports/event-store.js';
import type { LifecycleDeps } from './lifecycle-deps.js';
import { finishPendingDeletions, type FinishedDeletion } from './deletion.js';

export interface SitePurge {
  siteId: string;
  workspaceId: string;
  plan: PlanId;
  months: number;
  /** the first day kept; every day before it goes */
  firstKeptDay: string;
  /** what went (or, in a dry run, would go); null when this site failed */
  removed: RemovedData | null;
  /** why this site failed (the others went on); the next run tries again */
  error?: string;
}

export interface PurgeRun {
  dryRun: boolean;
  today: string;
  sites: SitePurge[];
  /** deletions a crash had left pending, finished first (none in a dry run) */
  finishedDeletions: FinishedDeletion[];
  /** why finishing them failed (they stay pending for the next run) */
  deletionError?: string;
}

/**
 * Purges (or, with dryRun, previews) every site of every workspace. A site that fails is reported and
 * skipped; the rest go on, and the next run tries it again (a purge is idempotent).
 */
export async function purgeAll(deps: LifecycleDeps, opts: { dryRun: boolean }): Promise<PurgeRun> {
  const today = utcDay(deps.clock.now());
  let finishedDeletions: FinishedDeletion[] = [];
  let deletionError: string | undefined;
  try {
    if (!opts.dryRun) finishedDeletions = await finishPendingDeletions(deps);
  } catch (err) {
    deletionError = (err as Error).message ?? String(err);
  }
  const sites: SitePurge[] = [];
  for (const ws of await deps.catalog.listWorkspaces()) {
    const months = technicalRetentionMonths(ws.plan);
    const cutoff = firstKeptDay(today, months);
    for (const site of await deps.catalog.listSites(ws.id)) {
      const base = { siteId: site.id, workspaceId: ws.id, plan: ws.plan, months, firstKeptDay: cutoff };
      try {
        const removed = opts.dryRun ? await deps.store.previewPurge(site.id, cutoff) : await deps.store.purgeDays(site.id, cutoff);
        sites.push({ ...base, removed });
      } catch (err) {
        sites.push({ ...base, removed: null, error: (err as Error).message ?? String(err) });
      }
    }
  }
  return { dryRun: opts.dryRun, today, sites, finishedDeletions, ...(deletionError === undefined ? {} : { deletionError }) };
}

/** The sites that failed, for a summary line ("run footfall purge again"). */
export function failedPurges(run: PurgeRun): SitePurge[] {
  return run.sites.filter((s) => s.error !== undefined);
}
