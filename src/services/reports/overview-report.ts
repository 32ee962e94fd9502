// The overview report: its plan (units, cache parameters) and its payload (spec "Overview report
// payload"): the strict-safe baseline (totals, series, pages, movers, acquisition-lite, countries,
// devices, browsers, os) over the whole range, and the geography sections (regions, cities) over their
// own counting windows (empty when locked).
import type { MsWindow } from '../../domain/availability.js';
import { compareKeys, type MetricRow } from '../../domain/query/assemble.js';
import type { Channel } from '../../domain/events.js';
import type { Dimension } from '../../domain/query/dimensions.js';
import type { Metric } from '../../domain/query/metrics.js';
import { reportUnits } from '../../domain/metering.js';
import { addDays, previousPeriod, type ResolvedRange } from '../../domain/report-range.js';
import type { AnalyticsContext, AnalyticsPlan } from '../analytics/serve-analytics.js';
import { computeMovers } from './movers.js';
import { dayOf, DEFAULT_REPORT_LIMIT, kitFor, known, type PayloadWindow, type ReportKit, type ReportParams } from './report-kit.js';

export interface OverviewParams {
  limit: number;
  /** first day API retention allows (movers read the period before the window); null = no limit */
  minAllowedFrom: string | null;
  /** the site's newest stored event (data_health) */
  lastEventAt: Date | null;
}

export type OverviewReport = Awaited<ReturnType<typeof buildOverview>>;

export function overviewPlan(ctx: AnalyticsContext, q: ReportParams, range: ResolvedRange): AnalyticsPlan<OverviewReport> {
  const limit = q.limit ?? DEFAULT_REPORT_LIMIT;
  const retention = ctx.caller.policy.retention_days;
  const minAllowedFrom = retention === null ? null : addDays(range.today, -(retention - 1));
  return {
    units: reportUnits({ report: 'overview', days: range.current.days, limit, compare: range.compare !== null }),
    cacheParams: { limit },
    build: async (w) => {
      const lastEventAt = w.facts.newestEventMs === null ? null : new Date(w.facts.newestEventMs);
      return buildOverview(kitFor(w), w, { limit, minAllowedFrom, lastEventAt });
    },
  };
}

const TOTAL_METRICS: Metric[] = [
  'pageviews',
  'sessions',
  'visitors',
  'avg_pages_per_session',
  'bounce_rate',
  'engagement_rate',
  'avg_session_eng_time_ms',
  'avg_page_eng_time_ms',
];
const SERIES_METRICS: Metric[] = TOTAL_METRICS.filter((m) => m !== 'avg_pages_per_session');

export async function buildOverview(kit: ReportKit, w: PayloadWindow, p: OverviewParams) {
  const range: MsWindow = { startMs: w.days.startMs, endMs: w.days.endMs };
  const sessionsBy = (dimension: Dimension) => kit.run(range, { metrics: ['sessions'], dimension, limit: p.limit + 1 });

  // every page of the range (movers compare them all; the top pages are their first rows), and every
  // referrer by channel (the top referrers and each one's dominant channel): one read each
  const pagesRead = kit.run(range, { metrics: ['pageviews'], dimension: 'page' });
  const [total, series, pages, byChannel, referrerChannels, countries, devices, browsers, os, movers, regions, cities, landing] =
    await Promise.all([
      kit.total(range, TOTAL_METRICS),
      kit.daily(w.days, range, SERIES_METRICS),
      pagesRead,
      kit.run(range, { metrics: ['sessions'], dimension: 'channel' }),
      kit.run(range, { metrics: ['sessions'], dimension: 'referrer', splitBy: 'channel' }),
      sessionsBy('country'),
      sessionsBy('device'),
      sessionsBy('browser'),
      sessionsBy('os'),
      moversOf(kit, w, p, pagesRead),
      geography(kit, w.sections.overview_regions ?? null, 'region', p.limit),
      geography(kit, w.sections.overview_cities ?? null, 'city', p.limit),
      kit.channelPairs(range, 'entry_page', p.limit),
    ]);

  const topPages = pages.slice(0, p.limit);
  const { top: topReferrers, dominant: referrerChannel } = referrersOf(referrerChannels, p.limit);
  const moverPaths = [...movers.gainers, ...movers.losers].map((m) => m.path_canon);
  const [titles, moverTitles] = await Promise.all([
    kit.titles(range, [...topPages.map((r) => r.key), ...landing.map((l) => l.key)]),
    // a loser may have no pageview in the window: its title comes from the period before it too
    kit.titles({ startMs: movers.previousStartMs, endMs: range.endMs }, moverPaths),
  ]);
  const title = (path: string | null) => (path === null ? null : (titles.get(path) ?? null));
  for (const m of [...movers.gainers, ...movers.losers])
    m.page_title = m.path_canon === null ? null : (moverTitles.get(m.path_canon) ?? null);

  const v = total.values;
  return {
    overview: {
      totals: {
        pageviews: v.pageviews,
        sessions: v.sessions,
        visitors: v.visitors,
        avg_pages_per_session: v.avg_pages_per_session,
        bounce_rate: v.bounce_rate,
        engagement_rate: v.engagement_rate,
        avg_session_eng_time_ms: v.avg_session_eng_time_ms,
        avg_page_eng_time_ms: v.avg_page_eng_time_ms,
      },
      timeseries: series.map((r) => ({
        date: dayOf(r.bucketMs),
        pageviews: r.values.pageviews,
        sessions: r.values.sessions,
        visitors: r.values.visitors,
        bounce_rate: r.values.bounce_rate,
        engagement_rate: r.values.engagement_rate,
        avg_session_eng_time_ms: r.values.avg_session_eng_time_ms,
        avg_page_eng_time_ms: r.values.avg_page_eng_time_ms,
      })),
      visitors_mode: 'daily_uniques' as const,
    },
    content: {
      top_pages: topPages.map((r) => ({ path_canon: r.key, page_title: title(r.key), pageviews: r.values.pageviews })),
      movers: { top_gainers: movers.gainers, top_losers: movers.losers },
    },
    acquisition: {
      by_channel: byChannel.map((r) => ({ channel: r.key as Channel, sessions: r.values.sessions })),
      top_referrers: topReferrers.map((r) => ({
        domain: r.key,
        channel: referrerChannel.get(r.key) ?? 'Referral',
        sessions: r.sessions,
        favicon_url: null,
      })),
      top_landing_pages: landing.map((l) => ({
        path_canon: l.key,
        channel: l.channel,
        sessions: l.row.values.sessions,
        page_title: title(l.key),
      })),
    },
    audience: {
      countries: known(countries, p.limit).map((r) => ({ country: r.key!, sessions: r.values.sessions })),
      regions: regions.map((r) => ({ region: r.key, country: r.country, sessions: r.sessions })),
      cities: cities.map((r) => ({ city: r.key, country: r.country, sessions: r.sessions })),
      devices: known(devices, p.limit).map((r) => ({ device_type: r.key!, sessions: r.values.sessions })),
      browsers: known(browsers, p.limit).map((r) => ({ browser_family: r.key!, sessions: r.values.sessions })),
      os: known(os, p.limit).map((r) => ({ os_family: r.key!, sessions: r.values.sessions })),
    },
    data_health: { last_event_at: p.lastEventAt ? p.lastEventAt.toISOString() : null },
  };
}

/** Page movers against the period before; `pages` is the window's own page breakdown (read once). */
async function moversOf(kit: ReportKit, w: PayloadWindow, p: OverviewParams, pages: Promise<MetricRow[]>) {
  const prev = previousPeriod(w.days);
  // the period before the window must lie inside API retention, or movers would compare with nothing
  if (p.minAllowedFrom !== null && prev.from < p.minAllowedFrom) return { gainers: [], losers: [], previousStartMs: prev.startMs };
  const [cur, before] = await Promise.all([
    pages,
    kit.run({ startMs: prev.startMs, endMs: prev.endMs }, { metrics: ['pageviews'], dimension: 'page' }),
  ]);
  return { ...computeMovers(cur, before, p.limit), previousStartMs: prev.startMs };
}

/**
 * The top referrers (sessions desc, then name; without "none") and each one's dominant channel (most
 * sessions; ties: the smaller channel name), from the referrer-by-channel rows: a session has one
 * referrer and one channel, so a referrer's sessions are the sum of its rows.
 */
function referrersOf(rows: readonly MetricRow[], limit: number) {
  const byReferrer = new Map<string, { sessions: number; channel: Channel; best: number }>();
  for (const r of rows) {
    if (r.key === null || r.split == null) continue;
    const channel = r.split as Channel;
    const s = r.values.sessions;
    const cur = byReferrer.get(r.key);
    if (!cur) byReferrer.set(r.key, { sessions: s, channel, best: s });
    else {
      cur.sessions += s;
      if (s > cur.best || (s === cur.best && compareKeys(channel, cur.channel) < 0)) Object.assign(cur, { channel, best: s });
    }
  }
  const top = [...byReferrer]
    .map(([key, v]) => ({ key, sessions: v.sessions }))
    .sort((a, b) => b.sessions - a.sessions || compareKeys(a.key, b.key))
    .slice(0, limit);
  return { top, dominant: new Map([...byReferrer].map(([k, v]) => [k, v.channel])) };
}

/**
 * Regions (cities) with their country, both known, in the section window: one grouped query, sorted
 * by sessions desc, then name, then country. None when the section is locked.
 */
async function geography(kit: ReportKit, window: MsWindow | null, dimension: 'region' | 'city', limit: number) {
  if (!window) return [];
  // every pair (a country has at most one row without a region, but countries are many): filtered, then cut
  return (await kit.run(window, { metrics: ['sessions'], dimension, splitBy: 'country' }))
    .filter((r) => r.key !== null && r.split != null)
    .slice(0, limit)
    .map((r) => ({ key: r.key!, country: r.split!, sessions: r.values.sessions }));
}
