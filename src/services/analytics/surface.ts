// meta.surface of the report envelope: the data envelope the response describes, its freshness,
// the compare window and what exports the plan offers (spec "Common report envelope", DESIGN 8).
import type { DataEnvelope, Level, Profile } from '../../domain/plans.js';
import { siteDataEnvelope, siteProductConfiguration } from '../../domain/product.js';
import type { ResolvedRange } from '../../domain/report-range.js';
import type { Site, Workspace } from '../../ports/catalog-store.js';

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
 * DESIGN 8 "Freshness": fresh when the site's newest event is at most 60 minutes old, delayed up to
 * 24 hours, stale beyond, unknown without data. asOf is that newest event's instant.
 */
export function dataFreshness(newestEventMs: number | null, nowMs: number, cached: boolean, extraNotes: readonly string[] = []): DataFreshness {
  const notes: string[] = [...extraNotes];
  if (cached) notes.push('Served from the response cache: no import has touched this site since it was computed.');
  if (newestEventMs === null) {
    notes.push('The site has no stored events.');
    return { status: 'unknown', asOf: null, lagMinutes: null, cached, notes };
  }
  // Events may carry a ts up to 5 minutes ahead of the importer's clock: no negative lag.
  const lagMinutes = Math.max(0, Math.floor((nowMs - newestEventMs) / MINUTE_MS));
  const status: FreshnessStatus = lagMinutes <= FRESH_MAX_MINUTES ? 'fresh' : lagMinutes <= DELAYED_MAX_MINUTES ? 'delayed' : 'stale';
  if (status === 'stale') notes.push('No event arrived in the last 24 hours.');
  return { status, asOf: new Date(newestEventMs).toISOString(), lagMinutes, cached, notes };
}

export function buildSurface(input: {
  site: Site;
  workspace: Pick<Workspace, 'plan' | 'apiPolicy'>;
  range: ResolvedRange;
  freshness: DataFreshness;
}): Surface {
  const { site, range } = input;
  const envelope = siteDataEnvelope(site);
  const product = siteProductConfiguration(input.workspace, site);
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
      csv: product.exports.csv,
      level: product.exports.level,
      dataEnvelope: envelope,
      notes: [...product.capabilities.exports.notes],
    },
  };
}
