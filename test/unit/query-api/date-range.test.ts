// date_range as a request names it (Plausible's forms) and the local days it means in a site's zone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDateRange, resolveDateRange } from '../../../src/domain/query-api/date-range.js';
import { ApiError } from '../../../src/domain/errors.js';

const Z = (iso: string) => Date.parse(iso);

test('presets end today in the site zone: the same instant is another day in Kathmandu and in New York', () => {
  // 2026-11-01T19:00Z is 2026-11-02 00:45 in Kathmandu (+05:45) and 2026-11-01 14:00 in New York
  const now = Z('2026-11-01T19:00:00Z');
  const at = (zone: string, preset: string, firstDay: string | null = null) =>
    resolveDateRange(parseDateRange(preset), { zone, nowMs: now, firstDay });
  assert.deepEqual(at('Asia/Kathmandu', 'day'), { kind: 'days', from: '2026-11-02', to: '2026-11-02' });
  assert.deepEqual(at('America/New_York', 'day'), { kind: 'days', from: '2026-11-01', to: '2026-11-01' });
  assert.deepEqual(at('UTC', '7d'), { kind: 'days', from: '2026-10-26', to: '2026-11-01' });
  assert.deepEqual(at('Asia/Kathmandu', '7d'), { kind: 'days', from: '2026-10-27', to: '2026-11-02' });
  assert.deepEqual(at('UTC', '28d'), { kind: 'days', from: '2026-10-05', to: '2026-11-01' });
  assert.deepEqual(at('UTC', '30d'), { kind: 'days', from: '2026-10-03', to: '2026-11-01' });
  assert.deepEqual(at('UTC', '91d'), { kind: 'days', from: '2026-08-03', to: '2026-11-01' });
  assert.deepEqual(at('UTC', 'month'), { kind: 'days', from: '2026-11-01', to: '2026-11-01' });
  assert.deepEqual(at('America/New_York', 'month'), { kind: 'days', from: '2026-11-01', to: '2026-11-01' });
  assert.deepEqual(at('UTC', '6mo'), { kind: 'days', from: '2026-06-01', to: '2026-11-01' });
  assert.deepEqual(at('UTC', '12mo'), { kind: 'days', from: '2025-12-01', to: '2026-11-01' });
  assert.deepEqual(at('UTC', 'year'), { kind: 'days', from: '2026-01-01', to: '2026-11-01' });
  assert.deepEqual(at('UTC', 'all', '2024-02-29'), { kind: 'days', from: '2024-02-29', to: '2026-11-01' });
  assert.deepEqual(at('UTC', 'all'), { kind: 'days', from: '2026-11-01', to: '2026-11-01' }, 'no data yet: today');
});

test('the year and month presets at a year end: the new year in Kathmandu, still the old one in UTC', () => {
  const now = Z('2026-12-31T20:00:00Z'); // 2027-01-01 01:45 in Kathmandu
  assert.deepEqual(resolveDateRange(parseDateRange('year'), { zone: 'Asia/Kathmandu', nowMs: now, firstDay: null }), {
    kind: 'days',
    from: '2027-01-01',
    to: '2027-01-01',
  });
  assert.deepEqual(resolveDateRange(parseDateRange('12mo'), { zone: 'UTC', nowMs: now, firstDay: null }), {
    kind: 'days',
    from: '2026-01-01',
    to: '2026-12-31',
  });
});

test('two dates are local days, two date-times are instants whose end counts through its second', () => {
  assert.deepEqual(parseDateRange(['2024-01-01', '2024-02-29']), { kind: 'days', from: '2024-01-01', to: '2024-02-29' });
  assert.deepEqual(parseDateRange(['2024-01-01T12:00:00+02:00', '2024-01-01T15:59:59+02:00']), {
    kind: 'instants',
    startMs: Z('2024-01-01T10:00:00Z'),
    endMs: Z('2024-01-01T14:00:00Z'),
  });
  assert.deepEqual(parseDateRange(['2024-01-01T00:00:00Z', '2024-01-01T00:00:00.250Z']), {
    kind: 'instants',
    startMs: Z('2024-01-01T00:00:00Z'),
    endMs: Z('2024-01-01T00:00:00.251Z'),
  });
  // instants stay instants whatever the zone
  const r = parseDateRange(['2024-01-01T00:00:00+05:45', '2024-01-02T00:00:00+05:45']);
  assert.deepEqual(resolveDateRange(r, { zone: 'America/New_York', nowMs: 0, firstDay: null }), r);
});

test('every refusal is a 422 INVALID_PARAMS naming date_range and the forms to send', () => {
  for (const bad of [
    undefined,
    '8d',
    'today',
    ['2024-01-01'],
    ['2024-02-30', '2024-03-01'],
    ['2024-03-02', '2024-03-01'],
    ['2024-01-01', '2024-01-02T00:00:00Z'],
    ['2024-01-01T00:00:00', '2024-01-02T00:00:00'],
    ['2024-01-01T24:00:00Z', '2024-01-02T00:00:00Z'],
    ['2024-01-01T00:00:00+25:00', '2024-01-02T00:00:00Z'],
    [1, 2],
    { from: '2024-01-01' },
  ]) {
    assert.throws(
      () => parseDateRange(bad),
      (err: unknown) =>
        err instanceof ApiError &&
        err.code === 'INVALID_PARAMS' &&
        (err.details as { field: string }).field === 'date_range' &&
        /"7d".*two dates/.test(err.message),
      JSON.stringify(bad),
    );
  }
});
