// Session rules (docs/product.md §4.2, §8.3), through the real importer into DuckDB.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { action, harness, pv, sessionsOf } from './harness.js';

const T = (hms: string, day = '2025-03-05') => `${day}T${hms}Z`;

test('a gap of exactly 30 minutes stays in the session; 30 minutes and 1 ms starts a new one', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    await h.run([
      pv(s, T('10:00:00.000'), { visitor_key: 'a' }),
      pv(s, T('10:30:00.000'), { visitor_key: 'a' }),
      pv(s, T('10:00:00.000'), { visitor_key: 'b' }),
      pv(s, T('10:30:00.001'), { visitor_key: 'b' }),
    ]);
    const rows = await sessionsOf(h, s);
    const perKey = (k: string) => rows.filter((r) => r.visitor_key === k).map((r) => r.pageviews);
    assert.deepEqual(perKey('a'), ['2']);
    assert.deepEqual(perKey('b'), ['1', '1']);
    const events = await h.query(`SELECT visitor_key, count(DISTINCT session_id) AS n FROM events GROUP BY 1 ORDER BY 1`);
    assert.deepEqual(events, [
      { visitor_key: 'a', n: '1' },
      { visitor_key: 'b', n: '2' },
    ]);
  } finally {
    await h.close();
  }
});

test('no session crosses 00:00 UTC, even with the same key and a short gap', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    await h.run([pv(s, T('23:55:00.000', '2025-03-05')), pv(s, T('00:05:00.000', '2025-03-06'))]);
    const rows = await sessionsOf(h, s);
    assert.deepEqual(
      rows.map((r) => r.day),
      ['2025-03-05', '2025-03-06'],
    );
  } finally {
    await h.close();
  }
});

test('sessions are keyed by site, tenant and visitor key', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    const t1 = await h.tenant(s, 'one');
    const t2 = await h.tenant(s, 'two');
    await h.run([pv(s, T('10:00:00'), { tenant_id: t1 }), pv(s, T('10:01:00'), { tenant_id: t2 }), pv(s, T('10:02:00'))]);
    const rows = await sessionsOf(h, s);
    assert.equal(rows.length, 3);
    assert.deepEqual(new Set(rows.map((r) => r.tenant_id)), new Set([t1, t2, null]));
  } finally {
    await h.close();
  }
});

test('first-event values, entry and exit pages, and pageview-before-action on equal times', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    await h.run([
      // the action shares the first pageview's instant: the pageview sorts first
      action(s, T('10:00:00'), 'form.submit', { form_id: 'f', path: '/form' }),
      pv(s, T('10:00:00'), { path: '/landing', referrer: 'https://www.google.com/', country: 'DE', device_type: 'mobile' }),
      pv(s, T('10:05:00'), { path: '/middle', referrer: 'https://t.co/x', country: 'FR', device_type: 'desktop' }),
      pv(s, T('10:10:00'), { path: '/last', engagement_time_ms: 1200 }),
      action(s, T('10:11:00'), 'outbound.click'),
    ]);
    const [row] = await sessionsOf(h, s);
    assert.equal(row.channel, 'Search');
    assert.equal(row.referrer_host, 'google.com');
    assert.equal(row.country, 'DE');
    assert.equal(row.device_type, 'mobile');
    assert.equal(row.entry_page, '/landing');
    assert.equal(row.exit_page, '/last');
    assert.equal(row.pageviews, '3');
    assert.equal(row.events, '5');
    assert.equal(row.meaningful_actions, '2');
    assert.equal(row.engagement_ms, '1200');
    assert.equal(row.start_ms, String(Date.parse(T('10:00:00'))));
    assert.equal(row.end_ms, String(Date.parse(T('10:11:00'))));
  } finally {
    await h.close();
  }
});

test('bounce and engaged: one pageview bounces unless a meaningful action; instrumentation and errors do not count', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    await h.run([
      pv(s, T('10:00:00'), { visitor_key: 'lone' }),
      pv(s, T('10:00:00'), { visitor_key: 'click' }),
      action(s, T('10:00:01'), 'ui.click', { visitor_key: 'click' }),
      action(s, T('10:00:02'), 'error.js', { visitor_key: 'click' }),
      pv(s, T('10:00:00'), { visitor_key: 'form' }),
      action(s, T('10:00:01'), 'form.submit', { visitor_key: 'form' }),
      pv(s, T('10:00:00'), { visitor_key: 'goal' }),
      action(s, T('10:00:01'), 'signup.done', { visitor_key: 'goal', family: 'goals' }),
      pv(s, T('10:00:00'), { visitor_key: 'long', engagement_time_ms: 10_000 }),
      pv(s, T('10:00:00'), { visitor_key: 'short', engagement_time_ms: 9_999 }),
      pv(s, T('10:00:00'), { visitor_key: 'two' }),
      pv(s, T('10:01:00'), { visitor_key: 'two' }),
    ]);
    const rows = Object.fromEntries((await sessionsOf(h, s)).map((r) => [r.visitor_key, [r.is_bounce, r.is_engaged]]));
    assert.deepEqual(rows, {
      lone: [true, false],
      click: [true, false],
      form: [false, true],
      goal: [false, true],
      long: [true, true],
      short: [true, false],
      two: [false, true],
    });
  } finally {
    await h.close();
  }
});

test('importing a day in two halves gives the same sessions as importing it at once', async () => {
  const lines = (s: string) => [
    pv(s, T('10:00:00'), { path: '/a', referrer: 'https://www.bing.com/' }),
    pv(s, T('10:25:00'), { path: '/b' }), // bridges the next gap once both halves are in
    pv(s, T('10:50:00'), { path: '/c', referrer: 'https://t.co/x' }),
    action(s, T('10:51:00'), 'file.download'),
    pv(s, T('12:00:00'), { path: '/d', visitor_key: 'v2' }),
  ];
  const once = await harness();
  const halves = await harness();
  try {
    const s1 = await once.site({ hostnames: ['same.example'] });
    await once.run(lines(s1));
    const s2 = await halves.site({ hostnames: ['same.example'] });
    const all = lines(s2);
    const first = await halves.run([all[0], all[2], all[3]]);
    assert.equal((await sessionsOf(halves, s2)).filter((r) => r.visitor_key === 'v1').length, 2, 'two sessions before the bridge');
    const second = await halves.run([all[1], all[4]]);
    assert.equal(first.imported + second.imported, 5);
    // session ids hash the site id, which differs between the two data dirs
    const strip = (rows: Record<string, unknown>[]) => rows.map(({ session_id: _, ...r }) => r);
    assert.deepEqual(strip(await sessionsOf(halves, s2)), strip(await sessionsOf(once, s1)));
    const sessionsPerEvent = await halves.query(`SELECT count(DISTINCT session_id) AS n FROM events WHERE visitor_key = 'v1'`);
    assert.deepEqual(sessionsPerEvent, [{ n: '1' }], 'older events were moved into the merged session');
    const orphans = await halves.query(`SELECT count(*) AS n FROM events e ANTI JOIN sessions s USING (session_id)`);
    assert.deepEqual(orphans, [{ n: '0' }]);
  } finally {
    await once.close();
    await halves.close();
  }
});

test('re-importing a file adds nothing and leaves sessions unchanged', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    const lines = [pv(s, T('10:00:00')), pv(s, T('10:05:00')), action(s, T('10:06:00'), 'video.play')];
    const first = await h.run(lines);
    const before = await sessionsOf(h, s);
    const again = await h.run(lines);
    assert.equal(first.imported, 3);
    assert.deepEqual([again.imported, again.duplicates], [0, 3]);
    assert.deepEqual(await sessionsOf(h, s), before);
    assert.deepEqual(await h.query('SELECT count(*) AS n FROM events'), [{ n: '3' }]);
  } finally {
    await h.close();
  }
});
