// Current visitors of a site (the dashboard's live count): distinct visitor keys of human traffic with
// an event in the last five minutes, and the site's newest stored event (null: the site has none yet,
// which the dashboard shows as "waiting for the first event"). One QuerySpec through the engine, as
// every other number, and the site fact the freshness of every report reads.
import { TRAFFIC_FILTERS } from '../../domain/events.js';
import type { QuerySpec } from '../../domain/query/query-spec.js';
import type { AnalyticsEngine } from '../../ports/analytics-engine.js';

export const LIVE_WINDOW_MS = 5 * 60_000;

export interface LiveVisitors {
  visitors: number;
  /** ISO instant of the site's newest stored event, null without any */
  last_event_at: string | null;
}

/**
 * `visitors` counts distinct keys per UTC day (docs/metrics.md): in the few minutes after midnight a
 * visitor seen on both sides of it counts twice, as the day's numbers would count them.
 */
export async function liveVisitors(engine: AnalyticsEngine, siteId: string, now: Date, timeoutMs: number): Promise<LiveVisitors> {
  const endMs = now.getTime();
  const spec: QuerySpec = {
    siteId,
    tenantIds: null,
    startMs: endMs - LIVE_WINDOW_MS,
    endMs,
    trafficClasses: TRAFFIC_FILTERS.humans,
    filters: {},
    metrics: ['visitors'],
  };
  const [rows, newest] = await Promise.all([engine.run(spec, { timeoutMs }), engine.newestEventAt(siteId)]);
  return { visitors: rows[0]?.values.visitors ?? 0, last_event_at: newest ? newest.toISOString() : null };
}
