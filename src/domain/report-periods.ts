// The periods of the mailed reports (docs/decisions/reports.md): a week is due at 00:00 on Monday for
// the ISO week before, a month at 00:00 on the 1st for the month before, both in the site's time zone.
// `footfall report send --now` and the server's sweep send the latest period due at an instant.
import { addMonths } from './periods.js';
import { addDays } from './report-range.js';
import { dayStart, isoWeekStart, localDay, monthStart } from './zoned-time.js';

export const REPORT_PERIODS = ['week', 'month'] as const;
export type ReportPeriod = (typeof REPORT_PERIODS)[number];

export interface DuePeriod {
  period: ReportPeriod;
  /** first local day of the period, YYYY-MM-DD: with the subscription, what a delivery is recorded by */
  from: string;
  /** last local day, inclusive */
  to: string;
  /** the instant the report became due: the local midnight after `to` */
  dueMs: number;
}

/** The latest period of `period` whose report is due at or before `nowMs`, in `zone`. */
export function latestDuePeriod(period: ReportPeriod, zone: string, nowMs: number): DuePeriod {
  const today = localDay(zone, nowMs);
  // the first day of the period under way: its midnight is the due instant of the one before
  const current = period === 'week' ? isoWeekStart(today) : monthStart(today);
  const from = period === 'week' ? addDays(current, -7) : `${addMonths(current.slice(0, 7), -1)}-01`;
  return { period, from, to: addDays(current, -1), dueMs: dayStart(zone, current) };
}

/** The period before `p` (the change a report shows is against it). */
export function previousPeriod(p: Pick<DuePeriod, 'period' | 'from'>): { from: string; to: string } {
  if (p.period === 'week') return { from: addDays(p.from, -7), to: addDays(p.from, -1) };
  return { from: `${addMonths(p.from.slice(0, 7), -1)}-01`, to: addDays(p.from, -1) };
}

/** Words for a period in a subject line: "week 47 of 2026 (16-22 Nov)", "November 2026". */
export function periodWords(p: Pick<DuePeriod, 'period' | 'from' | 'to'>): string {
  const month = (day: string, opts: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', ...opts }).format(new Date(`${day}T00:00:00Z`));
  if (p.period === 'month') return month(p.from, { month: 'long', year: 'numeric' });
  return `${month(p.from, { day: 'numeric', month: 'short' })} to ${month(p.to, { day: 'numeric', month: 'short', year: 'numeric' })}`;
}
