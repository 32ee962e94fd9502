// The RateLimiter suite against a live Redis (FOOTFALL_TEST_REDIS_URL), plus Redis-specific behaviour.
import { test } from 'node:test';
import { skippable } from '../helpers/services.js';
import assert from 'node:assert/strict';
import { createClient } from 'redis';
import { openRedisRateLimiter, RedisRateLimiter, type RedisScripting } from '../../src/limits/redis.js';
import { runRateLimiterContract } from './rate-limiter.contract.js';
import { REDIS_SKIP, REDIS_URL, testPrefix } from './fixtures/redis-env.js';

const W = 60_000;
const T0 = 1_750_000_000_000;

test('redis: an unreachable server is reported as RATE_LIMITER_UNAVAILABLE', async () => {
  await assert.rejects(openRedisRateLimiter('redis://:s3cret@127.0.0.1:1'), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'RATE_LIMITER_UNAVAILABLE');
    assert.match(err.message, /cannot reach Redis at redis:\/\/\*\*\*@127\.0\.0\.1:1/);
    assert.doesNotMatch(err.message, /s3cret/);
    return true;
  });
});

test('redis: bad arguments are refused before reaching the server', async () => {
  const never: RedisScripting = {
    evalSha: () => assert.fail('no call expected'),
    eval: () => assert.fail('no call expected'),
  };
  const l = new RedisRateLimiter(never);
  await assert.rejects(l.hit('', 1, W, T0), RangeError);
  await assert.rejects(l.hit('k', -1, W, T0), RangeError);
  await assert.rejects(l.hit('k', 1.5, W, T0), RangeError);
  await assert.rejects(l.hit('k', 1, 0, T0), RangeError);
  await assert.rejects(l.hit('k', 1, W, Number.NaN), RangeError);
});

{
  // without the service every test below is listed as skipped, with the reason (in CI: the file fails)
  const test = skippable(REDIS_SKIP);
  const url = REDIS_URL as string;
  runRateLimiterContract('redis', () => openRedisRateLimiter(url, { keyPrefix: testPrefix() }), { skip: REDIS_SKIP });

  test('redis: a flushed script cache is reloaded transparently', async () => {
    const admin = createClient({ url });
    await admin.connect();
    const l = await openRedisRateLimiter(url, { keyPrefix: testPrefix() });
    try {
      assert.equal((await l.hit('k', 2, W, T0)).remaining, 1);
      await admin.scriptFlush();
      const d = await l.hit('k', 2, W, T0 + 1);
      assert.deepEqual(d, { allowed: true, limit: 2, remaining: 0, resetUnix: (T0 + W) / 1000 });
    } finally {
      await l.close();
      await admin.close();
    }
  });

  test('redis: a key with hits expires on its own once idle, and refusals add nothing to it', async () => {
    const admin = createClient({ url });
    await admin.connect();
    const prefix = testPrefix();
    const l = await openRedisRateLimiter(url, { keyPrefix: prefix });
    try {
      await l.hit('k', 2, W, T0);
      await l.hit('k', 2, W, T0 + 1);
      await l.hit('k', 2, W, T0 + 2);
      assert.equal(await admin.zCard(prefix + 'k'), 2);
      const ttl = await admin.pTTL(prefix + 'k');
      assert.ok(ttl > W && ttl <= W + 60_000, `ttl ${ttl} ms covers the window plus the skew allowance`);
      assert.equal(await admin.exists(prefix + 'z'), 0);
      await l.hit('z', 0, W, T0);
      assert.equal(await admin.exists(prefix + 'z'), 0, 'a refused hit on an empty log leaves no key behind');
    } finally {
      await admin.del([prefix + 'k']);
      await l.close();
      await admin.close();
    }
  });

  test('redis: hits arriving out of time order (clocks a little apart) keep the log ordered', async () => {
    const l = await openRedisRateLimiter(url, { keyPrefix: testPrefix() });
    try {
      await l.hit('k', 3, W, T0 + 5_000);
      const d = await l.hit('k', 3, W, T0); // from a process whose clock is 5 s behind
      assert.equal(d.resetUnix, (T0 + W) / 1000, 'reset follows the oldest hit, not the last recorded');
      assert.equal((await l.hit('k', 3, W, T0 + W)).remaining, 1, 'the older hit left: two remain in the window');
    } finally {
      await l.close();
    }
  });

  test('redis: closing twice is harmless', async () => {
    const l = await openRedisRateLimiter(url, { keyPrefix: testPrefix() });
    await l.close();
    await l.close();
  });
}
