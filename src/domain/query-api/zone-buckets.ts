// Time buckets of the query API in a site's zone, as the engines compute them (QueryBucketing): hours,
// days and ISO weeks by the local clock, `ts + offset(ts)`, where the offset is a constant between the
// zone's offset changes (found here, a handful a year); months by the UTC instants they start at. A per-row
// lookup of a bucket list measured 9x slower than this arithmetic (docs/decisions/query-api.md).
// The labels are the local clock's, so they equal zonedBuckets' (zoned-time.ts), which time_labels lists.
import { DAY_MS, formatDay } from '../report-range.js';
import { type BucketUnit, localClock, zonedBuckets } from '../zoned-time.js';
import type { QueryBucketing } from './query-groups.js';

const HOUR_MS = 3_600_000;
/** Offsets are sampled this far apart and the changes between samples searched to the millisecond. */
const SAMPLE_MS = 6 * HOUR_MS;

/** The zone's offset from UTC at `ms` (local clock minus UTC), to the second. */
export function offsetAt(zone: string, ms: number): number {
  if (zone === 'UTC') return 0;
  const whole = Math.floor(ms / 1000) * 1000;
  return Date.parse(`${localClock(zone, whole).replace(' ', 'T')}Z`) - whole;
}

/** The zone's offsets over [startMs, endMs): the first from startMs, then one entry at each change. */
export function offsetSpans(zone: string, startMs: number, endMs: number): { fromMs: number; offsetMs: number }[] {
  const spans = [{ fromMs: startMs, offsetMs: offsetAt(zone, startMs) }];
  if (zone === 'UTC') return spans;
  let at = startMs;
  let offset = spans[0].offsetMs;
  while (at < endMs) {
    const next = Math.min(at + SAMPLE_MS, endMs);
    const o = offsetAt(zone, next);
    if (o !== offset) {
      // the first instant with the new offset, in (at, next]
      let lo = at + 1;
      let hi = next;
      while (lo < hi) {
        const mid = lo + Math.floor((hi - lo) / 2);
        if (offsetAt(zone, mid) === offset) lo = mid + 1;
        else hi = mid;
      }
      const changed = offsetAt(zone, lo);
      spans.push({ fromMs: lo, offsetMs: changed });
      offset = changed;
      at = lo;
      continue;
    }
    at = next;
  }
  return spans;
}

/** How one query's time dimension is bucketed, and the label of each bucket key the engine returns. */
export interface ZonedBucketing {
  unit: BucketUnit;
  bucketing: QueryBucketing;
  label(key: number): string;
  /** every bucket of the range in order (include.time_labels) */
  labels: string[];
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The buckets of `unit` over local days `from`..`to` of `zone`, spanning [startMs, endMs). */
export function zonedBucketing(
  zone: string,
  from: string,
  to: string,
  unit: BucketUnit,
  window: { startMs: number; endMs: number },
): ZonedBucketing {
  const buckets = zonedBuckets(zone, from, to, unit);
  const labels = buckets.map((b) => b.label);
  if (unit === 'month') {
    // keys are indexes of the months: edges at each month's first instant (the range's start for the first)
    const edges = buckets.map((b, i) => (i === 0 ? window.startMs : b.start));
    return { unit, bucketing: { by: 'edges', edges }, label: (k) => labels[k], labels };
  }
  const bucketing: QueryBucketing = { by: 'clock', unit, offsets: offsetSpans(zone, window.startMs, window.endMs) };
  const label =
    unit === 'hour'
      ? (k: number) => {
          const d = new Date(k * HOUR_MS);
          return `${formatDay(k * HOUR_MS)} ${pad(d.getUTCHours())}:00:00`;
        }
      : (k: number) => formatDay(k * DAY_MS);
  return { unit, bucketing, label, labels };
}
