// After an import: days the API will not serve. Imports keep every valid event, however old
// (the store's technical retention is another matter), but analytics reads stop at the
// workspace's API retention (docs/product.md §8.8, RETENTION_EXCEEDED); an importer should know.
import { apiPolicyFor } from '../../domain/plans.js';
import { addDays, formatDay } from '../../domain/report-range.js';
import type { CatalogStore } from '../../ports/catalog-store.js';
import type { DayRef } from '../../ports/event-store.js';

export interface ImportWarning {
  code: 'OLDER_THAN_API_RETENTION';
  site_id: string;
  message: string;
  /** imported days of the site before min_readable_day, and the oldest of them */
  days: number;
  oldest_day: string;
  /** the first day the API reads today: today - (api_retention_days - 1) */
  min_readable_day: string;
  api_retention_days: number;
}

/** One warning per site whose newly imported days include days older than its workspace's API retention. */
export async function retentionWarnings(
  catalog: Pick<CatalogStore, 'getSite' | 'getWorkspace'>,
  days: readonly DayRef[],
  nowMs: number,
): Promise<ImportWarning[]> {
  const bySite = new Map<string, string[]>();
  for (const d of days) {
    const list = bySite.get(d.site_id);
    if (list) list.push(d.day);
    else bySite.set(d.site_id, [d.day]);
  }
  const today = formatDay(nowMs);
  const warnings: ImportWarning[] = [];
  for (const [siteId, siteDays] of [...bySite].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const site = await catalog.getSite(siteId);
    const workspace = site ? await catalog.getWorkspace(site.workspaceId) : null;
    if (!workspace) continue;
    const retention = apiPolicyFor(workspace.plan, workspace.apiPolicy).retention_days;
    if (retention === null) continue;
    const minDay = addDays(today, -(retention - 1));
    const older = siteDays.filter((d) => d < minDay).sort();
    if (older.length === 0) continue;
    warnings.push({
      code: 'OLDER_THAN_API_RETENTION',
      site_id: siteId,
      message:
        `site ${siteId}: ${older.length} imported day${older.length === 1 ? ' is' : 's are'} older than the API retention ` +
        `of ${retention} days (${workspace.plan} plan), from ${older[0]}; they are stored, but the API reads only from ${minDay} on`,
      days: older.length,
      oldest_day: older[0],
      min_readable_day: minDay,
      api_retention_days: retention,
    });
  }
  return warnings;
}
