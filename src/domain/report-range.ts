// Date ranges of analytics requests (spec "Common query parameters", DESIGN 8 "Dates"):
// defaults, validation, the prev_period compare window, retention and range limits, content rules.
import type { Clock } from './clock.js';
import { ApiError, invalidParams } from './errors.js';
import type { ContentInclude } from './metering.js';

export const DAY_MS = 86_400_000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** One inclusive range of whole UTC days. */
export interface DayWindow {
  /** YYYY-MM-DD */
  from: string;
  to: string;
  days: number;
  /** from 00:00:00.000Z, ms since epoch */
  startMs: number;
  /** to 23:59:59.999Z, ms since epoch (inclusive) */
  endMs: number;
}

export interface ResolvedRange {
  today: string;
  current: DayWindow;
  compare: DayWindow | null;
  /** the envelope's `range` member */
  range: { start: string; end: string; compare_start: string | null; compare_end: string | null };
}

export interface RangeInput {
  from?: string;
  to?: string;
  /** the `compare` query value; only prev_period is valid */
  compare?: string;
  /** api.retention_days; null = no API retention limit */
  retentionDays: number | null;
  /** api.max_range_days */
  maxRangeDays: number;
  clock: Clock;
}

/** Parses YYYY-MM-DD into its UTC midnight in ms, or null when malformed or not a real date. */
export function parseDay(value: string): number | null {
  const m = DATE_RE.exec(value);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31) return null;
  const ms = Date.UTC(y, mo - 1, d);
  // Date.UTC rolls 2025-02-30 over to March: reject anything that does not round-trip
  return formatDay(ms) === value ? ms : null;
}

/** The UTC day (YYYY-MM-DD) containing the instant. */
export function formatDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function addDays(day: string, n: number): string {
  const ms = parseDay(day);
  if (ms === null) throw new RangeError(`not a day: ${day}`);
  return formatDay(ms + n * DAY_MS);
}

export function dayWindow(from: string, to: string): DayWindow {
  const startMs = parseDay(from);
  const toMs = parseDay(to);
  if (startMs === null || toMs === null || toMs < startMs) throw new RangeError(`bad window ${from}..${to}`);
  return { from, to, days: (toMs - startMs) / DAY_MS + 1, startMs, endMs: toMs + DAY_MS - 1 };
}

/** prev_period: the same number of days, ending the day before `from`. */
export function previousPeriod(w: DayWindow): DayWindow {
  const to = addDays(w.from, -1);
  return dayWindow(addDays(to, -(w.days - 1)), to);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function requireDay(name: 'from' | 'to', value: string): string {
  if (parseDay(value) === null) throw invalidParams(`${name} must be a real date formatted YYYY-MM-DD`, { parameter: name });
  return value;
}

/**
 * Resolves from/to/compare in the order DESIGN 7 and 8 fix: syntax (422) → from <= to <= today (422)
 * → retention of the current then the compare window (422 RETENTION_EXCEEDED) → max_range_days (422).
 */
export function resolveReportRange(input: RangeInput): ResolvedRange {
  const today = formatDay(input.clock.now().getTime());
  if (input.compare !== undefined && input.compare !== 'prev_period') {
    throw invalidParams('compare must be prev_period', { parameter: 'compare' });
  }
  const to = input.to === undefined ? today : requireDay('to', input.to);
  const from = input.from === undefined ? addDays(to, -6) : requireDay('from', input.from);
  if (parseDay(from)! > parseDay(to)!) throw invalidParams('from must not be after to', { parameter: 'from' });
  if (to > today) throw invalidParams('to must not be after today (UTC)', { parameter: 'to' });
  const current = dayWindow(from, to);
  const compare = input.compare === 'prev_period' ? previousPeriod(current) : null;

  if (input.retentionDays !== null) {
    const minAllowed = addDays(today, -(input.retentionDays - 1));
    for (const w of compare ? [current, compare] : [current]) {
      if (w.from < minAllowed) {
        throw new ApiError(
          'RETENTION_EXCEEDED',
          w === current
            ? `from is older than the API retention of ${input.retentionDays} days`
            : `the compare window starts before the API retention of ${input.retentionDays} days`,
          { min_allowed_from: minAllowed },
        );
      }
    }
  }
  if (current.days > input.maxRangeDays) {
    throw invalidParams(`the range may span at most ${input.maxRangeDays} days`, {
      parameter: 'from',
      range_days: current.days,
      max_range_days: input.maxRangeDays,
    });
  }
  return {
    today,
    current,
    compare,
    range: {
      start: iso(current.startMs),
      end: iso(current.endMs),
      compare_start: compare ? iso(compare.startMs) : null,
      compare_end: compare ? iso(compare.endMs) : null,
    },
  };
}

export const CONTENT_FULL_MAX_DAYS = 90;
export const CONTENT_SUMMARY_MAX_DAYS = 365;
export const CONTENT_COMPARE_MAX_DAYS = 30;

/**
 * Content rules 1-3: the effective include for a range, or 422 INVALID_PARAMS.
 * `details` is the deprecated alias of full.
 */
export function resolveContentInclude(input: { include?: string; days: number; compare: boolean }): ContentInclude {
  const { include, days, compare } = input;
  let mode: ContentInclude;
  if (include === undefined) {
    if (days > CONTENT_SUMMARY_MAX_DAYS) {
      throw invalidParams(`the content report spans at most ${CONTENT_SUMMARY_MAX_DAYS} days`, { parameter: 'from', range_days: days });
    }
    mode = days <= CONTENT_FULL_MAX_DAYS ? 'full' : 'summary';
  } else if (include === 'summary') {
    if (days > CONTENT_SUMMARY_MAX_DAYS) {
      throw invalidParams(`include=summary accepts 1 to ${CONTENT_SUMMARY_MAX_DAYS} days`, { parameter: 'include', range_days: days });
    }
    mode = 'summary';
  } else if (include === 'full' || include === 'details') {
    if (days > CONTENT_FULL_MAX_DAYS) {
      throw invalidParams(`include=${include} accepts 1 to ${CONTENT_FULL_MAX_DAYS} days; use include=summary`, {
        parameter: 'include',
        range_days: days,
      });
    }
    mode = 'full';
  } else {
    throw invalidParams('include must be summary, full or details', { parameter: 'include' });
  }
  if (compare && days > CONTENT_COMPARE_MAX_DAYS) {
    throw invalidParams(`compare accepts at most ${CONTENT_COMPARE_MAX_DAYS} days on the content report`, {
      parameter: 'compare',
      range_days: days,
    });
  }
  return mode;
}
