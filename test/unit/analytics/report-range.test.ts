import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/domain/clock.js';
import { ApiError } from '../../../src/domain/errors.js';
import { formatDay, isoInstant, resolveContentInclude, resolveReportRange, parseDay } from '../../../src/domain/report-range.js';
import fc from 'fast-check';
import { runs } from '../../helpers/property-runs.js';

const clock = new FakeClock(Date.parse('2025-03-10T15:30:00Z'));
const policy = { retentionDays: 395, maxRangeDays: 395, clock };

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${e}`);
    return e;
  }
  assert.fail('expected an error');
}

test('defaults are the 7 days ending today (UTC), with inclusive ISO bounds', () => {
  const r = resolveReportRange(policy);
  assert.equal(r.current.from, '2025-03-04');
  assert.equal(r.current.to, '2025-03-10');
  assert.equal(r.current.days, 7);
  assert.deepEqual(r.range, {
    start: '2025-03-04T00:00:00.000Z',
    end: '2025-03-10T23:59:59.999Z',
    compare_start: null,
    compare_end: null,
  });
  assert.equal(r.compare, null);
});

test('only to given: from is 6 days before it; only from given: to is today', () => {
  assert.equal(resolveReportRange({ ...policy, to: '2025-02-02' }).current.from, '2025-01-27');
  assert.equal(resolveReportRange({ ...policy, from: '2025-03-01' }).current.to, '2025-03-10');
});

test('prev_period is the same number of days ending the day before from', () => {
  const r = resolveReportRange({ ...policy, from: '2025-03-01', to: '2025-03-10', compare: 'prev_period' });
  assert.equal(r.compare!.from, '2025-02-19');
  assert.equal(r.compare!.to, '2025-02-28');
  assert.equal(r.range.compare_start, '2025-02-19T00:00:00.000Z');
  assert.equal(r.range.compare_end, '2025-02-28T23:59:59.999Z');
});

test('malformed, unreal and inverted dates are 422 INVALID_PARAMS naming the parameter', () => {
  for (const bad of ['2025-3-01', '2025-02-30', '2025-13-01', '20250301', '2025-03-01T00:00:00Z', ' 2025-03-01', '1969-12-31']) {
    const e = apiError(() => resolveReportRange({ ...policy, from: bad }));
    assert.equal(e.code, 'INVALID_PARAMS');
    assert.equal(e.details?.parameter, 'from');
  }
  assert.equal(apiError(() => resolveReportRange({ ...policy, from: '2025-03-05', to: '2025-03-04' })).code, 'INVALID_PARAMS');
  assert.equal(apiError(() => resolveReportRange({ ...policy, from: '2025-03-11' })).details?.parameter, 'from', 'from after today');
  assert.equal(apiError(() => resolveReportRange({ ...policy, compare: 'yoy' })).details?.parameter, 'compare');
  assert.ok(parseDay('2024-02-29') !== null);
  assert.equal(parseDay('2025-02-29'), null);
});

test('to after today means up to now: clamped to today before the days are counted', () => {
  const r = resolveReportRange({ ...policy, from: '2025-03-01', to: '2025-12-31' });
  assert.deepEqual([r.current.from, r.current.to, r.current.days], ['2025-03-01', '2025-03-10', 10]);
  assert.equal(r.range.end, '2025-03-10T23:59:59.999Z');
  assert.deepEqual(
    [resolveReportRange({ ...policy, to: '2025-03-11' }).current.from, resolveReportRange({ ...policy, to: '2025-03-11' }).current.to],
    ['2025-03-04', '2025-03-10'],
  );
  // max_range_days and the compare window see the clamped range
  assert.equal(resolveReportRange({ ...policy, maxRangeDays: 10, from: '2025-03-01', to: '2026-01-01' }).current.days, 10);
  assert.equal(resolveReportRange({ ...policy, from: '2025-03-09', to: '2025-04-01', compare: 'prev_period' }).compare!.from, '2025-03-07');
});

test('retention: the allowed window is [today - (N-1), today], reported in min_allowed_from', () => {
  const p = { ...policy, retentionDays: 10, maxRangeDays: 400 };
  assert.equal(resolveReportRange({ ...p, from: '2025-03-01' }).current.from, '2025-03-01');
  const e = apiError(() => resolveReportRange({ ...p, from: '2025-02-28' }));
  assert.equal(e.code, 'RETENTION_EXCEEDED');
  assert.deepEqual(e.details, { min_allowed_from: '2025-03-01' });
});

test('retention is checked for the compare window too', () => {
  const p = { ...policy, retentionDays: 10, maxRangeDays: 400 };
  assert.ok(resolveReportRange({ ...p, from: '2025-03-06', to: '2025-03-10', compare: 'prev_period' }));
  const e = apiError(() => resolveReportRange({ ...p, from: '2025-03-05', to: '2025-03-10', compare: 'prev_period' }));
  assert.equal(e.code, 'RETENTION_EXCEEDED');
  assert.equal(e.details?.min_allowed_from, '2025-03-01');
});

test('retention is checked before max_range_days', () => {
  const p = { ...policy, retentionDays: 30, maxRangeDays: 5 };
  assert.equal(apiError(() => resolveReportRange({ ...p, from: '2024-01-01' })).code, 'RETENTION_EXCEEDED');
  const e = apiError(() => resolveReportRange({ ...p, from: '2025-03-01' }));
  assert.equal(e.code, 'INVALID_PARAMS');
  assert.equal(e.details?.max_range_days, 5);
  assert.equal(resolveReportRange({ ...p, from: '2025-03-06' }).current.days, 5);
});

test('null retention means no API retention limit', () => {
  assert.equal(resolveReportRange({ ...policy, retentionDays: null, maxRangeDays: 100000, from: '2000-01-01' }).current.from, '2000-01-01');
});

test('content include defaults by range length and enforces its bounds', () => {
  assert.equal(resolveContentInclude({ days: 90, compare: false }), 'full');
  assert.equal(resolveContentInclude({ days: 91, compare: false }), 'summary');
  assert.equal(resolveContentInclude({ days: 365, compare: false }), 'summary');
  assert.equal(apiError(() => resolveContentInclude({ days: 366, compare: false })).code, 'INVALID_PARAMS');
  assert.equal(resolveContentInclude({ include: 'details', days: 1, compare: false }), 'full');
  assert.equal(resolveContentInclude({ include: 'summary', days: 1, compare: false }), 'summary');
  assert.equal(apiError(() => resolveContentInclude({ include: 'full', days: 91, compare: false })).details?.parameter, 'include');
  assert.equal(apiError(() => resolveContentInclude({ include: 'details', days: 91, compare: false })).code, 'INVALID_PARAMS');
  assert.equal(apiError(() => resolveContentInclude({ include: 'summary', days: 366, compare: false })).code, 'INVALID_PARAMS');
  assert.equal(apiError(() => resolveContentInclude({ include: 'everything', days: 1, compare: false })).code, 'INVALID_PARAMS');
});

test('content compare accepts at most 30 days in either mode', () => {
  assert.equal(resolveContentInclude({ include: 'summary', days: 30, compare: true }), 'summary');
  assert.equal(resolveContentInclude({ days: 30, compare: true }), 'full');
  assert.equal(apiError(() => resolveContentInclude({ include: 'summary', days: 31, compare: true })).details?.parameter, 'compare');
  assert.equal(apiError(() => resolveContentInclude({ days: 31, compare: true })).code, 'INVALID_PARAMS');
});

const DAY = 86_400_000;

test('day arithmetic agrees with Date on every kind of instant and date string', () => {
  // formatDay, isoInstant and parseDay avoid Date objects on the request path: pin them to Date.
  const MAX = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
  const year0 = new Date(0);
  year0.setUTCFullYear(0); // 0000-01-01 (Date.UTC maps year 0 to 1900)
  const edges = [0, -1, 1, DAY - 1, DAY, 951_782_400_000 /* 2000-02-29 */, 4_107_542_400_000 /* 2100-03-01 */, MAX, year0.getTime(), -DAY];
  fc.assert(
    fc.property(fc.oneof(fc.integer({ min: year0.getTime(), max: MAX }), fc.constantFrom(...edges)), (ms) => {
      assert.equal(formatDay(ms), new Date(ms).toISOString().slice(0, 10));
      assert.equal(isoInstant(ms), new Date(ms).toISOString());
    }),
    { numRuns: runs(20_000) },
  );
  const byDate = (v: string): number | null => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
    if (!m || Number(m[1]) < 1970) return null;
    const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    return new Date(ms).toISOString().slice(0, 10) === v ? ms : null;
  };
  const two = (n: number) => String(n).padStart(2, '0');
  fc.assert(
    fc.property(fc.integer({ min: 1960, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), (y, m, d) => {
      const v = `${y}-${two(m)}-${two(d)}`;
      assert.equal(parseDay(v), byDate(v), v);
    }),
    { numRuns: runs(20_000) },
  );
  for (const v of [
    '2024-02-29',
    '2023-02-29',
    '2100-02-29',
    '2000-02-29',
    '1970-01-01',
    '2025-04-31',
    '2025-4-01',
    ' 2025-04-01',
    '2025-04-01 ',
    '２０２５-04-01',
  ]) {
    assert.equal(parseDay(v), byDate(v), v);
  }
});
