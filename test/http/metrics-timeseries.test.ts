import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { metricsHarness, type MetricsHarness } from './metrics-harness.js';
import { generate, inRange, seriesOf, sessions, type Line } from './metrics-fixtures.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
let h: MetricsHarness;
let site: string;
let lines: Line[];

before(async () => {
  h = await metricsHarness();
  site = await h.site();
  lines = generate({ site, firstDay: '2025-05-01', lastDay: '2025-06-14' });
  await h.importEvents(lines as unknown as Record<string, unknown>[]);
});
after(() => h.close());

function dense(from: string, to: string, size: number, values: Map<number, number>) {
  const out = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t < Date.parse(`${to}T00:00:00Z`) + DAY; t += size) {
    out.push({ start: new Date(t).toISOString(), value: values.get(t) ?? 0 });
  }
  return out;
}

test('daily series of every metric equal counts taken from the imported lines, compare included', async () => {
  for (const metric of ['pageviews', 'visitors', 'sessions', 'events'] as const) {
    const r = await h.call('/v1/metrics/timeseries', {
      site_id: site,
      metric,
      from: '2025-06-01',
      to: '2025-06-14',
      compare: 'prev_period',
    });
    assert.equal(r.statusCode, 200, r.body);
    const body = r.json();
    const cur = dense('2025-06-01', '2025-06-14', DAY, seriesOf(inRange(lines, '2025-06-01', '2025-06-14'), metric, DAY));
    const prev = dense('2025-05-18', '2025-05-31', DAY, seriesOf(inRange(lines, '2025-05-18', '2025-05-31'), metric, DAY));
    assert.deepEqual(body.current, { metric, interval: 'day', total: cur.reduce((s, p) => s + p.value, 0), points: cur }, metric);
    assert.deepEqual(body.compare, { metric, interval: 'day', total: prev.reduce((s, p) => s + p.value, 0), points: prev }, metric);
    assert.ok(body.current.total > 0, `${metric}: the fixture has data`);
    assert.deepEqual(body.range, {
      start: '2025-06-01T00:00:00.000Z',
      end: '2025-06-14T23:59:59.999Z',
      compare_start: '2025-05-18T00:00:00.000Z',
      compare_end: '2025-05-31T23:59:59.999Z',
    });
    assert.equal(body.availability.route, 'timeseries');
    assert.equal(body.availability.classification, 'strict_safe');
    assert.equal(body.availability.current.status, 'available');
    assert.deepEqual(body.meta.surface.compareWindow, {
      enabled: true,
      mode: 'prev_period',
      compareStart: '2025-05-18T00:00:00.000Z',
      compareEnd: '2025-05-31T23:59:59.999Z',
    });
  }
});

test('hourly visitors: distinct keys per hour, and the total is the sum of daily uniques, not of the hours', async () => {
  const r = await h.call('/v1/metrics/timeseries', {
    site_id: site,
    metric: 'visitors',
    interval: 'hour',
    from: '2025-06-10',
    to: '2025-06-11',
  });
  assert.equal(r.statusCode, 200, r.body);
  const body = r.json();
  const span = inRange(lines, '2025-06-10', '2025-06-11');
  const hourly = dense('2025-06-10', '2025-06-11', HOUR, seriesOf(span, 'visitors', HOUR));
  assert.equal(body.current.points.length, 48);
  assert.deepEqual(body.current.points, hourly);
  const daily = [...seriesOf(span, 'visitors', DAY).values()].reduce((s, v) => s + v, 0);
  assert.equal(body.current.total, daily);
  assert.ok(hourly.reduce((s, p) => s + p.value, 0) > daily, 'the fixture has visitors seen in two hours of a day');
});

test('hourly sessions count each session in its start hour', async () => {
  const r = await h.call('/v1/metrics/timeseries', {
    site_id: site,
    metric: 'sessions',
    interval: 'hour',
    from: '2025-06-12',
    to: '2025-06-12',
  });
  const expected = dense('2025-06-12', '2025-06-12', HOUR, seriesOf(inRange(lines, '2025-06-12', '2025-06-12'), 'sessions', HOUR));
  assert.deepEqual(r.json().current.points, expected);
});

test('filters: all pairs must equal; session attributes come from the first event', async () => {
  const from = '2025-06-01';
  const to = '2025-06-14';
  const span = inRange(lines, from, to);
  const pricing = span.filter((l) => l.type === 'pageview' && l.path === '/pricing' && !l.traffic_class).length;
  let r = await h.call('/v1/metrics/timeseries', { site_id: site, from, to, filters: JSON.stringify({ page: '/pricing' }) });
  assert.equal(r.json().current.total, pricing);

  const de = sessions(span).filter((s) => s.traffic === 'human' && s.country === 'DE').length;
  r = await h.call('/v1/metrics/timeseries', { site_id: site, from, to, metric: 'sessions', filters: JSON.stringify({ country: 'DE' }) });
  assert.equal(r.json().current.total, de);

  const both = sessions(span).filter((s) => s.traffic === 'human' && s.country === 'DE' && s.pages.has('/café')).length;
  r = await h.call('/v1/metrics/timeseries', {
    site_id: site,
    from,
    to,
    metric: 'sessions',
    filters: JSON.stringify({ country: 'DE', page: '/café' }),
  });
  assert.equal(r.json().current.total, both);
  assert.ok(both > 0 && both < de);
});

test('defaults: the 7 days ending today, metric pageviews, interval day, traffic humans, compare null', async () => {
  const r = await h.call('/v1/metrics/timeseries', { site_id: site });
  const body = r.json();
  assert.equal(body.current.metric, 'pageviews');
  assert.equal(body.current.interval, 'day');
  assert.equal(body.compare, null);
  assert.equal(body.range.start, '2025-06-09T00:00:00.000Z');
  assert.equal(body.range.end, '2025-06-15T23:59:59.999Z');
  assert.equal(body.current.points.length, 7);
  assert.equal(body.current.points[6].value, 0, 'nothing imported for today');
  assert.deepEqual(body.meta.surface.compareWindow, { enabled: false, mode: null, compareStart: null, compareEnd: null });
});

test('traffic selects classes: bots_only counts only the crawler', async () => {
  const r = await h.call('/v1/metrics/timeseries', { site_id: site, traffic: 'bots_only', from: '2025-06-01', to: '2025-06-14' });
  const crawler = inRange(lines, '2025-06-01', '2025-06-14').filter((l) => l.traffic_class === 'bot').length;
  assert.equal(r.json().current.total, crawler);
  assert.equal(crawler, 14);
});

test('units follow the spec formula: timeseries 7 days day = 4, 60 days hour = 24; compare does not change them', async () => {
  const used = async () => (await h.call('/v1/usage/current', {})).json().units_used as number;
  const cases: { q: Record<string, string>; units: number }[] = [
    { q: { from: '2025-06-09', to: '2025-06-15' }, units: 4 },
    { q: { from: '2025-04-17', to: '2025-06-15', interval: 'hour' }, units: 24 },
    { q: { from: '2025-06-09', to: '2025-06-15', compare: 'prev_period' }, units: 4 },
    { q: { from: '2025-06-09', to: '2025-06-15', metric: 'events' }, units: 2 },
    { q: { from: '2025-05-16', to: '2025-06-15', metric: 'visitors' }, units: 8 },
  ];
  for (const c of cases) {
    const before = await used();
    const r = await h.call('/v1/metrics/timeseries', { site_id: site, ...c.q });
    assert.equal(r.statusCode, 200, r.body);
    const meta = r.json().meta;
    assert.equal(meta.units_charged, c.units, JSON.stringify(c.q));
    assert.equal(meta.usage.used_units, before + c.units, 'meta.usage includes this request');
    assert.equal(await used(), before + c.units);
  }
});

test('an extended-only filter over a range crossing effective_at counts only the compatible window', async () => {
  const effectiveAt = '2025-06-10T00:00:00.000Z';
  const switched = await h.site({ profile: 'extended', effectiveAt });
  const mine = generate({ site: switched, firstDay: '2025-06-05', lastDay: '2025-06-14', seed: 3 });
  await h.importEvents(mine as unknown as Record<string, unknown>[]);
  const r = await h.call('/v1/metrics/timeseries', {
    site_id: switched,
    from: '2025-06-05',
    to: '2025-06-14',
    filters: JSON.stringify({ source: 'newsletter' }),
    metric: 'sessions',
  });
  assert.equal(r.statusCode, 200, r.body);
  const body = r.json();
  assert.equal(body.availability.classification, 'extended_only');
  assert.equal(body.availability.current.status, 'partially_available_after_effective_at');
  assert.equal(body.availability.current.compatibleStart, effectiveAt);
  // before effective_at the site was strict: utm values were never stored
  const expected = sessions(inRange(mine, '2025-06-10', '2025-06-14')).filter((s) => s.traffic === 'human');
  const count = expected.filter((s) => s.source === 'newsletter').length;
  assert.ok(count > 0);
  assert.equal(body.current.total, count);
  assert.equal(body.current.points.length, 10, 'the series stays dense over the requested days');
  assert.deepEqual(
    body.current.points.slice(0, 5).map((p: { value: number }) => p.value),
    [0, 0, 0, 0, 0],
  );
});
