// The query API's metrics from the engines' integer sums (docs/metrics.md "The query API"): counts as
// they are, rates in percent with one decimal, views per visit with two, durations in whole seconds,
// half away from zero; 0 where the denominator is 0. Pure, so every engine's rows go through one rule.
import type { QueryMetric } from './query-body.js';

/** Integer sums a query API read returns (the engines' QueryRowsRequest.atoms). */
export const QUERY_ATOMS = ['events', 'pageviews', 'visitors', 'visits', 'bounces', 'visit_pageviews', 'visit_eng_ms'] as const;
export type QueryAtom = (typeof QUERY_ATOMS)[number];
export type QueryAtoms = Partial<Record<QueryAtom, number>>;

/** The atoms each metric needs (percentage and the conversion rates also need a second read's visitors). */
const NEEDS: Readonly<Record<QueryMetric, readonly QueryAtom[]>> = {
  visitors: ['visitors'],
  visits: ['visits'],
  pageviews: ['pageviews'],
  events: ['events'],
  views_per_visit: ['visits', 'visit_pageviews'],
  bounce_rate: ['visits', 'bounces'],
  visit_duration: ['visits', 'visit_eng_ms'],
  percentage: ['visitors'],
  conversion_rate: ['visitors'],
  group_conversion_rate: ['visitors'],
};

export function atomsOf(metrics: readonly QueryMetric[]): QueryAtom[] {
  const needed = new Set(metrics.flatMap((m) => NEEDS[m]));
  return QUERY_ATOMS.filter((a) => needed.has(a));
}

/** Half away from zero at `decimals` places (the values are never negative). */
export function roundHalfUp(x: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round((x + Number.EPSILON) * f) / f;
}

const share = (part: number, whole: number, decimals: number) => (whole === 0 ? 0 : roundHalfUp((part * 100) / whole, decimals));

/** The visitors a row's share is a share of: the total (percentage) and the visitors before the goal filter (conversions). */
export interface Bases {
  total?: number;
  conversionBase?: number;
  groupBase?: number;
}

export function metricOf(metric: QueryMetric, a: QueryAtoms, bases: Bases): number {
  const n = (k: QueryAtom) => a[k] ?? 0;
  switch (metric) {
    case 'visitors':
    case 'visits':
    case 'pageviews':
    case 'events':
      return n(metric);
    case 'views_per_visit':
      return n('visits') === 0 ? 0 : roundHalfUp(n('visit_pageviews') / n('visits'), 2);
    case 'bounce_rate':
      return share(n('bounces'), n('visits'), 1);
    case 'visit_duration':
      return n('visits') === 0 ? 0 : Math.round(n('visit_eng_ms') / n('visits') / 1000);
    case 'percentage':
      return share(n('visitors'), bases.total ?? 0, 1);
    case 'conversion_rate':
      return share(n('visitors'), bases.conversionBase ?? 0, 1);
    case 'group_conversion_rate':
      return share(n('visitors'), bases.groupBase ?? 0, 1);
  }
}

/** Rates compare by their difference in points; counts and averages by their change in percent (whole). */
const DIFFERENCE: readonly QueryMetric[] = ['bounce_rate', 'percentage', 'conversion_rate', 'group_conversion_rate'];

/** The change of a metric from `before` to `now`: percent (100 from nothing to something), or points for rates. */
export function changeOf(metric: QueryMetric, now: number, before: number): number {
  if (DIFFERENCE.includes(metric)) return roundHalfUp(now - before, 1);
  if (before === 0) return now === 0 ? 0 : 100;
  return Math.round(((now - before) * 100) / before);
}
