// Calendar days, ISO weeks, months and hours of an IANA time zone, as spans of UTC time: what a read in a
// site's time zone counts over. Every span is contiguous ([start, end) in ms since the epoch), so a read
// keeps filtering on the events' UTC timestamps; only where the spans start depends on the zone.
//
// The zone's rules are the runtime's (Intl, the tz database Node ships). A local day starts at its first
// instant: midnight, or the instant its clocks jump to where midnight is skipped (America/Santiago's
// spring); it lasts 23 or 25 hours on DST days and none at all where a zone skipped it whole
// (Pacific/Apia's 2011-12-30). An hour bucket is a local clock hour; the hour a fall-back repeats is one
// bucket of two hours (one label, as a reader of the local clock sees it), an hour a spring skips is none.

import { addMonths } from './periods.js';
import { addDays } from './report-range.js';

/** No zone is more than 14 hours from UTC: a local day's first instant lies within this of its UTC midnight. */
const REACH_MS = 15 * 3_600_000;

export type BucketUnit = 'hour' | 'day' | 'week' | 'month';

/** One bucket of a local calendar: its label (`YYYY-MM-DD`, or `YYYY-MM-DD HH:00:00` for hours) and its span. */
export interface ZonedBucket {
  label: string;
  start: number;
  end: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, f);
  }
  return f;
}

/**
 * Clock readings already made, by zone and second: the same instants (local midnights, the offsets' samples)
 * are read by every request over overlapping days, and one reading (Intl's formatToParts) costs a few
 * microseconds, a few hundred of them a request. Emptied when full: a bound, not a policy.
 */
const clocks = new Map<string, string>();
const CLOCKS_MAX = 100_000;

/** The local wall clock at `ms`, to the second: `YYYY-MM-DD HH:MM:SS`, which sorts as time does within a zone's day. */
export function localClock(zone: string, ms: number): string {
  const key = `${zone} ${Math.floor(ms / 1000)}`;
  const known = clocks.get(key);
  if (known !== undefined) return known;
  const p: Record<string, string> = {};
  for (const part of formatOf(zone).formatToParts(ms)) p[part.type] = part.value;
  // years before 1000 or after 9999 are outside any range footfall reads
  const clock = `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
  if (clocks.size >= CLOCKS_MAX) clocks.clear();
  clocks.set(key, clock);
  return clock;
}

/** The local calendar day at `ms`. */
export const localDay = (zone: string, ms: number): string => localClock(zone, ms).slice(0, 10);

/** The Monday of `day`'s ISO week. */
export function isoWeekStart(day: string): string {
  const dow = new Date(`${day}T00:00:00Z`).getUTCDay(); // 0 = Sunday
  return addDays(day, -((dow + 6) % 7));
}

/** The first day of `day`'s month. */
export const monthStart = (day: string): string => `${day.slice(0, 7)}-01`;

/** The first day of the month after `day`'s. */
export const nextMonthStart = (day: string): string => `${addMonths(day.slice(0, 7), 1)}-01`;

/** The smallest instant in [lo, hi] whose local clock is at or past `clock` (the clocks of one zone rise with time but for fall-backs within a day, which never reach back across the boundaries searched here). */
function firstAtOrPast(zone: string, clock: string, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (localClock(zone, mid) >= clock) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The first instant after the local hour whose last second is `lastSecond`, from `at` inside it: one
 * second after the instant the clock shows that second, or, where the clock jumps over it (a spring
 * that starts at :45, as Chatham's), the instant it lands past it.
 */
function nextHourAfter(zone: string, lastSecond: string, at: number): number {
  // within the two hours a fall-back can hold (whole-hour and 30-minute DST shifts alike)
  const t = firstAtOrPast(zone, lastSecond, at, at + 2 * 3_600_000 + 1000);
  return localClock(zone, t) === lastSecond ? t + 1000 : t;
}

/**
 * The first instant of local `day` in `zone`. A zone that skipped the day whole starts it where the next
 * day starts (the span is empty). The common case (midnight exists) costs three clock readings.
 */
export function dayStart(zone: string, day: string): number {
  const midnight = Date.parse(`${day}T00:00:00Z`);
  if (zone === 'UTC') return midnight;
  // midnight, if the offset around it is the offset at the guess: most days of most zones
  const offset = (ms: number) => Date.parse(`${localClock(zone, ms).replace(' ', 'T')}Z`) - Math.floor(ms / 1000) * 1000;
  const guess = midnight - offset(midnight - offset(midnight));
  if (localClock(zone, guess) === `${day} 00:00:00` && localClock(zone, guess - 1000) < `${day} 00:00:00`) return guess;
  return firstAtOrPast(zone, `${day} 00:00:00`, midnight - REACH_MS, midnight + REACH_MS);
}

/** The span of local `day` (empty for a day the zone skipped). */
export function daySpan(zone: string, day: string): { start: number; end: number } {
  return { start: dayStart(zone, day), end: dayStart(zone, addDays(day, 1)) };
}

/** The first day of the bucket of `unit` that holds `day` (a day for hours: their buckets are counted within days). */
export function bucketDay(unit: BucketUnit, day: string): string {
  return unit === 'week' ? isoWeekStart(day) : unit === 'month' ? monthStart(day) : day;
}

/**
 * The buckets of `unit` covering local days `from` to `to` (inclusive), in order. A week or month the
 * range starts inside is labelled by its own first day, as a calendar shows it, and counted from `from`;
 * one it ends inside stops at the end of `to`. Days a zone skipped whole have no bucket.
 */
export function zonedBuckets(zone: string, from: string, to: string, unit: BucketUnit): ZonedBucket[] {
  const out: ZonedBucket[] = [];
  if (from > to) return out;
  const end = dayStart(zone, addDays(to, 1));
  if (unit === 'hour') {
    let at = dayStart(zone, from);
    while (at < end) {
      const clock = localClock(zone, at);
      const label = `${clock.slice(0, 13)}:00:00`;
      const lastSecond = `${clock.slice(0, 13)}:59:59`;
      // the next local hour: an hour on from this one's start where the clock goes on evenly (two
      // readings); else the first instant past this hour's last second, searched within the two hours a
      // fall-back can hold (whole-hour and 30-minute DST shifts alike)
      const even = at - (Number(clock.slice(14, 16)) * 60 + Number(clock.slice(17, 19))) * 1000 - (at % 1000) + 3_600_000;
      const next = Math.min(
        end,
        localClock(zone, even - 1000) === lastSecond && localClock(zone, even).endsWith(':00:00')
          ? even
          : nextHourAfter(zone, lastSecond, at),
      );
      const last = out.at(-1);
      if (last && last.label === label) last.end = next;
      else out.push({ label, start: at, end: next });
      at = next;
    }
    return out;
  }
  let day = from;
  while (day <= to) {
    const label = bucketDay(unit, day);
    const after = unit === 'day' ? addDays(day, 1) : unit === 'week' ? addDays(label, 7) : nextMonthStart(label);
    const last = after > to ? addDays(to, 1) : after;
    const span = { start: dayStart(zone, day), end: dayStart(zone, last) };
    if (span.end > span.start) out.push({ label, ...span });
    day = last;
  }
  return out;
}
