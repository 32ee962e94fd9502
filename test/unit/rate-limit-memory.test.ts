import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FakeClock } from '../../src/domain/clock.js';
import { MemoryRateLimiter } from '../../src/limits/memory.js';
import { runs } from '../helpers/property-runs.js';

const W = 60_000;

test('no trailing 60 s window ever admits more than L (random arrival gaps, fake clock)', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 20 }),
      fc.array(fc.integer({ min: 0, max: 15_000 }), { minLength: 1, maxLength: 300 }),
      async (limit, gaps) => {
        const clock = new FakeClock(1_700_000_000_000);
        const limiter = new MemoryRateLimiter();
        const admitted: number[] = [];
        for (const gap of gaps) {
          clock.advance(gap);
          const t = clock.now().getTime();
          const d = await limiter.hit('k', limit, W, t);
          if (d.allowed) admitted.push(t);
          // Remaining always equals what is left in the window ending now.
          const inWindow = admitted.filter((a) => a > t - W).length;
          assert.equal(d.remaining, d.allowed ? limit - inWindow : 0);
          if (!d.allowed) assert.equal(inWindow, limit, 'a refusal happens only when the window is full');
          assert.ok(d.resetUnix * 1000 >= t, 'reset is not in the past');
        }
        // Check every window that ends at an admitted request (the worst windows).
        for (const end of admitted) assert.ok(admitted.filter((a) => a > end - W && a <= end).length <= limit);
      },
    ),
    { numRuns: runs(200) },
  );
});

test('the sliding log is exact at the edge: a burst of L, then one more admitted as each slot frees', async () => {
  const limiter = new MemoryRateLimiter();
  const t0 = 1_700_000_000_000;
  for (let i = 0; i < 900; i++) assert.equal((await limiter.hit('tok', 900, W, t0 + i)).allowed, true);
  assert.equal((await limiter.hit('tok', 900, W, t0 + W - 1)).allowed, false);
  assert.equal((await limiter.hit('tok', 900, W, t0 + W)).allowed, true);
  assert.equal((await limiter.hit('tok', 900, W, t0 + W)).allowed, false);
});

test('idle keys are swept so memory follows active tokens', async () => {
  const limiter = new MemoryRateLimiter();
  const t0 = 1_700_000_000_000;
  for (let i = 0; i < 12_000; i++) await limiter.hit(`k${i}`, 5, W, t0 + i * 10);
  const size = (limiter as unknown as { logs: Map<string, number[]> }).logs.size;
  assert.ok(size < 12_000, `expected a sweep, ${size} keys kept`);
});
