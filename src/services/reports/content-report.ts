// The content report: its plan (include, units, cache parameters) and its payload (docs/product.md
// §8.15, the content rules of docs/api.md). summary: totals and a dense daily series, no page rows
// (limit has no effect). full: totals, page rows with a dense daily trend each, entry and exit pages,
// each list cut to `limit`.
import type { MsWindow } from '../../domain/availability.js';
import { denseSeries } from '../../domain/query/assemble.js';
import { reportUnits, type ContentInclude } from '../../domain/metering.js';
import { resolveContentInclude, type ResolvedRange } from '../../domain/report-range.js';
import type { AnalyticsContext, AnalyticsPlan } from '../analytics/serve-analytics.js';
import { dayOf, DEFAULT_REPORT_LIMIT, kitFor, type PayloadWindow, type ReportKit, type ReportParams } from './report-kit.js';

export interface ContentParams {
  include: ContentInclude;
  limit: number;
}

export type ContentReport = Awaited<ReturnType<typeof buildContent>>;

export function contentPlan(
  _ctx: AnalyticsContext,
  q: ReportParams & { include?: string },
  range: ResolvedRange,
): AnalyticsPlan<ContentReport> {
  const include = resolveContentInclude({ include: q.include, days: range.current.days, compare: range.compare !== null });
  const limit = q.limit ?? DEFAULT_REPORT_LIMIT;
  return {
    units: reportUnits({ report: 'content', days: range.current.days, limit, compare: range.compare !== null, include }),
    // rule 4: limit has no effect in summary, so it is not part of the summary's cache key
    cacheParams: include === 'summary' ? { include } : { include, limit },
    include,
    build: (w) => buildContent(kitFor(w), w, { include, limit }),
  };
}

export async function buildContent(kit: ReportKit, w: PayloadWindow, p: ContentParams) {
  const range: MsWindow = { startMs: w.days.startMs, endMs: w.days.endMs };
  const totalRow = kit.total(range, ['pageviews', 'visitors', 'sessions']);
  if (p.include === 'summary') {
    const [total, series] = await Promise.all([totalRow, kit.daily(w.days, range, ['pageviews', 'visitors', 'sessions'])]);
    return {
      include: 'summary' as const,
      totals: { pageviews: total.values.pageviews, visitors: total.values.visitors, sessions: total.values.sessions },
      timeseries: series.map((r) => ({
        date: dayOf(r.bucketMs),
        pageviews: r.values.pageviews,
        visitors: r.values.visitors,
        sessions: r.values.sessions,
      })),
    };
  }
  const [total, pages, entries, exits] = await Promise.all([
    totalRow,
    kit.run(range, { metrics: ['pageviews', 'visitors', 'entries', 'exits', 'avg_page_eng_time_ms'], dimension: 'page', limit: p.limit }),
    kit.run(range, { metrics: ['entries'], dimension: 'page', limit: p.limit }),
    kit.run(range, { metrics: ['exits'], dimension: 'page', limit: p.limit }),
  ]);
  const keys = pages.map((r) => r.key);
  const [trendRows, titles] = await Promise.all([
    keys.length ? kit.run(range, { metrics: ['pageviews'], dimension: 'page', interval: 'day', keyIn: keys }) : Promise.resolve([]),
    kit.titles(range, [...keys, ...entries.map((r) => r.key), ...exits.map((r) => r.key)]),
  ]);
  const byPage = new Map<string | null, typeof trendRows>();
  for (const r of trendRows) byPage.set(r.key, [...(byPage.get(r.key) ?? []), r]);
  const title = (path: string | null) => (path === null ? null : (titles.get(path) ?? null));

  return {
    include: 'full' as const,
    totals: { pageviews: total.values.pageviews, visitors: total.values.visitors, sessions: total.values.sessions },
    pages: pages.map((r) => ({
      path_canon: r.key,
      page_title: title(r.key),
      pageviews: r.values.pageviews,
      visitors: r.values.visitors,
      entries: r.values.entries,
      exits: r.values.exits,
      avg_page_eng_time_ms: r.values.avg_page_eng_time_ms,
      trend: denseSeries(byPage.get(r.key) ?? [], {
        startMs: w.days.startMs,
        endMs: w.days.endMs,
        interval: 'day',
        metrics: ['pageviews'],
      }).map((t) => ({
        date: dayOf(t.bucketMs),
        pageviews: t.values.pageviews,
      })),
    })),
    entry_pages: entries.map((r) => ({ path_canon: r.key, page_title: title(r.key), entries: r.values.entries })),
    exit_pages: exits.map((r) => ({ path_canon: r.key, page_title: title(r.key), exits: r.values.exits })),
  };
}
