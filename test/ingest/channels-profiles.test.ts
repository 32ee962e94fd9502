// Channel rules and profile stamping (docs/product.md §4.6, §4.1), end to end: line in, session and event out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { action, harness, pv } from './harness.js';

test('each channel rule, taken from the first event of the session', async () => {
  const h = await harness();
  try {
    const s = await h.site({ hostnames: ['shop.example'] });
    const cases: [string, Record<string, unknown>, string][] = [
      ['cpc', { url: 'https://shop.example/?utm_medium=CPC&utm_source=google' }, 'Paid'],
      ['gclid', { url: 'https://shop.example/p?gclid=abc', referrer: 'https://www.google.com/' }, 'Paid'],
      ['msclkid', { url: 'https://shop.example/p?msclkid=abc' }, 'Paid'],
      ['email', { utm_medium: 'newsletter', utm_source: 'weekly' }, 'Email'],
      ['google-cc', { referrer: 'https://www.google.co.uk/search?q=x' }, 'Search'],
      ['brave', { referrer: 'https://search.brave.com/search' }, 'Search'],
      ['organic', { utm_medium: 'organic' }, 'Search'],
      ['tco', { referrer: 'https://t.co/abc' }, 'Social'],
      ['fb-l', { referrer: 'https://l.facebook.com/l.php' }, 'Social'],
      ['sm', { utm_medium: 'sm', utm_source: 'x' }, 'Social'],
      ['direct', {}, 'Direct'],
      ['self', { referrer: 'https://www.shop.example:8443/cart' }, 'Direct'],
      ['referral', { referrer: 'https://blog.example.org/post' }, 'Referral'],
      ['other', { utm_source: 'partner' }, 'Other'],
    ];
    await h.run(
      cases.flatMap(([key, fields], i) => [
        pv(s, `2025-03-05T10:${String(i).padStart(2, '0')}:00Z`, { visitor_key: key, ...fields }),
        // a later event with another source never changes the session's channel
        pv(s, `2025-03-05T10:${String(i).padStart(2, '0')}:30Z`, { visitor_key: key, referrer: 'https://www.bing.com/' }),
      ]),
    );
    const rows = await h.query(`SELECT visitor_key, channel, referrer_host FROM sessions WHERE site_id = '${s}'`);
    const got = Object.fromEntries(rows.map((r) => [r.visitor_key, r.channel]));
    assert.deepEqual(got, Object.fromEntries(cases.map(([k, , c]) => [k, c])));
    const self = rows.find((r) => r.visitor_key === 'self');
    assert.equal(self?.referrer_host, null, 'a self-referral is stored as no referrer');
  } finally {
    await h.close();
  }
});

test('profile stamping across effective_at: strict before, extended from the instant on', async () => {
  const h = await harness();
  try {
    const effective = '2025-03-05T12:00:00.000Z';
    const s = await h.site({ profile: 'extended', effectiveAt: effective });
    const rich = {
      url: 'https://x.example/p?utm_source=nl&utm_medium=email&utm_campaign=c1',
      region: 'Bavaria',
      city: 'Munich',
      country: 'DE',
    };
    const summary = await h.run([
      pv(s, '2025-03-05T11:59:59.999Z', { visitor_key: 'before', ...rich }),
      action(s, '2025-03-05T11:59:59.999Z', 'video.play', { visitor_key: 'before' }),
      action(s, '2025-03-05T11:59:59.999Z', 'ui.click', { visitor_key: 'before' }),
      pv(s, effective, { visitor_key: 'at', ...rich }),
      action(s, '2025-03-05T12:00:01Z', 'video.play', { visitor_key: 'at' }),
    ]);
    assert.equal(summary.skipped, 1, 'the custom action under strict is not stored at all');
    assert.equal(summary.imported, 4);
    const ev = await h.query(
      `SELECT visitor_key, type, action_name, profile, utm_source, utm_medium, utm_campaign, region, city, country, channel
       FROM events ORDER BY ts_ms, type DESC`,
    );
    assert.deepEqual(ev, [
      {
        visitor_key: 'before',
        type: 'pageview',
        action_name: null,
        profile: 'strict',
        utm_source: null,
        utm_medium: null,
        utm_campaign: null,
        region: null,
        city: null,
        country: 'DE',
        channel: 'Email',
      },
      {
        visitor_key: 'before',
        type: 'action',
        action_name: 'ui.click',
        profile: 'strict',
        utm_source: null,
        utm_medium: null,
        utm_campaign: null,
        region: null,
        city: null,
        country: null,
        channel: 'Direct',
      },
      // the line's region "Bavaria" is stored as its ISO 3166-2 code
      {
        visitor_key: 'at',
        type: 'pageview',
        action_name: null,
        profile: 'extended',
        utm_source: 'nl',
        utm_medium: 'email',
        utm_campaign: 'c1',
        region: 'DE-BY',
        city: 'Munich',
        country: 'DE',
        channel: 'Email',
      },
      {
        visitor_key: 'at',
        type: 'action',
        action_name: 'video.play',
        profile: 'extended',
        utm_source: null,
        utm_medium: null,
        utm_campaign: null,
        region: null,
        city: null,
        country: null,
        channel: 'Direct',
      },
    ]);
    const sessions = await h.query(`SELECT visitor_key, profile, channel, utm_medium FROM sessions ORDER BY start_ms`);
    assert.deepEqual(sessions, [
      { visitor_key: 'before', profile: 'strict', channel: 'Email', utm_medium: null },
      { visitor_key: 'at', profile: 'extended', channel: 'Email', utm_medium: 'email' },
    ]);
  } finally {
    await h.close();
  }
});

test('a strict site never stores extended fields nor non-simple actions', async () => {
  const h = await harness();
  try {
    const s = await h.site({ profile: 'strict' });
    const summary = await h.run([
      pv(s, '2025-03-05T10:00:00Z', { utm_medium: 'cpc', region: 'R', city: 'C' }),
      action(s, '2025-03-05T10:00:01Z', 'form.submit'),
      action(s, '2025-03-05T10:00:02Z', 'outbound.click'),
      action(s, '2025-03-05T10:00:03Z', 'file.download'),
      action(s, '2025-03-05T10:00:04Z', 'signup', { family: 'goals' }),
      action(s, '2025-03-05T10:00:05Z', 'error.x'),
    ]);
    assert.deepEqual([summary.imported, summary.skipped], [4, 2]);
    const [session] = await h.query(`SELECT channel, utm_medium, region, meaningful_actions FROM sessions`);
    assert.deepEqual(session, { channel: 'Paid', utm_medium: null, region: null, meaningful_actions: '3' });
  } finally {
    await h.close();
  }
});
