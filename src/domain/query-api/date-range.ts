// The query API's `date_range` (Plausible's Stats API v2 forms): what a request names, and the local
// days or instants it means in a site's time zone. A preset is relative to today in that zone; "all"
// starts at the first local day the site has data for. Errors name the field and say what to send.
import { invalidParams } from '../errors.js';
import { addMonths } from '../periods.js';
import { addDays, parseDay } from '../report-range.js';
import { localDay } from '../zoned-time.js';

export const DATE_RANGE_PRESETS = ['day', '7d', '28d', '30d', '91d', 'month', '6mo', '12mo', 'year', 'all'] as const;
export type DateRangePreset = (typeof DATE_RANGE_PRESETS)[number];

/** What the request names, checked but not yet placed in a zone. */
export type DateRangeInput =
  | { kind: 'preset'; preset: DateRangePreset }
  | { kind: 'days'; from: string; to: string }
  | { kind: 'instants'; startMs: number; endMs: number };

/** Local days `from` to `to` (inclusive) of the site's zone, or a span of instants (`endMs` exclusive). */
export type ResolvedDateRange = { kind: 'days'; from: string; to: string } | { kind: 'instants'; startMs: number; endMs: number };

const FIELD = 'date_range';
const WHAT =
  'send one of "day", "7d", "28d", "30d", "91d", "month", "6mo", "12mo", "year", "all", two dates ["2024-01-01", "2024-01-31"] or two date-times with their offset ["2024-01-01T00:00:00+02:00", "2024-01-01T12:00:00+02:00"]';

const refuse = (detail: string) => invalidParams(`date_range: ${detail}; ${WHAT}`, { field: FIELD });

// A date-time with seconds and an offset (Z or ±hh:mm), optionally milliseconds: an instant, whatever
// the zone of the site.
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/;

function parseDateTime(text: string): number | null {
  const m = DATE_TIME.exec(text);
  if (!m || parseDay(m[1]) === null) return null;
  if (Number(m[2]) > 23 || Number(m[3]) > 59 || Number(m[4]) > 59) return null;
  if (m[6] !== 'Z' && (Number(m[6].slice(1, 3)) > 23 || Number(m[6].slice(4, 6)) > 59)) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}

/** Checks `date_range` as a request gives it. */
export function parseDateRange(value: unknown): DateRangeInput {
  if (value === undefined) throw refuse('is required');
  if (typeof value === 'string') {
    if ((DATE_RANGE_PRESETS as readonly string[]).includes(value)) return { kind: 'preset', preset: value as DateRangePreset };
    throw refuse(`"${value.slice(0, 40)}" is not a known range`);
  }
  if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string' || typeof value[1] !== 'string')
    throw refuse('must be a string or a list of two strings');
  const [a, b] = value as [string, string];
  const days = [parseDay(a), parseDay(b)];
  if (days[0] !== null && days[1] !== null) {
    if (a > b) throw refuse(`it starts after it ends (${a} > ${b})`);
    return { kind: 'days', from: a, to: b };
  }
  const instants = [parseDateTime(a), parseDateTime(b)];
  if (instants[0] !== null && instants[1] !== null) {
    if (instants[0] > instants[1]) throw refuse(`it starts after it ends (${a} > ${b})`);
    // the end counts through its own second (or millisecond, when it names one)
    const endMs = instants[1] + (/\.\d+/.test(b) ? 1 : 1000);
    return { kind: 'instants', startMs: instants[0], endMs };
  }
  throw refuse('must hold two dates (YYYY-MM-DD) or two date-times with an offset, both of the same form, each a real one');
}

const monthsBack = (day: string, n: number): string => `${addMonths(day.slice(0, 7), -n)}-01`;

/**
 * The local days (or instants) a range means for a site in `zone` at `nowMs`. `firstDay` is the site's
 * first local day with data ("all" starts there; today when it has none). Presets end today: "7d" is the
 * 7 days ending today, "month" the month so far, "6mo" and "12mo" the months so far counting this one.
 */
export function resolveDateRange(input: DateRangeInput, ctx: { zone: string; nowMs: number; firstDay: string | null }): ResolvedDateRange {
  if (input.kind !== 'preset') return input;
  const today = localDay(ctx.zone, ctx.nowMs);
  const days = (from: string): ResolvedDateRange => ({ kind: 'days', from, to: today });
  switch (input.preset) {
    case 'day':
      return days(today);
    case '7d':
    case '28d':
    case '30d':
    case '91d':
      return days(addDays(today, 1 - Number.parseInt(input.preset, 10)));
    case 'month':
      return days(`${today.slice(0, 7)}-01`);
    case '6mo':
      return days(monthsBack(today, 5));
    case '12mo':
      return days(monthsBack(today, 11));
    case 'year':
      return days(`${today.slice(0, 4)}-01-01`);
    case 'all':
      return days(ctx.firstDay !== null && ctx.firstDay < today ? ctx.firstDay : today);
  }
}
