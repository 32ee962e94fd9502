// The headline rates on /v1/metrics/timeseries (bounce_rate, avg_pages_per_session, avg_session_eng_time_ms):
// the very numbers of the overview report for the same range (one metric registry), points and total,
// compare included; totals from the range's sums, also hourly; priced like sessions.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { metricsHarness, referenceSites, type MetricsHarness } from './metrics-harness.js';
import { MODES } from '../unit/reports/reference.js';

const FROM = '2025-06-10';
const TO = '2025-06-12';
const RATES = ['bounce_rate', 'avg_pages_per_session', 'avg_session_eng_time_ms'] as const;
/** the overview's daily series carries these two of the three */
const IN_OVERVIEW_SERIES = ['bounce_rate', 'avg_session_eng_time_ms'] as const;

let h: MetricsHarness;
let sites: Record<string, string>;

before(async () => {
  h = await metricsHarness();
  // a strict site keeps only the simple actions: both profiles' sessions
  sites = await referenceSites(h, { strict: MODES.strict, extended: MODES.extended });
});
after(async () => h?.close());

async function ok(path: string, query: Record<string, string | number>) {
  const res = await h.call(path, query);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

test('each rate equals the overview report: total, and the daily points where the overview has a series of it, compare included', async () => {
  for (const [name, site] of Object.entries(sites)) {
    const overview = await ok('/v1/reports/overview', { site_id: site, from: FROM, to: TO, compare: 'prev_period' });
    for (const metric of RATES) {
      const body = await ok('/v1/metrics/timeseries', { site_id: site, metric, from: FROM, to: TO, compare: 'prev_period' });
      for (const which of ['current', 'compare'] as const) {
        const what = `${name} ${metric} ${which}`;
        const ts = body[which];
        const ov = overview[which].overview;
        assert.equal(ts.metric, metric, what);
        assert.equal(ts.total, ov.totals[metric], what);
        assert.equal(ts.points.length, 3, what);
        if ((IN_OVERVIEW_SERIES as readonly string[]).includes(metric)) {
          assert.deepEqual(
            ts.points.map((p: { start: string; value: number }) => [p.start.slice(0, 10), p.value]),
            ov.timeseries.map((d: Record<string, number | string>) => [d.date, d[metric]]),
            what,
          );
        }
      }
    }
    // the fixture makes every rate non-trivial, so equality above is not 0 = 0
    for (const metric of RATES) assert.ok(overview.current.overview.totals[metric] > 0, `${name} ${metric}`);
  }
});

test('avg_pages_per_session per day is pageviews / sessions of that day; the total is of the sums, not a mean of the days', async () => {
  const site = sites.extended;
  const [rate, pageviews, sessions] = await Promise.all(
    ['avg_pages_per_session', 'pageviews', 'sessions'].map((metric) =>
      ok('/v1/metrics/timeseries', { site_id: site, metric, from: FROM, to: TO }),
    ),
  );
  rate.current.points.forEach((p: { start: string; value: number }, i: number) => {
    const s = sessions.current.points[i].value;
    assert.equal(p.value, s === 0 ? 0 : pageviews.current.points[i].value / s, p.start);
  });
  assert.equal(rate.current.total, pageviews.current.total / sessions.current.total);
  const meanOfDays = rate.current.points.reduce((n: number, p: { value: number }) => n + p.value, 0) / rate.current.points.length;
  assert.notEqual(rate.current.total, meanOfDays, 'the fixture tells the two apart');
});

test('hourly: one point per hour, and the total is the same range value as by day', async () => {
  for (const metric of RATES) {
    const day = await ok('/v1/metrics/timeseries', { site_id: sites.extended, metric, from: FROM, to: TO });
    const hour = await ok('/v1/metrics/timeseries', { site_id: sites.extended, metric, interval: 'hour', from: FROM, to: TO });
    assert.equal(hour.current.points.length, 72, metric);
    assert.equal(hour.current.total, day.current.total, metric);
    assert.ok(
      hour.current.points.every((p: { value: number }) => Number.isFinite(p.value) && p.value >= 0),
      metric,
    );
  }
});

test('units: metric factor 2, like sessions (7 days by day 4, by hour 12); compare costs nothing extra', async () => {
  for (const metric of RATES) {
    const day = await ok('/v1/metrics/timeseries', { site_id: sites.extended, metric });
    assert.equal(day.meta.units_charged, 4, metric);
    const hour = await ok('/v1/metrics/timeseries', { site_id: sites.extended, metric, interval: 'hour', compare: 'prev_period' });
    assert.equal(hour.meta.units_charged, 12, metric);
  }
});

test('the breakdown keeps its four metrics: a rate there is 422 naming the allowed ones', async () => {
  const res = await h.call('/v1/metrics/breakdown', { site_id: sites.extended, dimension: 'page', metric: 'bounce_rate' });
  assert.equal(res.statusCode, 422, res.body);
  assert.deepEqual(res.json().error.details, { parameter: 'metric', allowed: ['pageviews', 'visitors', 'sessions', 'events'] });
});
