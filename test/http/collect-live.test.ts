// Live collection over time: small batches keep today's sessions exact (a late event of a visitor's
// day is merged into that day's sessions), an accepted event is readable within seconds, and
// dataFreshness reports what is still on its way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectHarness, pageview } from './helpers/collect.js';

const MIN = 60_000;

test('sessions stay exact as small batches arrive: a late event is merged into its visitor-day', async () => {
  const h = await collectHarness({ now: '2025-06-15T10:00:00.000Z' });
  try {
    const send = async (path: string) => assert.equal((await h.post(pageview(`https://live.example${path}`))).statusCode, 202);
    await send('/a'); // 10:00
    await h.flush();
    h.clock.advance(10 * MIN);
    await send('/b'); // 10:10, the next batch: same session
    await h.flush();
    let t = (await h.read('/v1/reports/overview')).current.overview.totals;
    assert.deepEqual([t.pageviews, t.sessions, t.bounce_rate], [2, 1, 0]);

    h.clock.advance(40 * MIN);
    await send('/c'); // 10:50: 40 minutes later, a new session
    await h.flush();
    t = (await h.read('/v1/reports/overview')).current.overview.totals;
    assert.deepEqual([t.pageviews, t.sessions], [3, 2]);
    assert.equal(t.bounce_rate, 0.5);

    // An event of 10:30 that reaches the store only now (another process's spool, a replay after a
    // crash): it fills the gap, and the visitor's day is one session again.
    h.clock.set('2025-06-15T10:30:00.000Z');
    await send('/late');
    await h.flush();
    t = (await h.read('/v1/reports/overview')).current.overview.totals;
    assert.deepEqual([t.pageviews, t.sessions, t.bounce_rate], [4, 1, 0]);
    const entry = await h.breakdown('entry_page', { metric: 'sessions' });
    const exit = await h.breakdown('exit_page', { metric: 'sessions' });
    assert.deepEqual([entry, exit], [{ '/a': 1 }, { '/c': 1 }]);
    // Keys rotate at midnight UTC: the same browser tomorrow is another visitor and another session.
    h.clock.set('2025-06-16T00:05:00.000Z');
    await send('/a');
    await h.flush();
    const days = await h.read('/v1/metrics/timeseries', { metric: 'sessions', from: '2025-06-15', to: '2025-06-16' });
    assert.deepEqual(
      days.current.points.map((p: { value: number }) => p.value),
      [1, 1],
    );
  } finally {
    await h.close();
  }
});

test('dataFreshness: the lag between the newest accepted event and the newest readable one', async () => {
  const h = await collectHarness({ now: '2025-06-15T10:00:00.000Z' });
  try {
    const freshness = async () => (await h.read('/v1/metrics/timeseries')).meta.surface.dataFreshness;
    let f = await freshness();
    assert.equal(f.status, 'unknown', 'nothing collected, nothing stored');

    await h.post(pageview('https://live.example/a'));
    f = await freshness();
    // Accepted, not loaded yet, nothing readable: the lag is how long it has waited.
    assert.deepEqual([f.status, f.asOf, f.lagMinutes], ['fresh', null, 0]);
    assert.ok(
      f.notes.some((n: string) => /waiting/.test(n)),
      f.notes.join(),
    );
    await h.flush();
    f = await freshness();
    assert.deepEqual([f.status, f.asOf, f.lagMinutes], ['fresh', '2025-06-15T10:00:00.000Z', 0]);
    assert.ok(f.notes.some((n: string) => /every accepted event is readable/.test(n)));

    // The loader falls behind (a store that is down, say) while events keep coming for 90 minutes.
    for (let i = 1; i <= 9; i++) {
      h.clock.advance(10 * MIN);
      await h.post(pageview(`https://live.example/p${i}`));
    }
    f = await freshness();
    assert.deepEqual([f.status, f.asOf, f.lagMinutes], ['delayed', '2025-06-15T10:00:00.000Z', 90]);
    await h.flush();
    f = await freshness();
    assert.deepEqual([f.status, f.asOf, f.lagMinutes], ['fresh', '2025-06-15T11:30:00.000Z', 0]);

    // Hours without a visitor: everything accepted is readable, so the data is current, not stale.
    h.clock.advance(30 * 60 * MIN);
    f = await freshness();
    assert.deepEqual([f.status, f.asOf, f.lagMinutes], ['fresh', '2025-06-16T17:30:00.000Z', 0]);
  } finally {
    await h.close();
  }
});

test('the loader runs on its own every 2 s: an accepted event becomes readable with no flush', async (t) => {
  // The real timer and the real clock. How fast under load is `npm run bench -- collect`'s figure;
  // here only that it happens, with a bound far above the timer's period for a busy machine.
  const h = await collectHarness({ now: new Date().toISOString(), collect: { intervalMs: 2000 } });
  try {
    const accepted = Date.now();
    assert.equal((await h.post(pageview('https://live.example/now'))).statusCode, 202);
    let readableAfter = -1;
    while (Date.now() - accepted < 20_000) {
      if ((await h.read('/v1/metrics/timeseries')).current.total === 1) {
        readableAfter = Date.now() - accepted;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(readableAfter >= 0, 'readable without a flush');
    t.diagnostic(`readable ${readableAfter} ms after its 202`);
  } finally {
    await h.close();
  }
});

test('10,000 waiting events start a load at once, without waiting for the timer', async () => {
  const h = await collectHarness({ collect: { intervalMs: 3_600_000 } });
  try {
    const batch = 500;
    for (let sent = 0; sent < 10_000; sent += batch) {
      const rs = await Promise.all(
        Array.from({ length: batch }, (_, i) =>
          h.post(pageview(`https://live.example/p${(sent + i) % 50}`), {
            ip: `198.51.${Math.floor((sent + i) / 250)}.${(sent + i) % 250}`,
          }),
        ),
      );
      assert.ok(rs.every((r) => r.statusCode === 202));
    }
    const start = Date.now();
    let total = 0;
    while (Date.now() - start < 30_000 && total < 10_000) {
      total = (await h.read('/v1/metrics/timeseries')).current.total;
      if (total < 10_000) await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(total, 10_000);
  } finally {
    await h.close();
  }
});
