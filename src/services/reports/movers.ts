// content.movers of the overview: pages whose pageviews rose (fell) most against the period just
// before the payload's own window (same number of days). delta_pct is a percentage of the previous
// pageviews; a page new in the window (previous 0) counts +100.
import { compareKeys, type MetricRow } from '../../domain/query/assemble.js';

export interface MoverRow {
  path_canon: string | null;
  page_title: string | null;
  current_pageviews: number;
  previous_pageviews: number;
  delta: number;
  delta_pct: number;
}

export function computeMovers(
  current: readonly MetricRow[],
  previous: readonly MetricRow[],
  limit: number,
): { gainers: MoverRow[]; losers: MoverRow[] } {
  const pages = new Map<string | null, { cur: number; prev: number }>();
  for (const r of current) pages.set(r.key, { cur: r.values.pageviews, prev: 0 });
  for (const r of previous) {
    const e = pages.get(r.key) ?? { cur: 0, prev: 0 };
    e.prev = r.values.pageviews;
    pages.set(r.key, e);
  }
  const rows: MoverRow[] = [...pages].map(([path, { cur, prev }]) => ({
    path_canon: path,
    page_title: null,
    current_pageviews: cur,
    previous_pageviews: prev,
    delta: cur - prev,
    delta_pct: prev === 0 ? 100 : ((cur - prev) / prev) * 100,
  }));
  const gainers = rows.filter((r) => r.delta > 0).sort((a, b) => b.delta - a.delta || compareKeys(a.path_canon, b.path_canon));
  const losers = rows.filter((r) => r.delta < 0).sort((a, b) => a.delta - b.delta || compareKeys(a.path_canon, b.path_canon));
  return { gainers: gainers.slice(0, limit), losers: losers.slice(0, limit) };
}
