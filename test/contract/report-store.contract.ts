// The ReportStore (report subscriptions and their deliveries): every implementation must pass it
// unchanged (SQLite in catalog-store.test.ts, PostgreSQL in catalog-store.postgres.test.ts). The
// delivery claim is the once-only rule of sending (docs/decisions/mailed-reports.md): one taker among
// many at once, a lapsed claim taken again (the one duplicate a crash costs), a retry not before its
// time, nothing after sent or failed.
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/domain/clock.js';
import type { CatalogStore } from '../../src/ports/catalog-store.js';
import type { LifecycleControl } from '../../src/ports/lifecycle-control.js';
import type { NewReportSubscription, ReportStore } from '../../src/ports/report-store.js';
import { skippable } from '../helpers/services.js';

export interface ReportStoresUnderTest {
  catalog: CatalogStore;
  reports: ReportStore;
  lifecycle: LifecycleControl;
  close(): Promise<void>;
}
export type ReportStoresFactory = (clock: FakeClock) => Promise<ReportStoresUnderTest>;

const T0 = '2026-11-01T00:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();

export function runReportStoreContract(name: string, factory: ReportStoresFactory, opts: { skip?: string | false } = {}): void {
  const test = skippable(opts.skip);
  const withStores = (fn: (s: ReportStoresUnderTest, base: NewReportSubscription) => Promise<void>) => async () => {
    const s = await factory(new FakeClock(Date.parse(T0)));
    try {
      const ws = await s.catalog.createWorkspace({ name: 'A', plan: 'pro' });
      const site = await s.catalog.createSite({
        workspaceId: ws.id,
        name: 'Site',
        hostnames: ['r.example.com'],
        collectionProfile: 'extended',
      });
      const base: NewReportSubscription = {
        siteId: site.id,
        workspaceId: ws.id,
        tenantId: null,
        email: 'a@example.org',
        period: 'week',
        userId: null,
        confirm: null,
        now: T0,
      };
      await fn(s, base);
    } finally {
      await s.close();
    }
  };

  test(
    `${name}: one subscription per site, tenant, address and period; asking again renews an open confirmation or confirms a member's own`,
    withStores(async ({ reports, catalog }, base) => {
      const a = await reports.subscribe(base);
      assert.deepEqual([a.created, a.subscription.confirmedAt, a.subscription.tenantId], [true, T0, null]);
      assert.equal((await reports.subscribe(base)).subscription.id, a.subscription.id);
      assert.equal((await reports.subscribe(base)).created, false);
      const tenant = await catalog.createTenant({ siteId: base.siteId, slug: 'acme', name: 'Acme' });
      const other = [
        // listed oldest first: each made after the one before
        await reports.subscribe({ ...base, period: 'month', now: at(0.25) }),
        await reports.subscribe({ ...base, tenantId: tenant.id, now: at(0.5) }),
        await reports.subscribe({
          ...base,
          email: 'b@example.org',
          confirm: { secretHash: 'h1'.padEnd(64, '0'), expiresAt: at(60) },
          now: at(0.75),
        }),
      ];
      assert.ok(other.every((o) => o.created));
      assert.equal(new Set([a, ...other].map((o) => o.subscription.id)).size, 4);
      assert.equal(other[1].subscription.tenantId, tenant.id);
      // an open confirmation asked for again: a new secret replaces the old one
      const b = { ...base, email: 'b@example.org' };
      await reports.subscribe({ ...b, confirm: { secretHash: 'h2'.padEnd(64, '0'), expiresAt: at(120) } });
      assert.equal(await reports.confirm('h1'.padEnd(64, '0'), at(1)), null, 'the replaced link confirms nothing');
      // the member subscribing that address themselves confirms it
      const own = await reports.subscribe({ ...b, userId: 'usr_x', confirm: null, now: at(2) });
      assert.deepEqual([own.created, own.subscription.confirmedAt, own.subscription.userId], [false, at(2), 'usr_x']);
      assert.deepEqual(
        (await reports.listSubscriptions(base.siteId)).map((s) => [s.email, s.period, s.tenantId === null]),
        [
          ['a@example.org', 'week', true],
          ['a@example.org', 'month', true],
          ['a@example.org', 'week', false],
          ['b@example.org', 'week', true],
        ],
      );
      assert.equal((await reports.confirmedSubscriptions()).length, 4);
    }),
  );

  test(
    `${name}: a confirmation link works once, and not after it expires`,
    withStores(async ({ reports }, base) => {
      const hash = 'c'.repeat(64);
      const s = await reports.subscribe({ ...base, confirm: { secretHash: hash, expiresAt: at(60) } });
      assert.equal(s.subscription.confirmedAt, null);
      assert.deepEqual(await reports.confirmedSubscriptions(), []);
      assert.equal(await reports.confirm('d'.repeat(64), at(1)), null);
      assert.equal(await reports.confirm(hash, at(60)), null, 'expired at its end');
      assert.equal((await reports.confirm(hash, at(59)))?.confirmedAt, at(59));
      assert.equal(await reports.confirm(hash, at(59)), null, 'used');
      assert.deepEqual(
        (await reports.confirmedSubscriptions()).map((x) => x.id),
        [s.subscription.id],
      );
    }),
  );

  test(
    `${name}: a delivery is claimed by one of many at once, taken again only when its claim lapsed, retried not before its time, never after sent or failed`,
    withStores(async ({ reports }, base) => {
      const { subscription: sub } = await reports.subscribe(base);
      const p = '2026-10-26';
      const claims = await Promise.all(Array.from({ length: 8 }, () => reports.claimDelivery(sub.id, p, at(0), at(10))));
      assert.equal(claims.filter((c) => c !== null).length, 1, 'one taker');
      assert.equal(claims.find((c) => c)!.attempts, 1);
      assert.equal(await reports.claimDelivery(sub.id, p, at(9), at(19)), null, 'held until its claim lapses');
      // the holder died between send and record: the claim lapses and the report is sent once more
      const again = await Promise.all([reports.claimDelivery(sub.id, p, at(10), at(20)), reports.claimDelivery(sub.id, p, at(10), at(20))]);
      assert.deepEqual(again.map((c) => c?.attempts ?? null).sort(), [2, null]);
      await reports.settleDelivery(sub.id, p, { sent: false, reason: 'refused (reply 451)', retryAt: at(15) });
      assert.equal(await reports.claimDelivery(sub.id, p, at(14), at(24)), null, 'not before the retry');
      const third = await reports.claimDelivery(sub.id, p, at(15), at(25));
      assert.equal(third?.attempts, 3);
      await reports.settleDelivery(sub.id, p, { sent: true, now: at(16) });
      assert.equal(await reports.claimDelivery(sub.id, p, at(60), at(70)), null, 'sent: never again');
      const [d] = await reports.listDeliveries(sub.id);
      assert.deepEqual([d.state, d.attempts, d.sentAt, d.lastError], ['sent', 3, at(16), 'refused (reply 451)']);
      // another period is its own delivery; failed for good ends it
      const q = '2026-11-02';
      assert.equal((await reports.claimDelivery(sub.id, q, at(0), at(10)))?.attempts, 1);
      await reports.settleDelivery(sub.id, q, { sent: false, reason: 'gone', retryAt: null });
      assert.equal(await reports.claimDelivery(sub.id, q, at(600), at(610)), null, 'failed: never again');
      assert.deepEqual(
        (await reports.listDeliveries(sub.id)).map((x) => [x.periodStart, x.state]),
        [
          [q, 'failed'],
          [p, 'sent'],
        ],
      );
    }),
  );

  test(
    `${name}: unsubscribing, and removing the site, remove the subscriptions and their deliveries`,
    withStores(async ({ reports, lifecycle }, base) => {
      const a = (await reports.subscribe(base)).subscription;
      const b = (await reports.subscribe({ ...base, period: 'month' })).subscription;
      await reports.claimDelivery(a.id, '2026-10-26', at(0), at(10));
      await reports.claimDelivery(b.id, '2026-10-01', at(0), at(10));
      assert.equal(await reports.unsubscribe(a.id), true);
      assert.equal(await reports.unsubscribe(a.id), false);
      assert.deepEqual(await reports.listDeliveries(a.id), []);
      assert.ok(await lifecycle.removeSite(base.siteId));
      assert.equal(await reports.getSubscription(b.id), null);
      assert.deepEqual(await reports.listDeliveries(b.id), []);
    }),
  );
}
