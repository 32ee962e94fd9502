// The acquisition report: its plan (units, cache parameters) and its payload (spec "Acquisition
// report payload"; names and types the spec leaves open are in docs/decisions/reports.md). Channels,
// host-only referrers and landing pages cover the whole range; sources, mediums, campaigns and tagged
// sessions only the acquisition_attribution window.
import type { MsWindow } from '../../domain/availability.js';
import { CHANNELS, type Channel } from '../../domain/events.js';
import { reportUnits } from '../../domain/metering.js';
import type { Dimension } from '../../domain/query/dimensions.js';
import type { ResolvedRange } from '../../domain/report-range.js';
import type { AnalyticsContext, AnalyticsPlan } from '../analytics/serve-analytics.js';
import {
  dayOf,
  DEFAULT_REPORT_LIMIT,
  goalsOf,
  kitFor,
  known,
  type PayloadWindow,
  type ReportKit,
  type ReportParams,
} from './report-kit.js';

export interface AcquisitionParams {
  limit: number;
  goalsConfigured: boolean;
}

export type AcquisitionReport = Awaited<ReturnType<typeof buildAcquisition>>;

export async function acquisitionPlan(
  ctx: AnalyticsContext,
  q: ReportParams,
  range: ResolvedRange,
): Promise<AnalyticsPlan<AcquisitionReport>> {
  const limit = q.limit ?? DEFAULT_REPORT_LIMIT;
  const goalsConfigured = (await goalsOf(ctx)).length > 0;
  return {
    units: reportUnits({ report: 'acquisition', days: range.current.days, limit, compare: range.compare !== null }),
    cacheParams: { limit, goalsConfigured },
    build: (w) => buildAcquisition(kitFor(w), w, { limit, goalsConfigured }),
  };
}

export async function buildAcquisition(kit: ReportKit, w: PayloadWindow, p: AcquisitionParams) {
  const range: MsWindow = { startMs: w.days.startMs, endMs: w.days.endMs };
  const attribution = w.sections.acquisition_attribution ?? null;
  const attributionRows = async (dimension: Dimension) =>
    attribution
      ? known(await kit.run(attribution, { metrics: ['sessions', 'engagement_rate'], dimension, limit: p.limit + 1 }), p.limit)
      : [];

  const [total, byDay, byChannel, referrers, mix, sources, mediums, campaigns, tagged, landing] = await Promise.all([
    kit.total(range, ['sessions', 'pageviews', 'engagement_rate', 'avg_session_eng_time_ms']),
    kit.daily(w.days, range, ['sessions', 'pageviews', 'engagement_rate', 'avg_session_eng_time_ms']),
    kit.run(range, { metrics: ['sessions'], dimension: 'channel' }),
    kit.run(range, { metrics: ['sessions', 'engagement_rate'], dimension: 'referrer', limit: p.limit + 1 }),
    kit.run(range, { metrics: ['sessions'], dimension: 'channel', interval: 'day' }),
    attributionRows('source'),
    attributionRows('medium'),
    attributionRows('campaign'),
    taggedSessions(kit, attribution),
    kit.channelPairs(range, 'entry_page', p.limit),
  ]);
  const titles = await kit.titles(
    range,
    landing.map((l) => l.key),
  );

  const sessions = total.values.sessions;
  const direct = byChannel.find((r) => r.key === 'Direct')?.values.sessions ?? 0;
  const share = (n: number) => (sessions === 0 ? 0 : n / sessions);
  const mixBy = new Map<string, number>();
  for (const r of mix) mixBy.set(`${r.bucketMs}|${r.key}`, r.values.sessions);

  return {
    totals: {
      sessions,
      pageviews: total.values.pageviews,
      engagement_rate: total.values.engagement_rate,
      avg_session_eng_time_ms: total.values.avg_session_eng_time_ms,
    },
    by_day: byDay.map((r) => ({
      date: dayOf(r.bucketMs),
      sessions: r.values.sessions,
      pageviews: r.values.pageviews,
      engagement_rate: r.values.engagement_rate,
      avg_session_eng_time_ms: r.values.avg_session_eng_time_ms,
    })),
    by_channel: byChannel.map((r) => ({ channel: r.key as Channel, sessions: r.values.sessions })),
    top_referrers: known(referrers, p.limit).map((r) => ({
      referrer_host: r.key!,
      sessions: r.values.sessions,
      engagement_rate: r.values.engagement_rate,
    })),
    top_sources: sources.map((r) => ({ source: r.key!, sessions: r.values.sessions, engagement_rate: r.values.engagement_rate })),
    top_mediums: mediums.map((r) => ({ medium: r.key!, sessions: r.values.sessions, engagement_rate: r.values.engagement_rate })),
    top_campaigns: campaigns.map((r) => ({ campaign: r.key!, sessions: r.values.sessions, engagement_rate: r.values.engagement_rate })),
    top_landing_pages: landing.map((l) => ({
      path_canon: l.key,
      channel: l.channel,
      sessions: l.row.values.sessions,
      page_title: titles.get(l.key) ?? null,
    })),
    coverage: {
      direct_sessions: direct,
      non_direct_sessions: sessions - direct,
      tagged_sessions: tagged,
      direct_share: share(direct),
      non_direct_share: share(sessions - direct),
      tagged_share: share(tagged),
    },
    mix_timeseries: byDay.flatMap((d) =>
      CHANNELS.map((channel) => ({ date: dayOf(d.bucketMs), channel, sessions: mixBy.get(`${d.bucketMs}|${channel}`) ?? 0 })),
    ),
    goals_configured: p.goalsConfigured,
  };
}

/** Sessions carrying a utm source, medium or campaign: all minus those with none of the three. */
async function taggedSessions(kit: ReportKit, window: MsWindow | null): Promise<number> {
  if (!window) return 0;
  const [all, untagged] = await Promise.all([
    kit.total(window, ['sessions']),
    kit.total(window, ['sessions'], { source: null, medium: null, campaign: null }),
  ]);
  return all.values.sessions - untagged.values.sessions;
}
