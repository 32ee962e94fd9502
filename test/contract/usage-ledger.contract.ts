// The UsageLedger conformance suite: every implementation must pass it unchanged.
import { skippable } from '../helpers/services.js';
import assert from 'node:assert/strict';
import { ReservationLostError, type UsageLedger } from '../../src/ports/usage-ledger.js';
import { FakeClock, type Clock } from '../../src/domain/clock.js';

export interface LedgerUnderTest {
  ledger: UsageLedger;
  close(): Promise<void>;
}

/** Without options the ledger runs on the system clock with its default lease. */
export type LedgerFactory = (opts?: { clock?: Clock; leaseMs?: number }) => Promise<LedgerUnderTest>;

export function runUsageLedgerContract(name: string, factory: LedgerFactory, opts: { skip?: string | false } = {}): void {
  // a suite that cannot run here lists each of its tests as skipped, with the reason
  const test = skippable(opts.skip);
  const withLedger = (fn: (ledger: UsageLedger) => Promise<void>) => async () => {
    const sut = await factory();
    try {
      await fn(sut.ledger);
    } finally {
      await sut.close();
    }
  };
  const LEASE_MS = 5_000;
  const withLeasedLedger = (fn: (ledger: UsageLedger, clock: FakeClock) => Promise<void>) => async () => {
    const clock = new FakeClock(Date.parse('2025-03-10T00:00:00Z'));
    const sut = await factory({ clock, leaseMs: LEASE_MS });
    try {
      await fn(sut.ledger, clock);
    } finally {
      await sut.close();
    }
  };
  const terms = { included: 10, hardCap: 20 };

  test(
    `${name}: a reservation within the cap is granted and counts only once committed`,
    withLedger(async (ledger) => {
      const r = await ledger.reserve({ workspaceId: 'ws_a', period: '2025-03', units: 7, ...terms });
      assert.deepEqual({ ...r, id: undefined }, { id: undefined, workspaceId: 'ws_a', period: '2025-03', units: 7 });
      assert.match(r!.id, /^rsv_[0-9A-Za-z]{22}$/);
      assert.equal(await ledger.used('ws_a', '2025-03'), 0);
      assert.equal(await ledger.commit(r!), 7);
      assert.equal(await ledger.used('ws_a', '2025-03'), 7);
    }),
  );

  test(
    `${name}: reserved units hold their place under the cap until released`,
    withLedger(async (ledger) => {
      const a = await ledger.reserve({ workspaceId: 'ws_a', period: '2025-03', units: 15, ...terms });
      assert.ok(a);
      assert.equal(await ledger.reserve({ workspaceId: 'ws_a', period: '2025-03', units: 6, ...terms }), null);
      await ledger.release(a);
      assert.equal(await ledger.used('ws_a', '2025-03'), 0);
      const b = await ledger.reserve({ workspaceId: 'ws_a', period: '2025-03', units: 20, ...terms });
      assert.ok(b, 'the released units are free again, up to exactly the cap');
      assert.equal(await ledger.commit(b), 20);
    }),
  );

  test(
    `${name}: a refused reservation records nothing and leaves room for smaller ones`,
    withLedger(async (ledger) => {
      const first = await ledger.reserve({ workspaceId: 'ws_a', period: '2025-03', units: 18, ...terms });
      await ledger.commit(first!);
      assert.equal(await ledger.reserve({ workspaceId: 'ws_a', period: '2025-03', units: 3, ...terms }), null);
      assert.equal(await ledger.used('ws_a', '2025-03'), 18);
      const fits = await ledger.reserve({ workspaceId: 'ws_a', period: '2025-03', units: 2, ...terms });
      assert.equal(await ledger.commit(fits!), 20);
      assert.equal(await ledger.reserve({ workspaceId: 'ws_a', period: '2025-03', units: 1, ...terms }), null);
    }),
  );

  test(
    `${name}: units larger than the cap are refused even on an empty month`,
    withLedger(async (ledger) => {
      assert.equal(await ledger.reserve({ workspaceId: 'ws_a', period: '2025-03', units: 21, ...terms }), null);
      assert.equal(await ledger.used('ws_a', '2025-03'), 0);
    }),
  );

  test(
    `${name}: 200 racing reservations on room for 50 grant exactly 50`,
    withLedger(async (ledger) => {
      const seed = await ledger.reserve({ workspaceId: 'ws_r', period: '2025-04', units: 150, included: 100, hardCap: 200 });
      await ledger.commit(seed!);
      const results = await Promise.all(
        Array.from({ length: 200 }, () =>
          ledger.reserve({ workspaceId: 'ws_r', period: '2025-04', units: 1, included: 100, hardCap: 200 }),
        ),
      );
      const granted = results.filter((r) => r !== null);
      assert.equal(granted.length, 50);
      const usedAfter = await Promise.all(granted.map((r) => ledger.commit(r!)));
      assert.ok(
        usedAfter.every((u) => u > 150 && u <= 200),
        'used never passes the cap while commits race',
      );
      assert.equal(await ledger.used('ws_r', '2025-04'), 200);
    }),
  );

  test(
    `${name}: racing reserve-then-commit-or-release never passes the cap`,
    withLedger(async (ledger) => {
      let granted = 0;
      await Promise.all(
        Array.from({ length: 120 }, async (_, i) => {
          const r = await ledger.reserve({ workspaceId: 'ws_r', period: '2025-05', units: 3, included: 0, hardCap: 90 });
          if (!r) return;
          granted++;
          if (i % 2 === 0) await ledger.release(r);
          else assert.ok((await ledger.commit(r)) <= 90);
        }),
      );
      assert.ok(granted >= 30, `at least the cap's worth is granted (got ${granted})`);
      const used = await ledger.used('ws_r', '2025-05');
      assert.ok(used <= 90 && used % 3 === 0, `used ${used}`);
    }),
  );

  test(
    `${name}: a charge is a reserve and a commit in one step, on an empty month too`,
    withLedger(async (ledger) => {
      assert.equal(await ledger.charge({ workspaceId: 'ws_c', period: '2025-03', units: 7, ...terms }), 7);
      assert.equal(await ledger.used('ws_c', '2025-03'), 7);
      const r = await ledger.reserve({ workspaceId: 'ws_c', period: '2025-03', units: 10, ...terms });
      assert.ok(r);
      assert.equal(
        await ledger.charge({ workspaceId: 'ws_c', period: '2025-03', units: 4, ...terms }),
        null,
        'reserved units hold their place',
      );
      assert.equal(await ledger.charge({ workspaceId: 'ws_c', period: '2025-03', units: 3, ...terms }), 10, 'exactly up to the cap');
      assert.equal(await ledger.commit(r), 20);
      assert.equal(await ledger.charge({ workspaceId: 'ws_c', period: '2025-03', units: 1, ...terms }), null);
      assert.equal(
        await ledger.charge({ workspaceId: 'ws_c', period: '2025-04', units: 21, ...terms }),
        null,
        'over the cap on an empty month',
      );
      assert.equal(await ledger.used('ws_c', '2025-04'), 0);
      assert.deepEqual(await ledger.history('ws_c', '2025-03', '2025-03'), [
        { period: '2025-03', units_used: 20, units_included: 10, hard_cap_units: 20 },
      ]);
      await ledger.charge({ workspaceId: 'ws_c', period: '2025-03', units: 1, included: 5, hardCap: 30 });
      assert.deepEqual(
        await ledger.history('ws_c', '2025-03', '2025-03'),
        [{ period: '2025-03', units_used: 21, units_included: 5, hard_cap_units: 30 }],
        'the latest terms',
      );
      await assert.rejects(ledger.charge({ workspaceId: 'ws_c', period: '2025-3', units: 1, ...terms }), RangeError);
      await assert.rejects(ledger.charge({ workspaceId: 'ws_c', period: '2025-03', units: -1, ...terms }), RangeError);
    }),
  );

  test(
    `${name}: 200 racing charges and reservations on room for 50 grant exactly 50`,
    withLedger(async (ledger) => {
      await ledger.charge({ workspaceId: 'ws_r', period: '2025-06', units: 150, included: 100, hardCap: 200 });
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          i % 2 === 0
            ? ledger.charge({ workspaceId: 'ws_r', period: '2025-06', units: 1, included: 100, hardCap: 200 })
            : ledger
                .reserve({ workspaceId: 'ws_r', period: '2025-06', units: 1, included: 100, hardCap: 200 })
                .then((r) => (r ? ledger.commit(r) : null)),
        ),
      );
      const granted = results.filter((u) => u !== null);
      assert.equal(granted.length, 50);
      assert.ok(
        granted.every((u) => u! > 150 && u! <= 200),
        'used never passes the cap while they race',
      );
      assert.equal(await ledger.used('ws_r', '2025-06'), 200);
    }),
  );

  test(
    `${name}: months and workspaces are separate`,
    withLedger(async (ledger) => {
      await ledger.commit((await ledger.reserve({ workspaceId: 'ws_a', period: '2025-01', units: 20, ...terms }))!);
      assert.ok(await ledger.reserve({ workspaceId: 'ws_a', period: '2025-02', units: 20, ...terms }), 'a new month starts empty');
      assert.ok(await ledger.reserve({ workspaceId: 'ws_b', period: '2025-01', units: 20, ...terms }), 'another workspace has its own cap');
      assert.equal(await ledger.used('ws_a', '2025-01'), 20);
      assert.equal(await ledger.used('ws_a', '2025-02'), 0);
      assert.equal(await ledger.used('ws_b', '2025-01'), 0);
    }),
  );

  test(
    `${name}: history lists the months in range, oldest first, with each month's own terms`,
    withLedger(async (ledger) => {
      for (const [period, units, included, hardCap] of [
        ['2025-06', 5, 100, 200],
        ['2024-12', 3, 10, 20],
        ['2025-02', 4, 50, 60],
        ['2023-01', 1, 1, 1],
      ] as const) {
        await ledger.commit((await ledger.reserve({ workspaceId: 'ws_h', period, units, included, hardCap }))!);
      }
      await ledger.reserve({ workspaceId: 'ws_other', period: '2025-01', units: 1, ...terms });
      assert.deepEqual(await ledger.history('ws_h', '2024-01', '2025-06'), [
        { period: '2024-12', units_used: 3, units_included: 10, hard_cap_units: 20 },
        { period: '2025-02', units_used: 4, units_included: 50, hard_cap_units: 60 },
        { period: '2025-06', units_used: 5, units_included: 100, hard_cap_units: 200 },
      ]);
      assert.deepEqual(await ledger.history('ws_h', '2025-03', '2025-05'), []);
    }),
  );

  test(
    `${name}: the latest reservation's terms are the month's terms`,
    withLedger(async (ledger) => {
      await ledger.commit((await ledger.reserve({ workspaceId: 'ws_t', period: '2025-07', units: 5, included: 10, hardCap: 20 }))!);
      assert.equal(await ledger.reserve({ workspaceId: 'ws_t', period: '2025-07', units: 2, included: 1, hardCap: 6 }), null);
      assert.deepEqual(await ledger.history('ws_t', '2025-07', '2025-07'), [
        { period: '2025-07', units_used: 5, units_included: 1, hard_cap_units: 6 },
      ]);
    }),
  );

  test(
    `${name}: committing an unknown reservation throws; releasing one changes nothing`,
    withLedger(async (ledger) => {
      const r = await ledger.reserve({ workspaceId: 'ws_a', period: '2025-03', units: 4, ...terms });
      await ledger.commit(r!);
      await assert.rejects(ledger.commit(r!), ReservationLostError);
      await assert.rejects(ledger.commit({ id: 'rsv_none', workspaceId: 'ws_none', period: '2025-03', units: 1 }), ReservationLostError);
      await ledger.release(r!);
      await ledger.release({ id: 'rsv_none', workspaceId: 'ws_none', period: '2025-03', units: 1 });
      assert.equal(await ledger.used('ws_a', '2025-03'), 4);
      assert.ok(await ledger.reserve({ workspaceId: 'ws_a', period: '2025-03', units: 16, ...terms }));
      assert.equal(await ledger.reserve({ workspaceId: 'ws_a', period: '2025-03', units: 1, ...terms }), null);
    }),
  );

  test(
    `${name}: malformed periods and unit counts are refused`,
    withLedger(async (ledger) => {
      for (const period of ['2025-13', '2025-1', '25-01', '2025-01-01', '']) {
        await assert.rejects(ledger.reserve({ workspaceId: 'ws_a', period, units: 1, ...terms }), RangeError, period);
        await assert.rejects(ledger.used('ws_a', period), RangeError);
      }
      for (const units of [-1, 1.5, Number.NaN]) {
        await assert.rejects(ledger.reserve({ workspaceId: 'ws_a', period: '2025-01', units, ...terms }), RangeError);
      }
      assert.deepEqual(await ledger.history('ws_a', '2000-01', '2099-12'), []);
    }),
  );

  test(
    `${name}: a reservation object settles only its own lease, once`,
    withLedger(async (ledger) => {
      const r = await ledger.reserve({ workspaceId: 'ws_l', period: '2025-03', units: 5, ...terms });
      const other = await ledger.reserve({ workspaceId: 'ws_l', period: '2025-03', units: 5, ...terms });
      await assert.rejects(ledger.commit({ ...r!, units: 10 }), ReservationLostError, 'more units than the lease holds');
      await assert.rejects(ledger.commit({ ...r!, period: '2025-04' }), ReservationLostError);
      await ledger.release({ ...r!, units: 1 });
      assert.equal(await ledger.commit(r!), 5);
      await ledger.release(other!);
      await ledger.release(other!);
      assert.equal(await ledger.used('ws_l', '2025-03'), 5);
      assert.ok(
        await ledger.reserve({ workspaceId: 'ws_l', period: '2025-03', units: 15, ...terms }),
        'a double release gave nothing back twice',
      );
      assert.equal(await ledger.reserve({ workspaceId: 'ws_l', period: '2025-03', units: 1, ...terms }), null);
    }),
  );

  test(
    `${name}: a lease left unsettled past its expiry is reclaimed before a refusal`,
    withLeasedLedger(async (ledger, clock) => {
      const stranded = await ledger.reserve({ workspaceId: 'ws_x', period: '2025-03', units: 20, ...terms });
      assert.ok(stranded);
      clock.advance(LEASE_MS - 1);
      assert.equal(
        await ledger.reserve({ workspaceId: 'ws_x', period: '2025-03', units: 1, ...terms }),
        null,
        'a live lease holds its units',
      );
      assert.equal(await ledger.charge({ workspaceId: 'ws_x', period: '2025-03', units: 1, ...terms }), null);
      clock.advance(1);
      const fresh = await ledger.reserve({ workspaceId: 'ws_x', period: '2025-03', units: 12, ...terms });
      assert.ok(fresh, 'the expired lease gave its units back');
      assert.equal(await ledger.charge({ workspaceId: 'ws_x', period: '2025-03', units: 8, ...terms }), 8, 'exactly the whole cap');
      assert.equal(await ledger.reserve({ workspaceId: 'ws_x', period: '2025-03', units: 1, ...terms }), null);
      await assert.rejects(ledger.commit(stranded), ReservationLostError, 'the reclaimed lease cannot be committed any more');
      await ledger.release(stranded);
      assert.equal(await ledger.commit(fresh), 20);
      assert.equal(await ledger.used('ws_x', '2025-03'), 20);
    }),
  );

  test(
    `${name}: an expired lease also gives way to a cache-hit charge`,
    withLeasedLedger(async (ledger, clock) => {
      assert.ok(await ledger.reserve({ workspaceId: 'ws_y', period: '2025-03', units: 15, ...terms }));
      clock.advance(LEASE_MS);
      assert.equal(await ledger.charge({ workspaceId: 'ws_y', period: '2025-03', units: 20, ...terms }), 20);
    }),
  );

  test(
    `${name}: 200 racing reservations with expired leases around them still grant exactly the room`,
    withLeasedLedger(async (ledger, clock) => {
      // 30 units stranded by "dead" requests, then 200 racers on a cap of 50 once the leases expired:
      // reclaiming (which several racers may attempt at once) gives each unit back exactly once.
      for (let i = 0; i < 3; i++)
        assert.ok(await ledger.reserve({ workspaceId: 'ws_z', period: '2025-05', units: 10, included: 0, hardCap: 50 }));
      clock.advance(LEASE_MS);
      const results = await Promise.all(
        Array.from({ length: 200 }, () => ledger.reserve({ workspaceId: 'ws_z', period: '2025-05', units: 1, included: 0, hardCap: 50 })),
      );
      const granted = results.filter((r) => r !== null);
      assert.equal(granted.length, 50);
      await Promise.all(granted.map((r) => ledger.commit(r!)));
      assert.equal(await ledger.used('ws_z', '2025-05'), 50);
      assert.equal(await ledger.reserve({ workspaceId: 'ws_z', period: '2025-05', units: 1, included: 0, hardCap: 50 }), null);
    }),
  );
}
