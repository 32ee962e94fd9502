import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstKeptDay } from '../../src/domain/retention.js';
import { apiPolicyFor, includedEventsFor, validateApiPolicyOverrides } from '../../src/domain/plans.js';
import { technicalRetentionMonths } from '../../src/domain/plans.js';

test('the boundary day: on 2026-11-25 with 25 months, 2024-10-25 is kept (2024-10-24 goes)', () => {
  assert.equal(firstKeptDay('2026-11-25', 25), '2024-10-25');
});

test('month ends clamp to the shorter month, never past it', () => {
  assert.equal(firstKeptDay('2026-05-31', 3), '2026-02-28');
  assert.equal(firstKeptDay('2028-05-31', 3), '2028-02-29'); // leap year
  assert.equal(firstKeptDay('2026-03-31', 1), '2026-02-28');
  assert.equal(firstKeptDay('2026-07-31', 1), '2026-06-30');
  assert.equal(firstKeptDay('2026-07-30', 1), '2026-06-30');
});

test('across years, and 0 months keeps today only', () => {
  assert.equal(firstKeptDay('2026-01-15', 14), '2024-11-15');
  assert.equal(firstKeptDay('2026-02-01', 3), '2025-11-01');
  assert.equal(firstKeptDay('2026-11-25', 0), '2026-11-25');
});

test('bad input is refused', () => {
  assert.throws(() => firstKeptDay('2026-11-25', -1), /non-negative/);
  assert.throws(() => firstKeptDay('25/11/2026', 3), /not a day/);
});

test('a plan change moves the window: free 3, starter 14, pro and enterprise 25 months', () => {
  const keep = (plan: 'free' | 'starter' | 'pro' | 'enterprise') => firstKeptDay('2026-11-25', technicalRetentionMonths(plan));
  assert.deepEqual(
    [keep('free'), keep('starter'), keep('pro'), keep('enterprise')],
    ['2026-08-25', '2025-09-25', '2024-10-25', '2024-10-25'],
  );
});

test('included events: free 25,000, starter 100,000, pro 1,000,000, enterprise its policy or unlimited', () => {
  assert.equal(includedEventsFor('free'), 25_000);
  assert.equal(includedEventsFor('starter'), 100_000);
  assert.equal(includedEventsFor('pro'), 1_000_000);
  assert.equal(includedEventsFor('enterprise'), null);
  assert.equal(includedEventsFor('enterprise', { max_events_per_month: 5_000_000 }), 5_000_000);
  // an enterprise policy may set it; it is no product.api field
  assert.deepEqual(validateApiPolicyOverrides({ max_events_per_month: 5_000_000 }), []);
  assert.equal('max_events_per_month' in apiPolicyFor('enterprise', { max_events_per_month: 5 }), false);
});
