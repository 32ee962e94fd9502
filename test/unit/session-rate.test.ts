// A session's window (src/services/people/session-rate.ts): 100 requests in any 5 seconds. A burst of a
// person's clicks passes whole; a pace above 20 a second is held to 20 a second once the burst is spent,
// so a script reading without pause still meets 429. On the memory limiter at exact, chosen instants.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManageError } from '../../src/domain/manage-errors.js';
import { MemoryRateLimiter } from '../../src/limits/memory.js';
import { checkSessionRate, SESSION_RATE_LIMIT, SESSION_RATE_WINDOW_MS } from '../../src/services/people/session-rate.js';

const T0 = 1_700_000_000_000; // a whole second, so Retry-After reads plainly

/** Asks at each instant (ms after T0); what passed, and the refusals with their Retry-After. */
async function ask(limiter: MemoryRateLimiter, session: string, instants: number[]) {
  const passed: number[] = [];
  const refused: { at: number; retryAfter: unknown }[] = [];
  for (const at of instants) {
    try {
      await checkSessionRate(limiter, session, T0 + at);
      passed.push(at);
    } catch (err) {
      assert.ok(err instanceof ManageError && err.code === 'RATE_LIMITED', String(err));
      refused.push({ at, retryAfter: err.details?.retry_after_seconds });
    }
  }
  return { passed, refused };
}

const every = (stepMs: number, untilMs: number) => Array.from({ length: Math.ceil(untilMs / stepMs) }, (_, k) => k * stepMs);

test('the window is 100 requests in any 5 seconds: 20 a second on average', () => {
  assert.equal(SESSION_RATE_LIMIT, 100);
  assert.equal(SESSION_RATE_WINDOW_MS, 5_000);
});

test('a burst of 100 at one instant passes; the 101st is refused for 5 s, to the millisecond; other sessions go on', async () => {
  const limiter = new MemoryRateLimiter();
  const burst = await ask(limiter, 'a', Array(100).fill(0));
  assert.equal(burst.passed.length, 100);
  assert.deepEqual((await ask(limiter, 'a', [0])).refused, [{ at: 0, retryAfter: 5 }]);
  assert.equal((await ask(limiter, 'b', [0])).passed.length, 1, 'one budget per session');
  assert.deepEqual((await ask(limiter, 'a', [4_999])).refused, [{ at: 4_999, retryAfter: 1 }], 'still inside the 5 s');
  assert.deepEqual((await ask(limiter, 'a', [5_000])).passed, [5_000], 'the burst has left the window');
});

test('five views in two seconds (a load, three periods, a second site: some 80 requests) pass', async () => {
  const limiter = new MemoryRateLimiter();
  // 18 requests a load, 14 a change of period, 18 a second site, each group within 50 ms, 400 ms apart
  const groups = [18, 14, 14, 14, 18];
  const instants = groups.flatMap((n, g) => Array.from({ length: n }, (_, k) => g * 400 + Math.floor((k * 50) / n)));
  const { passed, refused } = await ask(limiter, 'a', instants);
  assert.equal(passed.length, 78);
  assert.deepEqual(refused, []);
});

test('20 a second without pause passes for a minute', async () => {
  const limiter = new MemoryRateLimiter();
  const { passed, refused } = await ask(limiter, 'a', every(50, 60_000));
  assert.equal(passed.length, 1_200);
  assert.deepEqual(refused, []);
});

test('25 a second without pause: the 101st, 4 s in, is refused; over 30 s exactly 600 of 750 pass (20 a second)', async () => {
  const limiter = new MemoryRateLimiter();
  const { passed, refused } = await ask(limiter, 'a', every(40, 30_000));
  assert.equal(refused[0].at, 4_000, 'the burst is spent after 100 requests');
  assert.equal(passed.length, 600);
  assert.equal(refused.length, 150);
  // in no 5 s did more than 100 pass
  for (let i = 100; i < passed.length; i++) assert.ok(passed[i] - passed[i - 100] >= 5_000, `at ${passed[i]} ms`);
});
