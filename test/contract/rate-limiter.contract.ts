// The RateLimiter conformance suite: every implementation (memory, later Redis) must pass it.
import { skippable } from '../helpers/services.js';
import assert from 'node:assert/strict';
import type { RateLimiter } from '../../src/ports/rate-limiter.js';

const W = 60_000;
const T0 = 1_750_000_000_000; // a whole second, so Reset arithmetic is easy to read

export function runRateLimiterContract(
  name: string,
  factory: () => Promise<RateLimiter> | RateLimiter,
  opts: { skip?: string | false } = {},
): void {
  // a suite that cannot run here lists each of its tests as skipped, with the reason
  const test = skippable(opts.skip);
  const withLimiter = (fn: (l: RateLimiter, key: string) => Promise<void>) => async () => {
    const limiter = await factory();
    try {
      // A fresh key per test keeps shared backends (Redis) independent between tests.
      await fn(limiter, `contract:${Math.random().toString(36).slice(2)}`);
    } finally {
      await limiter.close();
    }
  };

  test(
    `${name}: admits up to the limit, then refuses with remaining 0`,
    withLimiter(async (l, key) => {
      for (let i = 0; i < 3; i++) {
        const d = await l.hit(key, 3, W, T0 + i * 1000);
        assert.equal(d.allowed, true);
        assert.equal(d.limit, 3);
        assert.equal(d.remaining, 2 - i);
      }
      const refused = await l.hit(key, 3, W, T0 + 5000);
      assert.deepEqual(refused, { allowed: false, limit: 3, remaining: 0, resetUnix: (T0 + W) / 1000 });
    }),
  );

  test(
    `${name}: reset is the second the oldest recorded hit leaves the window, rounded up`,
    withLimiter(async (l, key) => {
      const d = await l.hit(key, 5, W, T0 + 1);
      assert.equal(d.resetUnix, Math.ceil((T0 + 1 + W) / 1000));
    }),
  );

  test(
    `${name}: a slot frees exactly when the oldest hit is a full window old`,
    withLimiter(async (l, key) => {
      await l.hit(key, 2, W, T0);
      await l.hit(key, 2, W, T0 + 10_000);
      assert.equal((await l.hit(key, 2, W, T0 + W - 1)).allowed, false);
      const after = await l.hit(key, 2, W, T0 + W);
      assert.equal(after.allowed, true);
      assert.equal(after.remaining, 0);
      assert.equal(after.resetUnix, (T0 + 10_000 + W) / 1000);
    }),
  );

  test(
    `${name}: refused hits are not recorded`,
    withLimiter(async (l, key) => {
      await l.hit(key, 1, W, T0);
      for (let i = 1; i <= 50; i++) assert.equal((await l.hit(key, 1, W, T0 + i * 1000)).allowed, false);
      // Had the refusals counted, the window would still be full here.
      assert.equal((await l.hit(key, 1, W, T0 + W)).allowed, true);
    }),
  );

  test(
    `${name}: keys are independent`,
    withLimiter(async (l, key) => {
      await l.hit(key + 'a', 1, W, T0);
      assert.equal((await l.hit(key + 'a', 1, W, T0 + 1)).allowed, false);
      assert.equal((await l.hit(key + 'b', 1, W, T0 + 1)).allowed, true);
    }),
  );

  test(
    `${name}: a limit of 0 admits nothing`,
    withLimiter(async (l, key) => {
      const d = await l.hit(key, 0, W, T0);
      assert.equal(d.allowed, false);
      assert.equal(d.remaining, 0);
    }),
  );
}
