// The date picker's periods: whole local days of the site's time zone, as the query API counts them.
// Pure functions of "today" (that zone's date now: todayIn).
export type Day = string; // YYYY-MM-DD

const DAY_MS = 86_400_000;
const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

export function isDay(value: string): boolean {
  if (!DAY_RE.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === value;
}

export function todayUtc(now = Date.now()): Day {
  return new Date(now).toISOString().slice(0, 10);
}

/** Today's date in an IANA time zone (the site's); UTC's when the zone is unknown to this browser. */
export function todayIn(zone: string | null | undefined, now = Date.now()): Day {
  if (!zone || zone === 'UTC') return todayUtc(now);
  try {
    // en-CA writes dates as YYYY-MM-DD
    return new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
  } catch {
    return todayUtc(now);
  }
}

export function addDays(day: Day, n: number): Day {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

export function daysBetween(from: Day, to: Day): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

const monthStart = (day: Day): Day => `${day.slice(0, 7)}-01`;
function monthEnd(day: Day): Day {
  const [y, m] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

export interface Period {
  from: Day;
  to: Day;
}

export const PRESETS = [
  { id: 'today', label: 'Today' },
  { id: '7d', label: 'Last 7 days' },
  { id: '30d', label: 'Last 30 days' },
  { id: '90d', label: 'Last 90 days' },
  { id: 'month', label: 'Month to date' },
  { id: 'last_month', label: 'Last month' },
  { id: 'year', label: 'Year to date' },
  { id: '12mo', label: 'Last 12 months' },
] as const;
export type PresetId = (typeof PRESETS)[number]['id'];

/** The dashboard's period when the URL names none: the last 30 days, today included. */
export const DEFAULT_PRESET: PresetId = '30d';

export function presetPeriod(id: PresetId, today: Day): Period {
  switch (id) {
    case 'today':
      return { from: today, to: today };
    case '7d':
      return { from: addDays(today, -6), to: today };
    case '30d':
      return { from: addDays(today, -29), to: today };
    case '90d':
      return { from: addDays(today, -89), to: today };
    case 'month':
      return { from: monthStart(today), to: today };
    case 'last_month': {
      const end = addDays(monthStart(today), -1);
      return { from: monthStart(end), to: end };
    }
    case 'year':
      return { from: `${today.slice(0, 4)}-01-01`, to: today };
    case '12mo': {
      // the twelve calendar months ending with this one, as Plausible's 12mo
      const [y, m] = today.split('-').map(Number);
      return { from: new Date(Date.UTC(y, m - 12, 1)).toISOString().slice(0, 10), to: today };
    }
  }
}

/** The preset a period is, relative to today, if any ("custom" otherwise). */
export function presetOf(period: Period, today: Day): PresetId | null {
  for (const p of PRESETS) {
    const candidate = presetPeriod(p.id, today);
    if (candidate.from === period.from && candidate.to === period.to) return p.id;
  }
  return null;
}

/** A calendar month, or the current month to date. */
const isMonthPeriod = (p: Period, today: Day) =>
  p.from === monthStart(p.from) && (p.to === monthEnd(p.from) || (p.to === today && p.to.slice(0, 7) === p.from.slice(0, 7)));

/**
 * The previous (-1) or next (+1) period: a calendar month steps by months (month to date steps to the
 * whole previous month), any other period by its own length. Never past today; null when there is no
 * next period.
 */
export function shiftPeriod(period: Period, direction: -1 | 1, today: Day): Period | null {
  if (direction === 1 && period.to >= today) return null;
  if (isMonthPeriod(period, today)) {
    const start = direction === -1 ? monthStart(addDays(period.from, -1)) : addDays(monthEnd(period.from), 1);
    const end = monthEnd(start);
    return { from: start, to: end > today ? today : end };
  }
  const days = daysBetween(period.from, period.to);
  const from = addDays(period.from, direction * days);
  const to = addDays(period.to, direction * days);
  return to > today ? { from: addDays(today, -(days - 1)), to: today } : { from, to };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Jun 2025": a month of the chart. */
export function monthLabel(day: Day): string {
  return `${MONTHS[Number(day.slice(5, 7)) - 1]} ${day.slice(0, 4)}`;
}

/** "3 Jun 2025", the form the picker and the chart use. */
export function dayLabel(day: Day, withYear = true): string {
  const [y, m, d] = day.split('-').map(Number);
  return `${d} ${MONTHS[m - 1]}${withYear ? ` ${y}` : ''}`;
}

export function periodLabel(period: Period, today: Day): string {
  const preset = presetOf(period, today);
  if (preset) return PRESETS.find((p) => p.id === preset)!.label;
  if (period.from === period.to) return dayLabel(period.from);
  if (period.from === monthStart(period.from) && period.to === monthEnd(period.from))
    return `${MONTHS[Number(period.from.slice(5, 7)) - 1]} ${period.from.slice(0, 4)}`;
  const sameYear = period.from.slice(0, 4) === period.to.slice(0, 4);
  return `${dayLabel(period.from, !sameYear)} – ${dayLabel(period.to)}`;
}
