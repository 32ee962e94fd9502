// Several API processes sharing one Redis limiter: together they never admit more than the limit.
import { skippable } from '../helpers/services.js';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { openRedisRateLimiter } from '../../src/limits/redis.js';
import { REDIS_SKIP, REDIS_URL, testPrefix } from './fixtures/redis-env.js';
import { race, startRaceChild } from './fixtures/race-children.js';

const CHILD = fileURLToPath(new URL('./fixtures/limiter-race-child.redis.ts', import.meta.url));
const NAME = 'redis: 2 processes firing 150 hits each on a limit of 50 admit exactly 50 in the window';

{
  // without the service every test below is listed as skipped, with the reason (in CI: the file fails)
  const test = skippable(REDIS_SKIP);
  const url = REDIS_URL as string;
  test(NAME, async () => {
    const prefix = testPrefix();
    const [L, W, T0] = [50, 60_000, 1_750_000_000_000];
    const results = await race(
      [0, 1].map(() => startRaceChild<{ admitted: number }>(CHILD, [url, prefix, 'tok', '150', String(L), String(W), String(T0)])),
    );
    assert.equal(
      results.reduce((sum, r) => sum + r.admitted, 0),
      L,
    );

    const l = await openRedisRateLimiter(url, { keyPrefix: prefix });
    try {
      assert.equal((await l.hit('tok', L, W, T0 + 1_500)).allowed, false, 'the window is still full');
      // Hits were recorded at T0 + 0..1490 ms; the window has passed them all one window after the last.
      const later = await l.hit('tok', L, W, T0 + 1_490 + W);
      assert.equal(later.allowed, true);
      assert.equal(later.remaining, L - 1);
    } finally {
      await l.close();
    }
  });
}
