// The dashboard's URL state (web/src/dashboard/query.ts) and periods (periods.ts): pure functions, so
// checked here without a browser. A link must reproduce the view: state -> query string -> state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  breakdownQuery,
  chartInterval,
  commonParams,
  searchFromState,
  seriesQuery,
  stateFromSearch,
  withFilter,
  withoutFilter,
} from '../../web/src/dashboard/query.js';
import { periodLabel, presetOf, presetPeriod, shiftPeriod } from '../../web/src/dashboard/periods.js';

const TODAY = '2025-06-15';

test("the default state is the last 30 days of people, visitors by the period's interval, unfiltered; it writes no parameter", () => {
  const s = stateFromSearch('');
  assert.deepEqual(s, {
    period: null,
    compare: false,
    traffic: 'humans',
    tenantId: null,
    filters: {},
    metric: 'visitors',
    interval: null,
  });
  assert.equal(searchFromState(s), '');
  assert.deepEqual(commonParams(s, 'site_1', TODAY), { site_id: 'site_1', from: '2025-05-17', to: TODAY });
});

test('every parameter round-trips under the API names; parameters of others (site_id, theme) are kept', () => {
  const search =
    '?site_id=s&theme=dark&from=2025-06-01&to=2025-06-10&compare=prev_period&traffic=all&tenant_id=t1&filters=%7B%22country%22%3A%22FR%22%7D&metric=bounce_rate&interval=hour';
  const s = stateFromSearch(search);
  assert.deepEqual(s, {
    period: { from: '2025-06-01', to: '2025-06-10' },
    compare: true,
    traffic: 'all',
    tenantId: 't1',
    filters: { country: 'FR' },
    metric: 'bounce_rate',
    interval: 'hour',
  });
  assert.equal(searchFromState(s, search), search);
  assert.deepEqual(seriesQuery(s, commonParams(s, 's', TODAY), 'visitors', 'hour'), {
    site_id: 's',
    from: '2025-06-01',
    to: '2025-06-10',
    traffic: 'all',
    tenant_id: 't1',
    metric: 'visitors',
    interval: 'hour',
    compare: 'prev_period',
    filters: '{"country":"FR"}',
  });
  assert.deepEqual(breakdownQuery(s, commonParams(s, 's', TODAY), 'page', 100), {
    site_id: 's',
    from: '2025-06-01',
    to: '2025-06-10',
    traffic: 'all',
    tenant_id: 't1',
    metric: 'visitors',
    dimension: 'page',
    limit: 100,
    filters: '{"country":"FR"}',
  });
});

test('values that cannot be the API names fall back to the defaults', () => {
  const s = stateFromSearch('?from=2025-02-30&to=2025-03-01&traffic=robots&metric=colour&interval=week&compare=yes&filters=%5B1%5D');
  assert.deepEqual(s, stateFromSearch(''));
  assert.deepEqual(stateFromSearch('?from=2025-03-02&to=2025-03-01').period, null, 'from after to');
  assert.deepEqual(
    stateFromSearch('?filters=%7B%22page%22%3A%22%2Fa%22%2C%22n%22%3A1%7D').filters,
    { page: '/a' },
    'non-string values dropped',
  );
});

test('a one-day period charts by the hour where the plan has hours; longer periods by the day; a picked interval is kept', () => {
  const auto = stateFromSearch('');
  const oneDay = (day: string) => ({ from: day, to: day });
  for (const period of [presetPeriod('today', TODAY), oneDay('2025-06-14'), oneDay('2024-02-29')])
    assert.equal(chartInterval(auto, period, true), 'hour', `${period.from} alone`);
  for (const period of [presetPeriod('7d', TODAY), { from: '2025-06-14', to: TODAY }, presetPeriod('last_month', TODAY)])
    assert.equal(chartInterval(auto, period, true), 'day', `${period.from} to ${period.to}`);
  assert.equal(chartInterval(auto, oneDay(TODAY), false), 'day', 'a plan without hours: one day by the day');
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

test('filters are added and removed one by one, or all at once', () => {
  const s = withFilter(withFilter(stateFromSearch(''), 'country', 'FR'), 'page', '/pricing');
  assert.deepEqual(s.filters, { country: 'FR', page: '/pricing' });
  assert.deepEqual(withoutFilter(s, 'country').filters, { page: '/pricing' });
  assert.deepEqual(withoutFilter(s, null).filters, {});
});

test('presets are whole UTC days ending today, and a period knows its preset', () => {
  assert.deepEqual(presetPeriod('today', TODAY), { from: TODAY, to: TODAY });
  assert.deepEqual(presetPeriod('7d', TODAY), { from: '2025-06-09', to: TODAY });
  assert.deepEqual(presetPeriod('90d', TODAY), { from: '2025-03-18', to: TODAY });
  assert.deepEqual(presetPeriod('month', TODAY), { from: '2025-06-01', to: TODAY });
  assert.deepEqual(presetPeriod('last_month', '2025-03-05'), { from: '2025-02-01', to: '2025-02-28' });
  assert.deepEqual(presetPeriod('last_month', '2024-03-31'), { from: '2024-02-01', to: '2024-02-29' });
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
