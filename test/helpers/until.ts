// Waiting for something real I/O brings about (a write returned, a datagram arrived, a file made, a
// query seen by the database): turns of the event loop until `cond` holds. The guard is not a bound
// on how soon: it only turns a wait that would never end into a failure. performance.now, not Date
// or timers, so that tests on fake time (node:test's mock timers) may use it.
import assert from 'node:assert/strict';

const GUARD_MS = 60_000;

export async function until(cond: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const giveUpAt = performance.now() + GUARD_MS;
  while (!(await cond())) {
    if (performance.now() > giveUpAt) assert.fail(`never happened: ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}
