// The headline tiles: visitors, visits, pageviews, views per visit, bounce rate and visit duration over
// the period, all six in one read of the query API (the site's days, the page's filters), with the
// change against the compared period when compare is on. Choosing a tile draws its series in the chart.
import type { JSX } from 'preact';
import type { PanelContext } from './context.js';
import { change, formatExact, formatMetric } from './format.js';
import { isPageWide, panelWords } from './panel-words.js';
import { compareLabel, type DashboardState, type TileMetric } from './query.js';
import { tilesBody, type QueryAnswer } from './query-bodies.js';
import { setDashboardState } from './url-state.js';
import type { Result } from '../api/read.js';
import { shown } from '../ui/use-read.js';
import { useQuery } from './use-query.js';

export const TILES: readonly { metric: TileMetric; label: string }[] = [
  { metric: 'visitors', label: 'Visitors' },
  { metric: 'visits', label: 'Visits' },
  { metric: 'pageviews', label: 'Pageviews' },
  { metric: 'views_per_visit', label: 'Views per visit' },
  { metric: 'bounce_rate', label: 'Bounce rate' },
  { metric: 'visit_duration', label: 'Visit duration' },
];

/** The tiles' read (the page note reads the very same body: one request). */
export function useTilesRead(ctx: PanelContext) {
  return useQuery(ctx.reader, tilesBody(ctx.state, ctx.siteId, ctx.period));
}

export function Tiles({ ctx }: { ctx: PanelContext }) {
  const read = useTilesRead(ctx);
  const result = shown(read);
  return (
    <div class="tiles" role="group" aria-label="Totals for the period; choose one to chart it">
      {TILES.map((t, i) => (
        <Tile
          key={t.metric}
          state={ctx.state}
          index={i}
          result={result}
          loading={read.status === 'loading'}
          metric={t.metric}
          label={t.label}
        />
      ))}
    </div>
  );
}

interface TileProps {
  state: DashboardState;
  /** the metric's place in the answer (TILE_METRICS' order) */
  index: number;
  result: Result<QueryAnswer> | null;
  loading: boolean;
  metric: TileMetric;
  label: string;
}

function Tile({ state, index, result, loading, metric, label }: TileProps) {
  const selected = state.metric === metric;
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
    const row = result.data.results[0];
    value = row?.metrics[index] ?? 0;
    const previous = row?.comparison?.metrics[index];
    const delta = previous === undefined ? null : change(metric, value, previous, compareLabel(state.compare));
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
      onClick={() => setDashboardState({ ...state, metric })}
    >
      <span class="tile-label">{label}</span>
      {body}
    </button>
  );
}
