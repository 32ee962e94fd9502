// The dashboard's URL state (web/src/dashboard/query.ts) and periods (periods.ts): pure functions, so
// checked here without a browser. A link must reproduce the view: state -> query string -> state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chartInterval, periodOf, searchFromState, stateFromSearch, withFilter, withoutFilter } from '../../web/src/dashboard/query.js';
import { listBody, seriesBody, tilesBody } from '../../web/src/dashboard/query-bodies.js';
import { periodLabel, presetOf, presetPeriod, shiftPeriod, todayIn } from '../../web/src/dashboard/periods.js';

const TODAY = '2025-06-15';

test("the default state is the last 30 days of people, visitors by the period's interval, unfiltered; it writes no parameter", () => {
  const s = stateFromSearch('');
  assert.deepEqual(s, {
    period: null,
    compare: null,
    traffic: 'humans',
    tenantId: null,
    filters: [],
    metric: 'visitors',
    interval: null,
  });
  assert.equal(searchFromState(s), '');
  assert.deepEqual(tilesBody(s, 'site_1', periodOf(s, TODAY)), {
    site_id: 'site_1',
    date_range: ['2025-05-17', TODAY],
    metrics: ['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'visit_duration'],
  });
});

test("every parameter round-trips; parameters of others (site_id, theme) are kept; the bodies are the query API's", () => {
  const filters = JSON.stringify([
    ['is', 'country', 'FR'],
    ['contains', 'page', 'Blog'],
    ['is_not', 'browser', 'Safari'],
  ]);
  const search = `?site_id=s&theme=dark&from=2025-06-01&to=2025-06-10&compare=prev_period&traffic=all&tenant_id=t1&filters=${encodeURIComponent(filters)}&metric=bounce_rate&interval=hour`;
  const s = stateFromSearch(search);
  assert.deepEqual(s, {
    period: { from: '2025-06-01', to: '2025-06-10' },
    compare: 'previous_period',
    traffic: 'all',
    tenantId: 't1',
    filters: [
      { op: 'is', dimension: 'country', value: 'FR' },
      { op: 'contains', dimension: 'page', value: 'Blog' },
      { op: 'is_not', dimension: 'browser', value: 'Safari' },
    ],
    metric: 'bounce_rate',
    interval: 'hour',
  });
  assert.equal(searchFromState(s, search), search);
  const scope = {
    site_id: 's',
    date_range: ['2025-06-01', '2025-06-10'],
    filters: [
      ['is', 'visit:country', ['FR']],
      ['contains', 'event:page', ['Blog'], { case_sensitive: false }],
      ['is_not', 'visit:browser', ['Safari']],
    ],
    tenant_id: 't1',
    traffic: 'all',
  };
  assert.deepEqual(seriesBody(s, 's', periodOf(s, TODAY), 'visitors', 'hour'), {
    ...scope,
    metrics: ['visitors'],
    dimensions: ['time:hour'],
    include: { time_labels: true, compare: 'previous_period' },
  });
  assert.deepEqual(listBody(s, 's', periodOf(s, TODAY), 'page', 100), {
    ...scope,
    metrics: ['visitors'],
    dimensions: ['event:page'],
    pagination: { limit: 100 },
  });
  // a year before, and two dates of the reader's
  const yoy = stateFromSearch('?compare=year_over_year');
  assert.equal(yoy.compare, 'year_over_year');
  assert.equal(searchFromState(yoy), '?compare=year_over_year');
  const custom = stateFromSearch('?compare=custom&compare_from=2025-01-01&compare_to=2025-01-31');
  assert.deepEqual(custom.compare, { from: '2025-01-01', to: '2025-01-31' });
  assert.equal(searchFromState(custom), '?compare=custom&compare_from=2025-01-01&compare_to=2025-01-31');
  assert.deepEqual(tilesBody(custom, 's', periodOf(custom, TODAY)).include, { compare: ['2025-01-01', '2025-01-31'] });
});

test('links made before the query API still open as they were: /v1 metric names and a filter object', () => {
  const s = stateFromSearch('?metric=avg_session_eng_time_ms&filters=%7B%22country%22%3A%22FR%22%7D');
  assert.equal(s.metric, 'visit_duration');
  assert.deepEqual(s.filters, [{ op: 'is', dimension: 'country', value: 'FR' }]);
  assert.equal(stateFromSearch('?metric=sessions').metric, 'visits');
  assert.equal(stateFromSearch('?metric=avg_pages_per_session').metric, 'views_per_visit');
});

test('values that cannot be the API names fall back to the defaults', () => {
  const s = stateFromSearch('?from=2025-02-30&to=2025-03-01&traffic=robots&metric=colour&interval=fortnight&compare=yes&filters=%5B1%5D');
  assert.deepEqual(s, stateFromSearch(''));
  assert.deepEqual(stateFromSearch('?from=2025-03-02&to=2025-03-01').period, null, 'from after to');
  assert.equal(stateFromSearch('?compare=custom&compare_from=2025-03-02&compare_to=2025-03-01').compare, null, 'custom from after to');
  assert.deepEqual(
    stateFromSearch('?filters=%7B%22page%22%3A%22%2Fa%22%2C%22n%22%3A1%2C%22colour%22%3A%22red%22%7D').filters,
    [{ op: 'is', dimension: 'page', value: '/a' }],
    'non-string values and unknown dimensions dropped',
  );
  assert.deepEqual(
    stateFromSearch(`?filters=${encodeURIComponent('[["matches","page","x"],["is","page",1],["contains","os","Linux"]]')}`).filters,
    [{ op: 'contains', dimension: 'os', value: 'Linux' }],
    'an operator the dashboard does not offer, and a value that is not text, dropped',
  );
});

test('a one-day period charts by the hour where the plan has hours; up to 92 days by the day, then weeks, then months; a picked interval is kept', () => {
  const auto = stateFromSearch('');
  const oneDay = (day: string) => ({ from: day, to: day });
  for (const period of [presetPeriod('today', TODAY), oneDay('2025-06-14'), oneDay('2024-02-29')])
    assert.equal(chartInterval(auto, period, true), 'hour', `${period.from} alone`);
  for (const period of [presetPeriod('7d', TODAY), { from: '2025-06-14', to: TODAY }, presetPeriod('last_month', TODAY)])
    assert.equal(chartInterval(auto, period, true), 'day', `${period.from} to ${period.to}`);
  assert.equal(chartInterval(auto, oneDay(TODAY), false), 'day', 'a plan without hours: one day by the day');
  assert.equal(chartInterval(auto, presetPeriod('90d', TODAY), true), 'day');
  assert.equal(chartInterval(auto, { from: '2025-01-01', to: '2025-04-03' }, true), 'week', '93 days');
  assert.equal(chartInterval(auto, { from: '2025-01-01', to: '2025-07-02' }, true), 'week', '183 days');
  assert.equal(chartInterval(auto, presetPeriod('12mo', TODAY), true), 'month');
  assert.equal(chartInterval(auto, presetPeriod('year', '2025-12-31'), true), 'month');
  assert.equal(chartInterval(auto, oneDay(TODAY), null), null, 'the rules on their way: not known yet, nothing asked');
  assert.equal(chartInterval(auto, presetPeriod('30d', TODAY), null), 'day', 'longer periods need no rules');
  // picked: kept whatever the period or the plan (a refusal is the API's to say, in the chart)
  const days = stateFromSearch('?interval=day');
  const hours = stateFromSearch('?interval=hour');
  assert.equal(days.interval, 'day');
  assert.equal(searchFromState(days), '?interval=day', 'a picked day is written: it is not the default any more');
  assert.equal(chartInterval(days, oneDay(TODAY), true), 'day');
  assert.equal(chartInterval(hours, presetPeriod('30d', TODAY), true), 'hour');
  assert.equal(chartInterval(hours, oneDay(TODAY), false), 'hour', 'refused by the plan: asked, and the chart says so');
});

test('filters are added and removed one by one, or all at once; the same dimension and operator is replaced', () => {
  const s = withFilter(withFilter(stateFromSearch(''), { op: 'is', dimension: 'country', value: 'FR' }), {
    op: 'contains',
    dimension: 'page',
    value: '/pricing',
  });
  assert.deepEqual(s.filters, [
    { op: 'is', dimension: 'country', value: 'FR' },
    { op: 'contains', dimension: 'page', value: '/pricing' },
  ]);
  assert.deepEqual(withFilter(s, { op: 'is', dimension: 'country', value: 'DE' }).filters, [
    { op: 'contains', dimension: 'page', value: '/pricing' },
    { op: 'is', dimension: 'country', value: 'DE' },
  ]);
  assert.deepEqual(withoutFilter(s, 0).filters, [{ op: 'contains', dimension: 'page', value: '/pricing' }]);
  assert.deepEqual(withoutFilter(s, null).filters, []);
});

test("today is the site's: the date in its time zone, UTC's for UTC or a zone the browser does not know", () => {
  const at = Date.parse('2025-06-15T20:30:00Z');
  assert.equal(todayIn('UTC', at), '2025-06-15');
  assert.equal(todayIn('Asia/Kathmandu', at), '2025-06-16', '+05:45: already the 16th');
  assert.equal(todayIn('America/Los_Angeles', Date.parse('2025-06-15T03:00:00Z')), '2025-06-14');
  assert.equal(todayIn('Not/AZone', at), '2025-06-15');
  assert.equal(todayIn(null, at), '2025-06-15');
});

test("presets are whole days of the site's zone ending today, and a period knows its preset", () => {
  assert.deepEqual(presetPeriod('today', TODAY), { from: TODAY, to: TODAY });
  assert.deepEqual(presetPeriod('7d', TODAY), { from: '2025-06-09', to: TODAY });
  assert.deepEqual(presetPeriod('90d', TODAY), { from: '2025-03-18', to: TODAY });
  assert.deepEqual(presetPeriod('month', TODAY), { from: '2025-06-01', to: TODAY });
  assert.deepEqual(presetPeriod('last_month', '2025-03-05'), { from: '2025-02-01', to: '2025-02-28' });
  assert.deepEqual(presetPeriod('last_month', '2024-03-31'), { from: '2024-02-01', to: '2024-02-29' });
  assert.deepEqual(presetPeriod('year', TODAY), { from: '2025-01-01', to: TODAY });
  assert.deepEqual(presetPeriod('12mo', TODAY), { from: '2024-07-01', to: TODAY });
  assert.deepEqual(presetPeriod('12mo', '2025-01-10'), { from: '2024-02-01', to: '2025-01-10' });
  assert.equal(presetOf({ from: '2025-05-17', to: TODAY }, TODAY), '30d');
  assert.equal(presetOf({ from: '2025-05-17', to: '2025-06-14' }, TODAY), null);
  assert.equal(periodLabel({ from: '2025-05-17', to: '2025-06-14' }, TODAY), '17 May – 14 Jun 2025');
  assert.equal(periodLabel({ from: '2025-04-01', to: '2025-04-30' }, TODAY), 'Apr 2025');
  assert.equal(periodLabel({ from: '2024-12-20', to: '2025-01-02' }, TODAY), '20 Dec 2024 – 2 Jan 2025');
});

test('previous and next: by the period length, by calendar months for months; never past today', () => {
  assert.deepEqual(shiftPeriod({ from: '2025-06-09', to: TODAY }, -1, TODAY), { from: '2025-06-02', to: '2025-06-08' });
  assert.equal(shiftPeriod({ from: '2025-06-09', to: TODAY }, 1, TODAY), null);
  assert.deepEqual(shiftPeriod({ from: '2025-06-02', to: '2025-06-08' }, 1, TODAY), { from: '2025-06-09', to: TODAY });
  assert.deepEqual(
    shiftPeriod({ from: '2025-06-05', to: '2025-06-12' }, 1, TODAY),
    { from: '2025-06-08', to: TODAY },
    'clipped to end today, same length',
  );
  assert.deepEqual(
    shiftPeriod({ from: '2025-06-01', to: TODAY }, -1, TODAY),
    { from: '2025-05-01', to: '2025-05-31' },
    'month to date -> the previous month',
  );
  assert.deepEqual(shiftPeriod({ from: '2025-02-01', to: '2025-02-28' }, -1, TODAY), { from: '2025-01-01', to: '2025-01-31' });
  assert.deepEqual(
    shiftPeriod({ from: '2025-05-01', to: '2025-05-31' }, 1, TODAY),
    { from: '2025-06-01', to: TODAY },
    'the current month to date',
  );
  assert.deepEqual(
    shiftPeriod({ from: '2025-06-01', to: '2025-06-10' }, -1, TODAY),
    { from: '2025-05-22', to: '2025-05-31' },
    'ten days from the 1st are not a month',
  );
});
