// How numbers read on the page. The exact value stays in each element's data-value (and title) so that
// nothing is lost to rounding for the reader who wants it, or for the tests that compare with the query API.
import type { TileMetric } from './query.js';

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const whole = new Intl.NumberFormat('en');
const twoDecimals = new Intl.NumberFormat('en', { maximumFractionDigits: 2, minimumFractionDigits: 2 });
const oneDecimal = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });

export function formatCount(n: number): string {
  return Math.abs(n) < 10_000 ? whole.format(n) : compact.format(n);
}

export function formatExact(n: number): string {
  return whole.format(n);
}

/** A duration in whole seconds (the query API's visit_duration), in words: "42s", "3m 05s", "1h 02m". */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

export function formatMetric(metric: TileMetric, value: number): string {
  switch (metric) {
    case 'bounce_rate':
      // the query API answers rates in percent, to one decimal
      return `${oneDecimal.format(value)}%`;
    case 'views_per_visit':
      return twoDecimals.format(value);
    case 'visit_duration':
      return formatDuration(value);
    default:
      return formatCount(value);
  }
}

export interface Change {
  /** what the tile prints: "+12%", "−3 pts", "new" */
  text: string;
  /** for the colour: better, worse or the same, given whether lower is better */
  sense: 'good' | 'bad' | 'flat';
  /** read aloud instead of the glyphs */
  spoken: string;
}

/**
 * The change against the compare period: a relative change for counts, averages and durations; the
 * difference in percentage points for a rate (a bounce rate from 40% to 44% is "+4 pts", not "+10%").
 */
export function change(metric: TileMetric, current: number, previous: number, against = 'the previous period'): Change {
  const lowerIsBetter = metric === 'bounce_rate';
  let delta: number;
  let text: string;
  let spoken: string;
  if (metric === 'bounce_rate') {
    delta = Math.round((current - previous) * 10) / 10;
    text = `${delta > 0 ? '+' : delta < 0 ? '−' : ''}${Math.abs(delta)} pts`;
    spoken = `${Math.abs(delta)} percentage points ${delta > 0 ? 'up' : delta < 0 ? 'down' : 'unchanged'} on ${against}`;
  } else if (previous === 0) {
    if (current === 0) return { text: '0%', sense: 'flat', spoken: `unchanged on ${against}` };
    return { text: 'new', sense: lowerIsBetter ? 'bad' : 'good', spoken: `none in ${against}` };
  } else {
    delta = Math.round(((current - previous) / previous) * 100);
    text = `${delta > 0 ? '+' : delta < 0 ? '−' : ''}${Math.abs(delta)}%`;
    spoken = `${Math.abs(delta)} percent ${delta > 0 ? 'up' : delta < 0 ? 'down' : 'unchanged'} on ${against}`;
  }
  const sense = delta === 0 ? 'flat' : delta > 0 !== lowerIsBetter ? 'good' : 'bad';
  return { text, sense, spoken };
}
