// The metric registry: every metric is ONE definition over integer "atoms" that the SQL compiler
// computes (engines/sql/read/compile-query.ts, once for every dialect). Rates and averages are formed
// here from the integer sums, unrounded, 0 when the denominator is 0 (docs/product.md §8.4).

/**
 * Integer aggregates. Where each is counted (see docs/metrics.md):
 * - events table: pageviews, events, pv_eng_ms (engagement ms of pageviews);
 * - events table, distinct keys per UTC day (per hour in hourly series): visitors;
 * - sessions table, by session start: sessions, bounces, engaged, session_eng_ms, entries, exits.
 */
export const ATOMS = [
  'pageviews',
  'events',
  'pv_eng_ms',
  'visitors',
  'sessions',
  'bounces',
  'engaged',
  'session_eng_ms',
  'entries',
  'exits',
] as const;
export type Atom = (typeof ATOMS)[number];
export type AtomValues = Record<Atom, number>;

export const METRICS = [
  'pageviews',
  'visitors',
  'sessions',
  'events',
  'bounce_rate',
  'engagement_rate',
  'avg_session_eng_time_ms',
  'avg_page_eng_time_ms',
  'avg_pages_per_session',
  'entries',
  'exits',
] as const;
export type Metric = (typeof METRICS)[number];

/** Metrics the public /v1/metrics endpoints accept (docs/product.md §5). */
export const PUBLIC_METRICS = ['pageviews', 'visitors', 'sessions', 'events'] as const satisfies readonly Metric[];
export type PublicMetric = (typeof PUBLIC_METRICS)[number];

/** /v1/metrics/timeseries also takes the rates of the dashboard's headline tiles (docs/product.md §5). */
export const TIMESERIES_METRICS = [
  ...PUBLIC_METRICS,
  'bounce_rate',
  'avg_pages_per_session',
  'avg_session_eng_time_ms',
] as const satisfies readonly Metric[];
export type TimeseriesMetric = (typeof TIMESERIES_METRICS)[number];

export type MetricDef = { name: Metric; kind: 'count'; atom: Atom } | { name: Metric; kind: 'ratio'; numerator: Atom; denominator: Atom };

const count = (name: Metric, atom: Atom): MetricDef => ({ name, kind: 'count', atom });
const ratio = (name: Metric, numerator: Atom, denominator: Atom): MetricDef => ({ name, kind: 'ratio', numerator, denominator });

export const METRIC_DEFS: Readonly<Record<Metric, MetricDef>> = {
  pageviews: count('pageviews', 'pageviews'),
  visitors: count('visitors', 'visitors'),
  sessions: count('sessions', 'sessions'),
  events: count('events', 'events'),
  bounce_rate: ratio('bounce_rate', 'bounces', 'sessions'),
  engagement_rate: ratio('engagement_rate', 'engaged', 'sessions'),
  avg_session_eng_time_ms: ratio('avg_session_eng_time_ms', 'session_eng_ms', 'sessions'),
  avg_page_eng_time_ms: ratio('avg_page_eng_time_ms', 'pv_eng_ms', 'pageviews'),
  avg_pages_per_session: ratio('avg_pages_per_session', 'pageviews', 'sessions'),
  entries: count('entries', 'entries'),
  exits: count('exits', 'exits'),
};

export function isMetric(value: string): value is Metric {
  return Object.hasOwn(METRIC_DEFS, value);
}

export function isPublicMetric(value: string): value is PublicMetric {
  return (PUBLIC_METRICS as readonly string[]).includes(value);
}

/** The atoms a set of metrics needs. */
export function atomsFor(metrics: readonly Metric[]): Atom[] {
  const out = new Set<Atom>();
  for (const m of metrics) {
    const d = METRIC_DEFS[m];
    if (d.kind === 'count') out.add(d.atom);
    else {
      out.add(d.numerator);
      out.add(d.denominator);
    }
  }
  return ATOMS.filter((a) => out.has(a));
}

/** A metric's value from atom sums: exact integers, or an unrounded quotient (0 when nothing to divide by). */
export function metricValue(metric: Metric, atoms: Partial<AtomValues>): number {
  const d = METRIC_DEFS[metric];
  if (d.kind === 'count') return atoms[d.atom] ?? 0;
  const den = atoms[d.denominator] ?? 0;
  return den === 0 ? 0 : (atoms[d.numerator] ?? 0) / den;
}

/** The atom whose zero means "no data" for the metric (breakdown rows without data are left out). */
export function presenceAtom(metric: Metric): Atom {
  const d = METRIC_DEFS[metric];
  return d.kind === 'count' ? d.atom : d.denominator;
}
