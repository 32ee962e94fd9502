// The time series of the chosen tile (uPlot, on a canvas), by the hour, the site's local day, ISO week or
// month (query.ts, chartInterval: a one-day period by the hour where the plan has hours, long periods by
// weeks or months); the compared period as a second, dashed line. Every bucket of the period is a point
// (the answer's time_labels; a bucket without a row is zero). The x axis is the site's wall clock: the
// labels are local, drawn as they read. The same points are in a table below it, for people who do not
// see the canvas and for anyone who wants the exact numbers.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { downloadQueryCsv } from '../api/csv.js';
import { Skeleton } from '../ui/panel-state.js';
import { PanelFailure } from './panel-words.js';
import { cssColor, themeVersion } from '../ui/theme.js';
import { shown } from '../ui/use-read.js';
import type { PanelContext } from './context.js';
import { CsvButton } from './csv-button.js';
import { formatExact, formatMetric } from './format.js';
import { dayLabel, monthLabel } from './periods.js';
import { chartInterval, type Interval, type TileMetric } from './query.js';
import { seriesBody, type QueryAnswer } from './query-bodies.js';
import { TILES } from './tiles.js';
import { setDashboardState } from './url-state.js';
import { useQuery } from './use-query.js';

/** One bucket of the chart: its local label, the value, and the compared period's value at the same position. */
export interface Point {
  label: string;
  value: number;
  previous: number | null;
}

interface Series {
  points: Point[];
  interval: Interval;
  compared: boolean;
  zone: string;
}

/** The points of an answer: every labelled bucket in order, zero where no row counts anything. */
export function seriesPoints(answer: QueryAnswer, compared: boolean): Point[] {
  const rows = new Map(answer.results.map((r) => [String(r.dimensions[0]), r]));
  const labels = answer.meta.time_labels ?? [...rows.keys()];
  return labels.map((label) => {
    const row = rows.get(label);
    return { label, value: row?.metrics[0] ?? 0, previous: compared ? (row?.comparison?.metrics[0] ?? 0) : null };
  });
}

const HEIGHT = 260;
const COUNTS = new Set<TileMetric>(['visitors', 'visits', 'pageviews']);
const WHOLE_STEPS = [1, 2, 5].flatMap((m) => [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7].map((p) => m * p)).sort((a, b) => a - b);

function pointLabel(label: string, interval: Interval): string {
  if (interval === 'hour') return `${dayLabel(label.slice(0, 10))} ${label.slice(11, 16)}`;
  if (interval === 'week') return `Week of ${dayLabel(label.slice(0, 10))}`;
  if (interval === 'month') return monthLabel(label.slice(0, 10));
  return dayLabel(label.slice(0, 10));
}

/** A bucket's label as the seconds uPlot places it at: the local wall time read as if it were UTC. */
const labelSeconds = (label: string) => Date.parse(`${label.slice(0, 10)}T${label.slice(11, 19) || '00:00:00'}Z`) / 1000;

/**
 * A tick of the time axis, in the site's wall time: "27 Oct" for days and weeks, "14:00" for hours
 * ("27 Oct" at midnight), "Oct 2026" for months. A series by day names days only: its axis may be
 * padded to hours around a single day's point.
 */
function axisLabel(ts: number, step: number, interval: Interval): string {
  const iso = new Date(ts * 1000).toISOString();
  if (interval === 'month') return iso.slice(8, 10) === '01' && iso.slice(11, 16) === '00:00' ? monthLabel(iso.slice(0, 10)) : '';
  if (step >= 86_400 || iso.slice(11, 16) === '00:00') return dayLabel(iso.slice(0, 10), false);
  return interval === 'hour' ? iso.slice(11, 16) : '';
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

const INTERVAL_WORDS: Record<Interval, [string, string]> = {
  hour: ['Hours', 'hour'],
  day: ['Days', 'day'],
  week: ['Weeks', 'week'],
  month: ['Months', 'month'],
};

export function Chart({ ctx }: { ctx: PanelContext }) {
  const { state, period } = ctx;
  const metric = state.metric;
  // null while the plan's rules are on their way and the period is one day: nothing asked until then
  const interval = chartInterval(state, period, ctx.product.pending ? null : ctx.product.hourly);
  const body = interval ? seriesBody(state, ctx.siteId, period, metric, interval) : null;
  const read = useQuery(ctx.reader, body);
  const result = interval ? shown(read) : undefined;
  const label = TILES.find((t) => t.metric === metric)?.label ?? metric;
  const offered = (['hour', 'day', 'week', 'month'] as const).filter((i) => i !== 'hour' || ctx.product.hourly || interval === 'hour');
  const series: Series | null =
    result?.ok && interval
      ? {
          points: seriesPoints(result.data, state.compare !== null),
          interval,
          compared: state.compare !== null,
          zone: result.data.meta.timezone,
        }
      : null;
  return (
    <section class="panel chart-panel" aria-labelledby="chart-title">
      <header class="panel-head">
        <h2 id="chart-title">
          {label} {interval ? <span class="muted">per {INTERVAL_WORDS[interval][1]}</span> : null}
        </h2>
        <div class="panel-tools">
          <div class="segmented" role="group" aria-label="Interval">
            {offered.map((i) => (
              <button key={i} type="button" aria-pressed={interval === i} onClick={() => setDashboardState({ ...state, interval: i })}>
                {INTERVAL_WORDS[i][0]}
              </button>
            ))}
          </div>
          <CsvButton
            what={`${label} per ${interval ?? 'day'}`}
            enabled={ctx.product.csv && body !== null}
            download={() => downloadQueryCsv(ctx.reader, body!, `${ctx.fileStem}-${metric}-${interval}.csv`)}
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
        ) : series ? (
          <Plot series={series} metric={metric} label={label} />
        ) : null}
      </div>
      {series ? <PointsTable series={series} metric={metric} label={label} /> : null}
    </section>
  );
}

function Plot({ series, metric, label }: { series: Series; metric: TileMetric; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const readout = useRef<HTMLParagraphElement>(null);
  const version = themeVersion.value;
  const { interval, points } = series;
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = points.map((p) => labelSeconds(p.label));
    const ys = points.map((p) => p.value);
    const previous = series.compared ? points.map((p) => p.previous) : null;
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
          : `${pointLabel(points[i].label, interval)}: ${formatMetric(metric, ys[i])}` +
            (previous && previous[i] !== null ? ` · compared ${formatMetric(metric, previous[i]!)}` : '');
    };
    const plot = new uPlot(
      {
        width: el.clientWidth || 600,
        height: HEIGHT,
        // the labels are the site's wall time, placed as if UTC: the axis reads them as they are
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
            ? [{ label: 'Compared period', stroke: cssColor('--compare'), width: 1.5, dash: [6, 4], points: { show: false } }]
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
  const total = points.length;
  return (
    <>
      <div
        ref={box}
        class="plot"
        role="img"
        data-zone={series.zone}
        aria-label={`${label} per ${INTERVAL_WORDS[interval][1]}, ${total} points, in ${series.zone} time. The table below lists them.`}
      />
      <div class="chart-foot">
        <p class="legend" aria-hidden="true">
          <span class="key current" /> This period
          {series.compared ? (
            <>
              <span class="key previous" /> Compared period
            </>
          ) : null}
        </p>
        <p class="readout" ref={readout} aria-hidden="true" />
      </div>
    </>
  );
}

function PointsTable({ series, metric, label }: { series: Series; metric: TileMetric; label: string }) {
  const { interval, points, compared } = series;
  const word = INTERVAL_WORDS[interval][1];
  return (
    <details class="chart-table">
      <summary>Show the numbers</summary>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region takes focus so that the keyboard can scroll it (axe: scrollable-region-focusable) */}
      <div class="table-scroll" tabIndex={0} role="region" aria-label={`${label} per ${word}, scrollable`}>
        <table data-metric={metric}>
          <caption class="sr-only">
            {label} per {word}
          </caption>
          <thead>
            <tr>
              <th scope="col">
                {word.charAt(0).toUpperCase() + word.slice(1)} ({series.zone})
              </th>
              <th scope="col">This period</th>
              {compared ? <th scope="col">Compared period</th> : null}
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.label} data-start={p.label} data-value={p.value} data-compare={p.previous ?? undefined}>
                <th scope="row">{pointLabel(p.label, interval)}</th>
                <td title={formatExact(p.value)}>{formatMetric(metric, p.value)}</td>
                {compared ? <td>{p.previous === null ? '' : formatMetric(metric, p.previous)}</td> : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
