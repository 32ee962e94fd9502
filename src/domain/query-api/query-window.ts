// Where a query's date_range lies in UTC time, in the site's zone: its window, its local days (units and
// the plan's limits count them), its comparison window, and the time bucket its time dimension means.
// Retention and the plan's longest range are the read policy's, as on /v1, in the site's own days.
import { ApiError, invalidParams } from '../errors.js';
import { addDays, DAY_MS, parseDay } from '../report-range.js';
import { type BucketUnit, dayStart, localDay } from '../zoned-time.js';
import type { ResolvedDateRange } from './date-range.js';
import type { CompareInput, TimeDimension } from './query-body.js';

export interface QueryWindow {
  /** [startMs, endMs) */
  startMs: number;
  endMs: number;
  /** local days from and to (inclusive): for date-times, the local days of their instants */
  from: string;
  to: string;
  /** local days counted (units, max_range_days) */
  days: number;
}

const dayCount = (from: string, to: string) => Math.round((parseDay(to)! - parseDay(from)!) / DAY_MS) + 1;

/** The window of a resolved range in `zone`. */
export function windowOf(zone: string, range: ResolvedDateRange): QueryWindow {
  if (range.kind === 'days') {
    return {
      startMs: dayStart(zone, range.from),
      endMs: dayStart(zone, addDays(range.to, 1)),
      from: range.from,
      to: range.to,
      days: dayCount(range.from, range.to),
    };
  }
  const from = localDay(zone, range.startMs);
  const to = localDay(zone, range.endMs - 1);
  return { startMs: range.startMs, endMs: range.endMs, from, to, days: dayCount(from, to) };
}

export interface RangeLimits {
  zone: string;
  nowMs: number;
  /** null: no retention limit */
  retentionDays: number | null;
  /** how a refusal names the retention ("the Pro plan's retention") */
  retentionName: string;
  maxRangeDays: number | null;
}

/** The first local day retention lets a query read, or null without a limit. */
export function retentionStart(limits: RangeLimits): string | null {
  if (limits.retentionDays === null) return null;
  return addDays(localDay(limits.zone, limits.nowMs), -(limits.retentionDays - 1));
}

/** Refuses a window older than retention (422 RETENTION_EXCEEDED) or longer than the plan allows (422, date_range). */
export function checkWindow(w: QueryWindow, limits: RangeLimits, field: string): void {
  const first = retentionStart(limits);
  if (first !== null && w.from < first)
    throw new ApiError(
      'RETENTION_EXCEEDED',
      `${field} starts on ${w.from}, before ${limits.retentionName} of ${limits.retentionDays} days allows (the first day it keeps is ${first}, in the site's time zone ${limits.zone})`,
      { field, first_day: first },
    );
  if (limits.maxRangeDays !== null && w.days > limits.maxRangeDays)
    throw invalidParams(`${field}: ${w.days} days is longer than this plan's ${limits.maxRangeDays}; ask for a shorter range`, {
      field,
      max_range_days: limits.maxRangeDays,
    });
}

/** The comparison window: the same number of days (or the same span) just before, a year before, or the dates given. */
export function compareWindow(zone: string, current: QueryWindow, range: ResolvedDateRange, compare: CompareInput): QueryWindow {
  if (compare.kind === 'days') return windowOf(zone, compare);
  if (range.kind === 'instants') {
    const span = range.endMs - range.startMs;
    if (compare.kind === 'previous_period')
      return windowOf(zone, { kind: 'instants', startMs: range.startMs - span, endMs: range.startMs });
    const back = (ms: number) => {
      const d = new Date(ms);
      d.setUTCFullYear(d.getUTCFullYear() - 1);
      return d.getTime();
    };
    return windowOf(zone, { kind: 'instants', startMs: back(range.startMs), endMs: back(range.endMs) });
  }
  if (compare.kind === 'previous_period')
    return windowOf(zone, { kind: 'days', from: addDays(current.from, -current.days), to: addDays(current.from, -1) });
  // a year before, day for day; 29 February falls back to the 28th
  const yearBack = (day: string) => {
    const y = `${Number(day.slice(0, 4)) - 1}${day.slice(4)}`;
    return parseDay(y) === null ? `${y.slice(0, 8)}28` : y;
  };
  return windowOf(zone, { kind: 'days', from: yearBack(current.from), to: yearBack(current.to) });
}

/** The unit a time dimension means: its own, or for `time` the one that suits the range (hours for a day, months past 100 days). */
export function bucketUnitOf(dimension: TimeDimension, w: QueryWindow): BucketUnit {
  if (dimension !== 'time') return dimension.slice(5) as BucketUnit;
  if (w.days <= 1) return 'hour';
  return w.days <= 100 ? 'day' : 'month';
}
