// The one note at the top of the dashboard for what stops every panel at once: a suspended site (who
// can resume it, and where), or a period older than the plan keeps (the plan's days, and the first day
// it can show). The panels then show placeholders, not the same refusal each (panel-words.tsx). The
// note reads the tiles' answer (the very same body: one request), so an embed, which is not told the
// site's status or the plan's rules, shows the same note from the API's answer.
import { shown } from '../ui/use-read.js';
import type { PanelContext } from './context.js';
import { addDays, dayLabel, daysBetween, isDay, type Day, type Period } from './periods.js';
import type { Compare } from './query.js';
import { useTilesRead } from './tiles.js';

/** The first day the page reads: the period's, or the compared period's when that starts earlier. */
export function firstDayRead(period: Period, compare: Compare): Day {
  if (compare === 'previous_period') return addDays(period.from, -daysBetween(period.from, period.to));
  if (compare === 'year_over_year') return `${Number(period.from.slice(0, 4)) - 1}${period.from.slice(4)}`;
  if (compare && compare.from < period.from) return compare.from;
  return period.from;
}

/** The first day a plan keeping `days` days shows; null: it keeps everything. */
export function firstKeptDay(days: number | null | undefined, today: Day): Day | null {
  return days ? addDays(today, -(days - 1)) : null;
}

export interface NoteProps {
  ctx: PanelContext;
  today: Day;
  /** the site's status when the page knows it (the signed-in dashboard) */
  suspended?: boolean;
  /** where the reader resumes a suspended site; absent: the reader may not (a viewer, an embed) */
  manageHref?: string;
  /** the reader is a member of the workspace (a viewer can ask its owners and admins) */
  member: boolean;
}

export function PageNote({ ctx, today, suspended, manageHref, member }: NoteProps) {
  const result = shown(useTilesRead(ctx));
  const failure = result && !result.ok ? result.error : null;
  if (suspended || failure?.code === 'SITE_INACTIVE') {
    return (
      <div class="page-note" role="status" data-note="suspended">
        <p class="page-note-title">This site is suspended</p>
        <p>
          It collects no visits and shows no numbers until it is resumed; what it collected before is kept.{' '}
          {manageHref ? (
            <>
              Resume it in <a href={manageHref}>Settings &gt; Sites</a> (Resume collecting).
            </>
          ) : member ? (
            'An owner or admin of the workspace can resume it in Settings > Sites.'
          ) : (
            "The site's owner can resume it."
          )}
        </p>
      </div>
    );
  }
  const given = failure?.code === 'RETENTION_EXCEEDED' ? failure.details?.min_allowed_from : undefined;
  const first = typeof given === 'string' && isDay(given) ? given : firstKeptDay(ctx.product.retentionDays, today);
  const compareFrom = firstDayRead(ctx.period, ctx.state.compare);
  if (first === null || (compareFrom >= first && failure?.code !== 'RETENTION_EXCEEDED')) return null;
  const days = ctx.product.retentionDays ?? daysBetween(first, today);
  return (
    <div class="page-note" role="status" data-note="retention" data-first-day={first}>
      <p class="page-note-title">This period starts before the data this plan keeps</p>
      <p>
        This plan keeps {days} days of data: choose a period from {dayLabel(first)}
        {ctx.state.compare ? ' (with the compared period too)' : ''}.
      </p>
    </div>
  );
}
