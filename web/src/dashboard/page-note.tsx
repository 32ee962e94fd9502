// The one note at the top of the dashboard for what stops every panel at once: a suspended site (who
// can resume it, and where), or a period older than the plan keeps (the plan's days, and the first day
// it can show). The panels then show placeholders, not the same refusal each (panel-words.tsx). The
// note reads the visitors tile's series (the very same key: one request), so an embed, which is not
// told the site's status or the plan's rules, shows the same note from the API's answer.
import { readKey } from '../api/read-cache.js';
import { shown, useRead } from '../ui/use-read.js';
import type { PanelContext } from './context.js';
import { addDays, dayLabel, daysBetween, isDay, type Day } from './periods.js';
import { DEFAULT_METRIC, seriesQuery } from './query.js';
import { readSeries } from './series-read.js';

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
  const query = seriesQuery(ctx.state, ctx.params, DEFAULT_METRIC, 'day');
  const result = shown(useRead(readKey('/v1/metrics/timeseries', query), () => readSeries(ctx.reader, query)));
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
  const compareFrom = ctx.state.compare ? addDays(ctx.params.from, -daysBetween(ctx.params.from, ctx.params.to)) : ctx.params.from;
  if (first === null || (compareFrom >= first && failure?.code !== 'RETENTION_EXCEEDED')) return null;
  const days = ctx.product.retentionDays ?? daysBetween(first, today);
  return (
    <div class="page-note" role="status" data-note="retention" data-first-day={first}>
      <p class="page-note-title">This period starts before the data this plan keeps</p>
      <p>
        This plan keeps {days} days of data: choose a period from {dayLabel(first)}
        {ctx.state.compare ? ' (with the previous period too, when comparing)' : ''}.
      </p>
    </div>
  );
}
