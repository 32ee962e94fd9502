// The time series of the chosen tile (uPlot, on a canvas), by day or, where the plan has it, by hour
// (a one-day period by the hour unless the reader picks days: query.ts, chartInterval); the previous
// period as a second, dashed line. The x axis spans the period, however many points (xRange). The same
// points are in a table below it, for people who do not see the canvas and for anyone who wants the
// exact numbers.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { downloadCsv } from '../api/csv.js';
import { readKey } from '../api/read-cache.js';
import type { ReadBody, ReadQuery } from '../api/read.js';
import { Skeleton } from '../ui/panel-state.js';
import { PanelFailure } from './panel-words.js';
import { cssColor, themeVersion } from '../ui/theme.js';
import { shown, useRead } from '../ui/use-read.js';
import type { PanelContext } from './context.js';
import { CsvButton } from './csv-button.js';
import { formatExact, formatMetric } from './format.js';
import { dayLabel, type Period } from './periods.js';
import { chartInterval, seriesQuery, type Interval, type TileMetric } from './query.js';
import { readSeries } from './series-read.js';
import { TILES } from './tiles.js';
import { setDashboardState } from './url-state.js';

type Series = ReadBody<'/v1/metrics/timeseries'>;
const HEIGHT = 260;
const COUNTS = new Set<TileMetric>(['visitors', 'sessions', 'pageviews', 'events']);
const WHOLE_STEPS = [1, 2, 5].flatMap((m) => [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7].map((p) => m * p)).sort((a, b) => a - b);

function pointLabel(start: string, interval: Interval): string {
  return interval === 'hour' ? `${dayLabel(start.slice(0, 10))} ${start.slice(11, 16)}` : dayLabel(start.slice(0, 10));
}

/**
 * A tick of the time axis, in UTC: "27 Oct" for days, "14:00" for hours ("27 Oct" at midnight). A
 * series by day names days only: its axis may be padded to hours around a single day's point.
 */
function axisLabel(ts: number, step: number, interval: Interval): string {
  const iso = new Date(ts * 1000).toISOString();
  if (step >= 86_400 || iso.slice(11, 16) === '00:00') return dayLabel(iso.slice(0, 10), false);
  return interval === 'day' ? '' : iso.slice(11, 16);
}

const DAY_S = 86_400;

/**
 * The x axis's range, in Unix seconds: the first point to the last. The points are the period's, one
 * per day or hour, zero-filled, so this is the period, however few points have traffic. Given, not
 * left to uPlot, which stretches a lone point's axis over years: a single day by day is one point,
 * with half a day either side of it.
 */
export function xRange(xs: readonly number[]): [number, number] {
  const first = xs[0] ?? 0;
  const last = xs[xs.length - 1] ?? first;
  return first === last ? [first - DAY_S / 2, last + DAY_S / 2] : [first, last];
}

export function Chart({ ctx }: { ctx: PanelContext }) {
  const { state } = ctx;
  const metric = state.metric;
  const period: Period = { from: ctx.params.from, to: ctx.params.to };
  // null while the plan's rules are on their way and the period is one day: nothing asked until then
  const interval = chartInterval(state, period, ctx.product.pending ? null : ctx.product.hourly);
  const query = seriesQuery(state, ctx.params, metric, interval ?? 'day');
  const read = useRead(interval ? readKey('/v1/metrics/timeseries', query) : null, () => readSeries(ctx.reader, query));
  const result = interval ? shown(read) : undefined;
  const label = TILES.find((t) => t.metric === metric)?.label ?? metric;
  const hourOffered = ctx.product.hourly || interval === 'hour';
  return (
    <section class="panel chart-panel" aria-labelledby="chart-title">
      <header class="panel-head">
        <h2 id="chart-title">
          {label} {interval ? <span class="muted">per {interval}</span> : null}
        </h2>
        <div class="panel-tools">
          {hourOffered ? (
            <div class="segmented" role="group" aria-label="Interval">
              {(['day', 'hour'] as const).map((i) => (
                <button key={i} type="button" aria-pressed={interval === i} onClick={() => setDashboardState({ ...state, interval: i })}>
                  {i === 'day' ? 'Days' : 'Hours'}
                </button>
              ))}
            </div>
          ) : null}
          <CsvButton
            what={`${label} per ${interval ?? 'day'}`}
            enabled={ctx.product.csv && interval !== null}
            download={() =>
              downloadCsv(
                ctx.reader,
                '/v1/metrics/timeseries',
                query as ReadQuery<'/v1/metrics/timeseries'>,
                `${ctx.fileStem}-${metric}-${interval}.csv`,
              )
            }
          />
        </div>
      </header>
      <div
        class={`chart-body${read.status === 'loading' && result ? ' stale' : ''}`}
        aria-busy={interval === null || read.status === 'loading'}
      >
        {!result ? (
          <Skeleton rows={1} label={`${label} chart`} />
        ) : !result.ok ? (
          <PanelFailure failure={result.error} what={label} />
        ) : (
          <Plot series={result.data} metric={metric} label={label} />
        )}
      </div>
      {result?.ok ? <PointsTable series={result.data} metric={metric} label={label} /> : null}
    </section>
  );
}

function Plot({ series, metric, label }: { series: Series; metric: TileMetric; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const readout = useRef<HTMLParagraphElement>(null);
  const version = themeVersion.value;
  const interval = series.current.interval;
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const points = series.current.points;
    const xs = points.map((p) => Date.parse(p.start) / 1000);
    const ys = points.map((p) => p.value);
    const previous = series.compare ? points.map((_, i) => series.compare!.points[i]?.value ?? null) : null;
    const range = xRange(xs);
    const text = cssColor('--muted');
    const grid = cssColor('--border');
    // What the cursor points at, in words under the chart (uPlot's own legend lists blanks at rest).
    const showPoint = (u: uPlot) => {
      const i = u.cursor.idx;
      if (!readout.current) return;
      readout.current.textContent =
        i === null || i === undefined
          ? ''
          : `${pointLabel(points[i].start, interval)}: ${formatMetric(metric, ys[i])}` +
            (previous && previous[i] !== null ? ` · previous period ${formatMetric(metric, previous[i]!)}` : '');
    };
    const plot = new uPlot(
      {
        width: el.clientWidth || 600,
        height: HEIGHT,
        // the API's days and hours are UTC; so is the axis
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        scales: { x: { time: true, range: () => range }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        legend: { show: false },
        cursor: { y: false, points: { size: 8 } },
        hooks: {
          setCursor: [showPoint],
          // uPlot draws the axis on the canvas: its span and labels are written on the element too, so
          // that a test can read what a person sees (test/web/dashboard.test.ts)
          draw: [
            (u) => {
              el.dataset.xFrom = new Date(u.scales.x.min! * 1000).toISOString();
              el.dataset.xTo = new Date(u.scales.x.max! * 1000).toISOString();
            },
          ],
        },
        series: [
          {},
          {
            label: 'This period',
            stroke: cssColor('--accent'),
            width: 2,
            fill: cssColor('--accent-soft'),
            points: { show: ys.length <= 62 },
          },
          ...(previous
            ? [{ label: 'Previous period', stroke: cssColor('--compare'), width: 1.5, dash: [6, 4], points: { show: false } }]
            : []),
        ],
        axes: [
          {
            stroke: text,
            grid: { stroke: grid, width: 1 },
            ticks: { stroke: grid, width: 1 },
            values: (_u, splits, _i, _space, step) => {
              const labels = splits.map((ts) => axisLabel(ts, step, interval));
              el.dataset.xLabels = labels.filter(Boolean).join('|');
              return labels;
            },
          },
          {
            stroke: text,
            grid: { stroke: grid, width: 1 },
            ticks: { show: false },
            size: 64,
            values: (_u, splits) => splits.map((v) => formatMetric(metric, v)),
            // counts step by whole numbers: no "1.5 visitors" on the axis
            ...(COUNTS.has(metric) ? { incrs: WHOLE_STEPS } : {}),
          },
        ],
      },
      previous ? [xs, ys, previous] : [xs, ys],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [series, metric, version]);
  const total = formatMetric(metric, series.current.total);
  return (
    <>
      <div
        ref={box}
        class="plot"
        role="img"
        aria-label={`${label} per ${interval}, ${series.current.points.length} points; ${total} over the period. The table below lists them.`}
      />
      <div class="chart-foot">
        <p class="legend" aria-hidden="true">
          <span class="key current" /> This period
          {series.compare ? (
            <>
              <span class="key previous" /> Previous period
            </>
          ) : null}
        </p>
        <p class="readout" ref={readout} aria-hidden="true" />
      </div>
    </>
  );
}

function PointsTable({ series, metric, label }: { series: Series; metric: TileMetric; label: string }) {
  const interval = series.current.interval;
  const compare = series.compare;
  return (
    <details class="chart-table">
      <summary>Show the numbers</summary>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region takes focus so that the keyboard can scroll it (axe: scrollable-region-focusable) */}
      <div class="table-scroll" tabIndex={0} role="region" aria-label={`${label} per ${interval}, scrollable`}>
        <table data-metric={metric}>
          <caption class="sr-only">
            {label} per {interval}
          </caption>
          <thead>
            <tr>
              <th scope="col">{interval === 'hour' ? 'Hour (UTC)' : 'Day (UTC)'}</th>
              <th scope="col">This period</th>
              {compare ? <th scope="col">Previous period</th> : null}
            </tr>
          </thead>
          <tbody>
            {series.current.points.map((p, i) => (
              <tr key={p.start} data-start={p.start} data-value={p.value} data-compare={compare?.points[i]?.value}>
                <th scope="row">{pointLabel(p.start, interval)}</th>
                <td title={formatExact(p.value)}>{formatMetric(metric, p.value)}</td>
                {compare ? <td>{compare.points[i] ? formatMetric(metric, compare.points[i].value) : ''}</td> : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
