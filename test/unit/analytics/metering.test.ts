import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metricsUnits, queryUnits, reportUnits } from '../../../src/domain/metering.js';

test('metrics units match the four verification cases of the spec', () => {
  assert.equal(metricsUnits({ endpoint: 'timeseries', metric: 'pageviews', days: 7, interval: 'day' }), 4);
  assert.equal(metricsUnits({ endpoint: 'timeseries', metric: 'pageviews', days: 60, interval: 'hour' }), 24);
  assert.equal(metricsUnits({ endpoint: 'breakdown', metric: 'sessions', days: 30, limit: 100, dimension: 'referrer' }), 8);
  assert.equal(metricsUnits({ endpoint: 'breakdown', metric: 'pageviews', days: 90, limit: 500, dimension: 'page' }), 240);
});

test('visitors weigh like pageviews and events weigh 1', () => {
  const base = { endpoint: 'timeseries' as const, days: 31, interval: 'day' as const };
  assert.equal(metricsUnits({ ...base, metric: 'visitors' }), metricsUnits({ ...base, metric: 'pageviews' }));
  assert.equal(metricsUnits({ ...base, metric: 'events' }), 2 * 2 * 1);
  assert.equal(metricsUnits({ ...base, metric: 'visitors' }), 2 * 2 * 2);
});

test('timeseries ignores limit and dimension; breakdown ignores interval; limit defaults to 100', () => {
  assert.equal(metricsUnits({ endpoint: 'timeseries', metric: 'events', days: 1, limit: 900, dimension: 'page' }), 2);
  assert.equal(metricsUnits({ endpoint: 'breakdown', metric: 'events', days: 1, interval: 'hour', dimension: 'country' }), 4);
  assert.equal(metricsUnits({ endpoint: 'breakdown', metric: 'events', days: 1, limit: 101, dimension: 'country' }), 8);
});

test('nonsense inputs are refused rather than priced', () => {
  assert.throws(() => metricsUnits({ endpoint: 'timeseries', metric: 'pageviews', days: 0 }), RangeError);
  assert.throws(() => metricsUnits({ endpoint: 'breakdown', metric: 'pageviews', days: 3, limit: 0 }), RangeError);
  assert.throws(() => reportUnits({ report: 'content', days: 3, limit: 10, compare: false }), RangeError);
});

test('report units follow docs/metering.md: base x range x limit x compare', () => {
  assert.equal(reportUnits({ report: 'overview', days: 7, limit: 200, compare: false }), 10 * 1 * 2);
  assert.equal(reportUnits({ report: 'overview', days: 31, limit: 200, compare: true }), 10 * 2 * 2 * 2);
  assert.equal(reportUnits({ report: 'acquisition', days: 90, limit: 100, compare: false }), 8 * 3);
  assert.equal(reportUnits({ report: 'actions', days: 1, limit: 2000, compare: false }), 8 * 20);
  assert.equal(reportUnits({ report: 'goals_conversions', days: 61, limit: 1, compare: true }), 4 * 3 * 1 * 2);
  assert.equal(reportUnits({ report: 'content', include: 'full', days: 30, limit: 250, compare: false }), 6 * 1 * 3);
});

test('content summary has no limit factor while full keeps it', () => {
  const summary = (limit: number) => reportUnits({ report: 'content', include: 'summary', days: 365, limit, compare: false });
  assert.equal(summary(1), 2 * 13);
  assert.equal(summary(2000), 2 * 13);
  assert.equal(reportUnits({ report: 'content', include: 'summary', days: 30, limit: 2000, compare: true }), 2 * 1 * 2);
});

test('query API units: 2 x ceil(days / 30) x (dimensions + 1) x 3 hourly x 2 compared', () => {
  assert.equal(queryUnits({ days: 7, dimensions: 0, hourly: false, compare: false }), 2);
  assert.equal(queryUnits({ days: 30, dimensions: 1, hourly: false, compare: false }), 4);
  assert.equal(queryUnits({ days: 31, dimensions: 1, hourly: false, compare: false }), 8);
  assert.equal(queryUnits({ days: 91, dimensions: 2, hourly: false, compare: true }), 2 * 4 * 3 * 2);
  assert.equal(queryUnits({ days: 1, dimensions: 1, hourly: true, compare: false }), 2 * 1 * 2 * 3);
  assert.equal(queryUnits({ days: 365, dimensions: 3, hourly: true, compare: true }), 2 * 13 * 4 * 3 * 2);
  assert.throws(() => queryUnits({ days: 0, dimensions: 0, hourly: false, compare: false }), RangeError);
  assert.throws(() => queryUnits({ days: 1, dimensions: -1, hourly: false, compare: false }), RangeError);
});
