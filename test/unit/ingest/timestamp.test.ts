import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseIsoInstant, utcDayOf } from '../../../src/ingest/parse/timestamp.js';

test('instants with Z or an offset are stored as UTC', () => {
  assert.equal(parseIsoInstant('2024-05-01T12:00:00Z'), Date.UTC(2024, 4, 1, 12));
  assert.equal(parseIsoInstant('2024-05-01T12:00:00.123Z'), Date.UTC(2024, 4, 1, 12, 0, 0, 123));
  assert.equal(parseIsoInstant('2024-05-01T12:00:00.1239Z'), Date.UTC(2024, 4, 1, 12, 0, 0, 123));
  assert.equal(parseIsoInstant('2024-05-01T12:00:00.5Z'), Date.UTC(2024, 4, 1, 12, 0, 0, 500));
  assert.equal(parseIsoInstant('2024-05-01T14:30:00+02:30'), Date.UTC(2024, 4, 1, 12));
  assert.equal(parseIsoInstant('2024-05-01T07:00:00-0500'), Date.UTC(2024, 4, 1, 12));
  assert.equal(parseIsoInstant('2024-01-01T00:30:00+01:00'), Date.UTC(2023, 11, 31, 23, 30));
  assert.equal(parseIsoInstant('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29));
  assert.equal(parseIsoInstant('2000-02-29T00:00:00Z'), Date.UTC(2000, 1, 29));
});

test('impossible or zone-less instants are refused', () => {
  for (const s of [
    '2024-02-30T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2024-04-31T00:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-00-10T00:00:00Z',
    '2024-05-00T00:00:00Z',
    '2024-05-01T24:00:00Z',
    '2024-05-01T12:60:00Z',
    '2024-05-01T12:00:60Z',
    '2024-05-01T12:00:00',
    '2024-05-01 12:00:00Z',
    '2024-05-01',
    '2024-05-01T12:00Z',
    '2024-05-01T12:00:00+25:00',
    '2024-05-01T12:00:00+02:60',
    '1969-12-31T23:59:59Z',
    '+002024-05-01T12:00:00Z',
    'May 1 2024',
    '1714564800000',
    '',
    '2024-5-1T12:00:00Z',
    '2024-05-01T12:00:00z',
  ]) {
    assert.equal(parseIsoInstant(s), null, s);
  }
});

test('the UTC day of an instant', () => {
  assert.equal(utcDayOf(Date.UTC(2024, 4, 1, 23, 59, 59, 999)), '2024-05-01');
  assert.equal(utcDayOf(Date.UTC(2024, 4, 2)), '2024-05-02');
});
