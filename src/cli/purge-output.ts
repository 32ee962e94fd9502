// What `footfall purge` prints: per site its window, and what went (or would go) per UTC month.
import type { PurgeRun, SitePurge } from '../services/lifecycle/purge.js';

const days = (n: number) => `${n} day${n === 1 ? '' : 's'}`;

function siteJson(s: SitePurge): Record<string, unknown> {
  return {
    site_id: s.siteId,
    workspace_id: s.workspaceId,
    plan: s.plan,
    retention_months: s.months,
    first_kept_day: s.firstKeptDay,
    ...(s.removed
      ? {
          days: s.removed.days,
          first_day: s.removed.firstDay,
          last_day: s.removed.lastDay,
          events: s.removed.events,
          by_month: s.removed.byMonth,
        }
      : {}),
    ...(s.error === undefined ? {} : { error: s.error }),
  };
}

export function purgeJson(run: PurgeRun): Record<string, unknown> {
  return {
    dry_run: run.dryRun,
    today: run.today,
    sites: run.sites.map(siteJson),
    finished_deletions: run.finishedDeletions.map((d) => ({ site_id: d.siteId, workspace_id: d.workspaceId, events: d.removed.events })),
    ...(run.deletionError === undefined ? {} : { deletion_error: run.deletionError }),
  };
}

export function purgeText(run: PurgeRun): string {
  const verb = run.dryRun ? 'would remove' : 'removed';
  const out = [`${run.dryRun ? 'Dry run (nothing changed)' : 'Purge'} on ${run.today}: ${run.sites.length} site(s)`];
  for (const s of run.sites) {
    const head = `${s.siteId} (workspace ${s.workspaceId}, ${s.plan}, ${s.months} months: keeps ${s.firstKeptDay} on)`;
    if (s.error !== undefined) out.push(`${head}: FAILED: ${s.error} (nothing half-done; run footfall purge again)`);
    else if (!s.removed || s.removed.days === 0) out.push(`${head}: nothing older`);
    else {
      out.push(`${head}: ${verb} ${s.removed.events} events on ${days(s.removed.days)} (${s.removed.firstDay} to ${s.removed.lastDay})`);
      for (const m of s.removed.byMonth) out.push(`  ${m.month}  ${m.events} events`);
    }
  }
  for (const d of run.finishedDeletions) out.push(`finished the pending deletion of site ${d.siteId}: ${d.removed.events} events removed`);
  if (run.deletionError !== undefined) out.push(`pending site deletions FAILED: ${run.deletionError} (run footfall purge again)`);
  return out.join('\n');
}
