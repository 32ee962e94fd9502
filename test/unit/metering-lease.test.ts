// A metered run that outlived its lease: the ledger refuses the commit, and metering charges the
// units under the cap instead (or answers 402 when they no longer fit). The cap holds either way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withMeteredUnits } from '../../src/services/metering.js';
import { ReservationLostError, type UsageLedger } from '../../src/ports/usage-ledger.js';
import { apiPolicyFor } from '../../src/domain/plans.js';
import type { ApiError } from '../../src/domain/errors.js';

function ledgerWithLostLeases(room: number): UsageLedger & { calls: string[] } {
  let used = 0;
  const calls: string[] = [];
  return {
    calls,
    reserve: async (i) => (calls.push('reserve'), { id: 'rsv_x', workspaceId: i.workspaceId, period: i.period, units: i.units }),
    commit: async () => {
      calls.push('commit');
      throw new ReservationLostError('reclaimed');
    },
    charge: async (i) => {
      calls.push(`charge ${i.units}`);
      if (used + i.units > room) return null;
      return (used += i.units);
    },
    release: async () => void calls.push('release'),
    history: async () => [],
    used: async () => used,
  };
}

test('a commit refused for a lost lease is charged under the cap instead', async () => {
  const ledger = ledgerWithLostLeases(10);
  const ctx = { ledger, workspaceId: 'w', policy: apiPolicyFor('pro'), arrivedAt: new Date('2025-01-10T00:00:00Z') };
  const out = await withMeteredUnits(ctx, 6, async () => 'done');
  assert.equal(out.value, 'done');
  assert.equal(out.meta.usage.used_units, 6);
  await assert.rejects(
    withMeteredUnits(ctx, 6, async () => 'too late'),
    (e: ApiError) => e.code === 'HARD_CAP_REACHED',
  );
  assert.deepEqual(ledger.calls, ['reserve', 'commit', 'charge 6', 'reserve', 'commit', 'charge 6']);
  assert.equal(await ledger.used('w', '2025-01'), 6, 'the refused one charged nothing');
});

test('other commit failures are not turned into charges', async () => {
  const ledger = ledgerWithLostLeases(10);
  ledger.commit = async () => {
    throw new Error('control plane down');
  };
  const ctx = { ledger, workspaceId: 'w', policy: apiPolicyFor('pro'), arrivedAt: new Date('2025-01-10T00:00:00Z') };
  await assert.rejects(
    withMeteredUnits(ctx, 1, async () => 'x'),
    /control plane down/,
  );
  assert.ok(!ledger.calls.some((c) => c.startsWith('charge')));
});
