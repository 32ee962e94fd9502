// Date ranges of analytics requests (docs/product.md §8.8, docs/api.md parameters):
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
  /** api.retention_days (or the dashboard's); null = no retention limit */
  retentionDays: number | null;
  /** how messages name that retention; default "the API retention" */
  retentionName?: string;
  /** api.max_range_days (or the dashboard's); null = no limit */
  maxRangeDays: number | null;
  clock: Clock;
}

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (month 1-12). Integer arithmetic (the
 * "days from civil" algorithm): it runs on every analytics request, where Date objects and
 * toISOString cost more than the rest of the range handling.
 */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** Parses YYYY-MM-DD into its UTC midnight in ms, or null when malformed or not a real date. */
export function parseDay(value: string): number | null {
  const m = DATE_RE.exec(value);
  if (!m) return null;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (y < 1970 || mo < 1 || mo > 12 || d < 1) return null;
  // 2025-02-30 is not a day (Date.UTC would roll it over to March)
  if (d > (mo === 2 && isLeap(y) ? 29 : MONTH_DAYS[mo - 1])) return null;
  return daysFromCivil(y, mo, d) * DAY_MS;
}

const pad2 = (n: number) => (n < 10 ? '0' : '') + n;
const pad3 = (n: number) => (n < 10 ? '00' : n < 100 ? '0' : '') + n;

/** The UTC day (YYYY-MM-DD) containing the instant (years 0 to 9999, like toISOString's). */
export function formatDay(ms: number): string {
  const z = Math.floor(ms / DAY_MS) + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  if (y < 0 || y > 9999) return new Date(ms).toISOString().slice(0, 10); // out of the fast path's range
  return `${y < 1000 ? String(y).padStart(4, '0') : y}-${pad2(m)}-${pad2(d)}`;
}

/** The instant as toISOString writes it (YYYY-MM-DDTHH:mm:ss.sssZ), for years 0 to 9999. */
export function isoInstant(ms: number): string {
  const t = ms - Math.floor(ms / DAY_MS) * DAY_MS;
  const h = Math.floor(t / 3_600_000);
  const mi = Math.floor((t % 3_600_000) / 60_000);
  const sec = Math.floor((t % 60_000) / 1000);
  return `${formatDay(ms)}T${pad2(h)}:${pad2(mi)}:${pad2(sec)}.${pad3(t % 1000)}Z`;
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

/** How a date parameter is written, for messages (the schema's pattern, in words). */
export const DATE_FORMAT_HINT = 'a date written YYYY-MM-DD, e.g. 2026-11-25';

function requireDay(name: 'from' | 'to', value: string): string {
  if (parseDay(value) === null)
    throw invalidParams(`${name} must be ${DATE_FORMAT_HINT}; "${value}" is not a day of the calendar`, { parameter: name });
  return value;
}

/**
 * Resolves from/to/compare in the order docs/product.md §7.2 and §8.8 fix: syntax (422) → `to` after
 * today means "up to now": clamped to today, before anything counts the days → from <= to (422)
 * → retention of the current then the compare window (422 RETENTION_EXCEEDED) → max_range_days (422).
 * The range served, and so its units and its max_range_days check, is the clamped one.
 */
export function resolveReportRange(input: RangeInput): ResolvedRange {
  const today = formatDay(input.clock.now().getTime());
  if (input.compare !== undefined && input.compare !== 'prev_period') {
    throw invalidParams('compare must be prev_period', { parameter: 'compare' });
  }
  const askedTo = input.to === undefined ? today : requireDay('to', input.to);
  const to = askedTo > today ? today : askedTo;
  const from = input.from === undefined ? addDays(to, -6) : requireDay('from', input.from);
  if (from > today) throw invalidParams(`from must not be after today (${today}, UTC)`, { parameter: 'from' });
  if (from > to) throw invalidParams('from must not be after to', { parameter: 'from' });
  const current = dayWindow(from, to);
  const compare = input.compare === 'prev_period' ? previousPeriod(current) : null;

  const retention = input.retentionName ?? 'the API retention';
  if (input.retentionDays !== null) {
    const minAllowed = addDays(today, -(input.retentionDays - 1));
    for (const w of compare ? [current, compare] : [current]) {
      if (w.from < minAllowed) {
        throw new ApiError(
          'RETENTION_EXCEEDED',
          w === current
            ? `from is older than ${retention} of ${input.retentionDays} days`
            : `the compare window starts before ${retention} of ${input.retentionDays} days`,
          { min_allowed_from: minAllowed },
        );
      }
    }
  }
  if (input.maxRangeDays !== null && current.days > input.maxRangeDays) {
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
      start: isoInstant(current.startMs),
      end: isoInstant(current.endMs),
      compare_start: compare ? isoInstant(compare.startMs) : null,
      compare_end: compare ? isoInstant(compare.endMs) : null,
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
