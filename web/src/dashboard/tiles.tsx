// The headline tiles: visitors, visits, pageviews, views per visit, bounce rate and visit duration over
// the period (each the timeseries route's `total`, filters included), with the change against the
// previous period when compare is on. Choosing a tile draws its series in the chart.
import type { JSX } from 'preact';
import type { PanelContext } from './context.js';
import { change, formatExact, formatMetric } from './format.js';
import { isPageWide, panelWords } from './panel-words.js';
import { seriesQuery, type TileMetric } from './query.js';
import { readSeries } from './series-read.js';
import { setDashboardState } from './url-state.js';
import { readKey } from '../api/read-cache.js';
import { shown, useRead } from '../ui/use-read.js';

export const TILES: readonly { metric: TileMetric; label: string }[] = [
  { metric: 'visitors', label: 'Visitors' },
  { metric: 'sessions', label: 'Visits' },
  { metric: 'pageviews', label: 'Pageviews' },
  { metric: 'avg_pages_per_session', label: 'Views per visit' },
  { metric: 'bounce_rate', label: 'Bounce rate' },
  { metric: 'avg_session_eng_time_ms', label: 'Visit duration' },
];

export function Tiles({ ctx }: { ctx: PanelContext }) {
  return (
    <div class="tiles" role="group" aria-label="Totals for the period; choose one to chart it">
      {TILES.map((t) => (
        <Tile key={t.metric} ctx={ctx} metric={t.metric} label={t.label} />
      ))}
    </div>
  );
}

function Tile({ ctx, metric, label }: { ctx: PanelContext; metric: TileMetric; label: string }) {
  const query = seriesQuery(ctx.state, ctx.params, metric, 'day');
  const read = useRead(readKey('/v1/metrics/timeseries', query), () => readSeries(ctx.reader, query));
  const result = shown(read);
  const selected = ctx.state.metric === metric;
  const loading = read.status === 'loading';
  let body: JSX.Element;
  let value: number | undefined;
  if (!result) {
    body = <span class="tile-value skeleton-text" aria-hidden="true" />;
  } else if (!result.ok) {
    body = (
      // a page-wide refusal is said once by the note at the top: the tile only shows it has no number
      <span class={`tile-problem${isPageWide(result.error) ? ' quiet' : ''}`} data-code={result.error.code}>
        {isPageWide(result.error) ? '–' : panelWords(result.error, label)}
      </span>
    );
  } else {
    value = result.data.current.total;
    const previous = result.data.compare?.total;
    const delta = previous === undefined ? null : change(metric, value, previous);
    body = (
      <>
        <span class="tile-value" title={formatExact(value)}>
          {formatMetric(metric, value)}
        </span>
        {delta ? (
          <span class={`tile-change ${delta.sense}`} data-compare={previous}>
            <span aria-hidden="true">{delta.text}</span>
            <span class="sr-only">{delta.spoken}</span>
          </span>
        ) : null}
      </>
    );
  }
  return (
    <button
      type="button"
      class={`tile${selected ? ' selected' : ''}${loading && result ? ' stale' : ''}`}
      aria-pressed={selected}
      aria-busy={loading}
      data-metric={metric}
      data-value={value}
      onClick={() => setDashboardState({ ...ctx.state, metric })}
    >
      <span class="tile-label">{label}</span>
      {body}
    </button>
  );
}
