// The live count's memo: one count serves a site's pages for LIVE_MEMO_MS; a site still waiting for its
// first event and a failed count are asked again at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LIVE_MEMO_MS, liveVisitors } from '../../src/services/analytics/live-visitors.js';
import type { AnalyticsEngine } from '../../src/ports/analytics-engine.js';

/** An engine whose run answers `visitors` and whose newest event is `newest`, counting the runs. */
function fakeEngine(state: { visitors: number; newest: Date | null; fail?: boolean }) {
  const calls = { run: 0 };
  const engine = {
    run: async () => {
      calls.run++;
      if (state.fail) throw new Error('store down');
      return [{ key: null, values: { visitors: state.visitors } }];
    },
    newestEventAt: async () => state.newest,
  } as unknown as AnalyticsEngine;
  return { engine, calls };
}

const at = (ms: number) => new Date(Date.UTC(2026, 10, 26, 12) + ms);

test('a count serves the same site for LIVE_MEMO_MS, then is read again', async () => {
  const state = { visitors: 3, newest: at(-1000) };
  const { engine, calls } = fakeEngine(state);
  assert.equal((await liveVisitors(engine, 's1', at(0), 1000)).visitors, 3);
  state.visitors = 4;
  const [a, b] = await Promise.all([liveVisitors(engine, 's1', at(10), 1000), liveVisitors(engine, 's1', at(LIVE_MEMO_MS - 1), 1000)]);
  assert.deepEqual([a.visitors, b.visitors, calls.run], [3, 3, 1], 'pages within the window share the first count');
  assert.equal((await liveVisitors(engine, 's2', at(20), 1000)).visitors, 4, 'another site is its own count');
  assert.equal((await liveVisitors(engine, 's1', at(LIVE_MEMO_MS), 1000)).visitors, 4, 'read again once the window has passed');
  assert.equal((await liveVisitors(engine, 's1', at(-60_000), 1000)).visitors, 4, 'a clock that stepped back reads again');
});

test('a site waiting for its first event, and a failed count, are asked again at once', async () => {
  const state = { visitors: 0, newest: null as Date | null, fail: false };
  const { engine, calls } = fakeEngine(state);
  assert.equal((await liveVisitors(engine, 'new', at(0), 1000)).last_event_at, null);
  state.newest = at(500);
  state.visitors = 1;
  assert.deepEqual(
    await liveVisitors(engine, 'new', at(600), 1000),
    { visitors: 1, last_event_at: at(500).toISOString() },
    'turns live on the next poll',
  );
  state.fail = true;
  await assert.rejects(liveVisitors(engine, 'other', at(700), 1000), /store down/);
  state.fail = false;
  assert.equal((await liveVisitors(engine, 'other', at(800), 1000)).visitors, 1, 'the failure was not kept');
  assert.equal(calls.run, 4);
});
