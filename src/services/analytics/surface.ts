// meta.surface of the report envelope: the data envelope the response describes, its freshness,
// the compare window and what exports the plan offers (docs/api.md report envelope, docs/product.md §8.16).
import type { DataEnvelope, Level, Profile } from '../../domain/plans.js';
import { exportsOf } from '../../domain/plans.js';
import { EXPORT_NOTES, siteDataEnvelope } from '../../domain/product.js';
import type { ResolvedRange } from '../../domain/report-range.js';
import type { Site, Workspace } from '../../ports/catalog-store.js';
import type { CollectionProgress } from '../../ports/event-collector.js';

export type FreshnessStatus = 'fresh' | 'delayed' | 'stale' | 'unknown';

export interface DataFreshness {
  status: FreshnessStatus;
  asOf: string | null;
  lagMinutes: number | null;
  cached: boolean;
  notes: string[];
}

export interface Surface {
  mode: Profile;
  dataEnvelope: DataEnvelope;
  dataFreshness: DataFreshness;
  compareWindow: { enabled: boolean; mode: 'prev_period' | null; compareStart: string | null; compareEnd: string | null };
  exportCapability: { csv: boolean; level: Level; dataEnvelope: DataEnvelope; notes: string[] };
}

const MINUTE_MS = 60_000;
export const FRESH_MAX_MINUTES = 60;
export const DELAYED_MAX_MINUTES = 24 * 60;

/**
 * docs/product.md §8.16: fresh when the site's newest event is at most 60 minutes old, delayed up to
 * 24 hours, stale beyond, unknown without data. asOf is that newest event's instant.
 *
 * A site this process collects live (docs/product.md §9, `live`) is measured by what is still on its way
 * instead: the lag is from the newest readable event to the newest accepted one. With nothing
 * waiting in the spool the data is complete as of now (asOf = now, lag 0), however long ago the
 * last visitor came; while events wait, asOf is the newest readable event.
 */
export function dataFreshness(
  newestEventMs: number | null,
  nowMs: number,
  cached: boolean,
  extraNotes: readonly string[] = [],
  live: CollectionProgress | null = null,
): DataFreshness {
  const notes: string[] = [...extraNotes];
  if (cached) notes.push('Served from the response cache: no import has touched this site since it was computed.');
  if (live !== null) return liveFreshness(newestEventMs, nowMs, cached, live, notes);
  if (newestEventMs === null) {
    notes.push('The site has no stored events.');
    return { status: 'unknown', asOf: null, lagMinutes: null, cached, notes };
  }
  // Events may carry a ts up to 5 minutes ahead of the importer's clock: no negative lag.
  const lagMinutes = Math.max(0, Math.floor((nowMs - newestEventMs) / MINUTE_MS));
  const status = statusOf(lagMinutes);
  if (status === 'stale') notes.push('No event arrived in the last 24 hours.');
  return { status, asOf: new Date(newestEventMs).toISOString(), lagMinutes, cached, notes };
}

function statusOf(lagMinutes: number): FreshnessStatus {
  return lagMinutes <= FRESH_MAX_MINUTES ? 'fresh' : lagMinutes <= DELAYED_MAX_MINUTES ? 'delayed' : 'stale';
}

function liveFreshness(
  newestEventMs: number | null,
  nowMs: number,
  cached: boolean,
  live: CollectionProgress,
  notes: string[],
): DataFreshness {
  if (!live.pending) {
    notes.push('Live collection: every accepted event is readable.');
    return { status: 'fresh', asOf: new Date(nowMs).toISOString(), lagMinutes: 0, cached, notes };
  }
  // With nothing readable yet, the lag is how long the oldest waiting event has waited.
  const lagMs = newestEventMs !== null ? live.newestAcceptedMs - newestEventMs : nowMs - (live.waitingSinceMs ?? nowMs);
  const lagMinutes = Math.max(0, Math.floor(lagMs / MINUTE_MS));
  notes.push('Live collection: accepted events are waiting to be loaded; asOf is the newest readable one.');
  return {
    status: statusOf(lagMinutes),
    asOf: newestEventMs === null ? null : new Date(newestEventMs).toISOString(),
    lagMinutes,
    cached,
    notes,
  };
}

export function buildSurface(input: {
  site: Site;
  workspace: Pick<Workspace, 'plan' | 'apiPolicy'>;
  range: ResolvedRange;
  freshness: DataFreshness;
}): Surface {
  const { site, range } = input;
  const envelope = siteDataEnvelope(site);
  // the exports part of the site's product configuration (siteProductConfiguration), without the rest of it
  const exports = exportsOf(input.workspace.plan);
  return {
    mode: site.collectionProfile,
    dataEnvelope: envelope,
    dataFreshness: input.freshness,
    compareWindow: {
      enabled: range.compare !== null,
      mode: range.compare ? 'prev_period' : null,
      compareStart: range.range.compare_start,
      compareEnd: range.range.compare_end,
    },
    exportCapability: {
      csv: exports.csv,
      level: exports.level,
      dataEnvelope: envelope,
      notes: [...EXPORT_NOTES],
    },
  };
}
