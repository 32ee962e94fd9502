// POST /api/event: every payload shape a tracker sends is stored as an import of the same line would
// be (docs/product.md §9), and read back through /v1 once the loader has run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CHROME, collectHarness, pageview } from './helpers/collect.js';

test('the tracker short keys (text/plain) and the Events API long keys (application/json) are one pageview shape', async () => {
  const h = await collectHarness();
  try {
    const r1 = await h.post(pageview('http://127.0.0.1:47002/tracked.html'));
    assert.equal(r1.statusCode, 202);
    assert.equal(r1.body, 'ok');
    const r2 = await h.post(
      {
        name: 'pageview',
        url: 'https://live.example/pricing?utm_source=Newsletter&utm_medium=email&x=1#top',
        domain: 'live.example',
        referrer: 'https://www.Google.com/search?q=x',
        props: { title: 'Pricing' },
      },
      { contentType: 'application/json; charset=utf-8', ip: '198.51.100.10' },
    );
    assert.equal(r2.statusCode, 202, r2.body);
    // No Content-Type at all (some server-side senders): read as JSON all the same.
    assert.equal(
      (
        await h.post(
          { name: 'pageview', url: 'https://live.example/caf%C3%A9', domain: 'LIVE.example' },
          { contentType: null, ip: '198.51.100.20' },
        )
      ).statusCode,
      202,
    );
    // The domain is matched case-insensitively and with or without www.
    assert.equal((await h.post(pageview('https://live.example/www', { d: 'www.live.example' }))).statusCode, 202);
    assert.deepEqual(await h.breakdown('page'), {}, 'nothing is readable before the loader runs');
    await h.flush();
    assert.deepEqual(await h.breakdown('page'), { '/tracked.html': 1, '/pricing': 1, '/café': 1, '/www': 1 });
    // Sessions take their source and channel from their first event (three visitors, by address).
    assert.deepEqual(await h.breakdown('source', { metric: 'sessions' }), { Newsletter: 1, null: 2 });
    assert.deepEqual(await h.breakdown('channel', { metric: 'sessions' }), { Direct: 2, Email: 1 });
    const content = await h.read('/v1/reports/content', { include: 'full' });
    const pricing = content.current.pages.find((p: { path_canon: string }) => p.path_canon === '/pricing');
    assert.equal(pricing.page_title, 'Pricing');
    // The same address and agent on the same day are one visitor.
    assert.deepEqual(await h.breakdown('browser', { metric: 'visitors' }), { Chrome: 3 });
    assert.deepEqual(await h.breakdown('page', { metric: 'visitors' }), { '/tracked.html': 1, '/pricing': 1, '/café': 1, '/www': 1 });
    assert.equal((await h.read('/v1/metrics/timeseries', { metric: 'visitors' })).current.total, 3);
  } finally {
    await h.close();
  }
});

test('the referrer is stored as its host; a referrer of the site itself is none', async () => {
  const h = await collectHarness({ hostnames: ['live.example', 'shop.live.example'] });
  try {
    await h.post(pageview('https://live.example/', { r: 'https://www.Google.co.uk/' }), { ip: '198.51.100.1' });
    await h.post(pageview('https://live.example/', { r: 'https://shop.live.example/cart' }), { ip: '198.51.100.2' });
    await h.post(pageview('https://live.example/', { r: 'https://news.example.org/item?id=7' }), { ip: '198.51.100.3' });
    await h.flush();
    assert.deepEqual(await h.breakdown('referrer', { metric: 'sessions' }), { 'google.co.uk': 1, 'news.example.org': 1, null: 1 });
    assert.deepEqual(await h.breakdown('channel', { metric: 'sessions' }), { Search: 1, Referral: 1, Direct: 1 });
  } finally {
    await h.close();
  }
});

test('hash-routed pages (h = 1) keep their fragment in the page; other pages drop it', async () => {
  const h = await collectHarness();
  try {
    await h.post(pageview('https://live.example/app#/settings?tab=2', { h: 1 }));
    await h.post(pageview('https://live.example/app#/settings'));
    await h.flush();
    assert.deepEqual(await h.breakdown('page'), { '/app#/settings': 1, '/app': 1 });
  } finally {
    await h.close();
  }
});

test("engagement is added to the visitor's latest pageview of its page: no event, no pageview", async () => {
  const h = await collectHarness();
  try {
    const url = 'http://127.0.0.1:47002/tracked.html';
    await h.post(pageview(url));
    h.clock.advance(5_000);
    await h.post(pageview('http://127.0.0.1:47002/other.html'));
    await h.flush();
    // The tracker's engagement, as captured: sent when the page is hidden or left, in a later batch.
    h.clock.advance(5_000);
    assert.equal((await h.post({ n: 'engagement', sd: 100, d: 'live.example', u: url, e: 5008, v: 36 })).statusCode, 202);
    assert.equal((await h.post({ n: 'engagement', sd: 100, d: 'live.example', u: url, e: 2000, v: 36 })).statusCode, 202);
    // Engagement of a page this visitor never viewed, and of another visitor: dropped.
    await h.post({ n: 'engagement', d: 'live.example', u: 'http://127.0.0.1:47002/never.html', e: 9000 });
    await h.post({ n: 'engagement', d: 'live.example', u: url, e: 9000 }, { ip: '198.51.100.99' });
    await h.flush();
    const o = (await h.read('/v1/reports/overview')).current.overview.totals;
    assert.equal(o.pageviews, 2, 'engagement is not a pageview');
    assert.equal(o.sessions, 1);
    assert.equal(o.avg_session_eng_time_ms, 7008);
    assert.equal(o.avg_page_eng_time_ms, 3504);
    assert.equal(o.engagement_rate, 1, 'two pageviews: engaged');
    assert.deepEqual(await h.breakdown('page', { metric: 'events' }), { '/tracked.html': 1, '/other.html': 1 });
    // An engagement without `e` is refused, one of 0 ms changes nothing.
    assert.equal((await h.post({ n: 'engagement', d: 'live.example', u: url })).statusCode, 422);
    assert.equal((await h.post({ n: 'engagement', d: 'live.example', u: url, e: 0 })).statusCode, 202);
  } finally {
    await h.close();
  }
});

test("the tracker's built-in names are the action families; other names are custom actions", async () => {
  const h = await collectHarness();
  try {
    const page = 'https://live.example/docs';
    await h.post(pageview(page));
    await h.post({ n: 'Outbound Link: Click', u: page, d: 'live.example', p: { url: 'https://GitHub.com/acme/x?y=1' } });
    await h.post({ n: 'File Download', u: page, d: 'live.example', p: { url: 'https://live.example/files/report.pdf' } });
    await h.post({ n: 'Form: Submission', u: page, d: 'live.example', p: { form_id: 'signup', form_action_path: '/subscribe' } });
    await h.post({ n: '404', u: 'https://live.example/missing', d: 'live.example' });
    await h.post({
      name: 'Signup',
      url: page,
      domain: 'live.example',
      props: { action_id: 'hero-cta', plan: 'pro', revenue_hint: 3 },
      revenue: { amount: 10, currency: 'EUR' },
    });
    await h.post({ n: 'Newsletter', u: page, d: 'live.example', p: { family: 'goals' } });
    await h.post({ n: 'Scrolled', u: page, d: 'live.example', i: false });
    await h.flush();
    const actions = (await h.read('/v1/reports/actions', { limit: 50 })).current.actions;
    const got = (actions as Record<string, unknown>[])
      .map((a) =>
        [
          a.family,
          a.action_name,
          a.event_name ?? null,
          a.action_id ?? null,
          a.action_target_host ?? null,
          a.form_id ?? null,
          a.form_action_path ?? null,
        ].join('|'),
      )
      .sort();
    assert.deepEqual(got, [
      'custom|Signup|Signup|hero-cta|||',
      'downloads|file.download|||||',
      'errors|error.404|||||',
      'forms|form.submit||||signup|/subscribe',
      'goals|Newsletter|Newsletter||||',
      'instrumentation|Scrolled|Scrolled||||',
      'outbound|outbound.click|||github.com||',
    ]);
    // A meaningful action makes the session engaged; the non-interactive one alone would not.
    assert.equal((await h.read('/v1/reports/overview')).current.overview.totals.bounce_rate, 0);
  } finally {
    await h.close();
  }
});

test('props.tenant_id names an ACTIVE tenant of the site; any other value leaves the event without a tenant', async () => {
  const h = await collectHarness();
  try {
    const active = await h.catalog.createTenant({ siteId: h.siteId, slug: 'acme', name: 'Acme' });
    const inactive = await h.catalog.createTenant({ siteId: h.siteId, slug: 'gone', name: 'Gone', status: 'INACTIVE' });
    const otherSite = await h.addSite(['other.example']);
    const foreign = await h.catalog.createTenant({ siteId: otherSite, slug: 'acme', name: 'Other acme' });
    const sent = [active.id, active.id, inactive.id, foreign.id, 'ten_unknown', undefined];
    for (const [i, t] of sent.entries()) {
      const r = await h.post(pageview(`https://live.example/t${i}`, t ? { p: { tenant_id: t } } : {}));
      assert.equal(r.statusCode, 202, r.body);
    }
    await h.flush();
    assert.deepEqual(await h.breakdown('tenant', { metric: 'pageviews' }), { [active.id]: 2, null: 4 });
    assert.equal((await h.read('/v1/metrics/timeseries', { traffic: 'all' })).current.total, 6, 'every event is stored');
    const acme = await h.read('/v1/metrics/timeseries', { tenant_id: active.id });
    assert.equal(acme.current.total, 2);
  } finally {
    await h.close();
  }
});

test('known bots are stored as bot traffic, never as humans', async () => {
  const h = await collectHarness();
  try {
    const page = 'https://live.example/';
    await h.post(pageview(page), { ua: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', ip: '198.51.100.1' });
    await h.post(pageview(page), {
      ua: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.0.0 Safari/537.36',
      ip: '198.51.100.2',
    });
    await h.post(pageview(page), { ua: null, ip: '198.51.100.3' });
    await h.post(pageview(page), {
      ua: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
      ip: '198.51.100.4',
    });
    await h.post(pageview(page), { ua: CHROME, ip: '198.51.100.5' });
    await h.flush();
    const total = async (traffic: string) => (await h.read('/v1/metrics/timeseries', { traffic })).current.total;
    assert.equal(await total('humans'), 1);
    assert.equal(await total('bots_only'), 4);
    assert.equal(await total('ai_bots_only'), 1);
  } finally {
    await h.close();
  }
});

test('a strict site keeps no utm, region or city, and none of the actions strict does not collect', async () => {
  const h = await collectHarness({ profile: 'strict' });
  try {
    const page = 'https://live.example/?utm_source=ads&utm_medium=cpc&utm_campaign=spring';
    assert.equal((await h.post(pageview(page))).statusCode, 202);
    assert.equal((await h.post({ n: 'Signup', u: page, d: 'live.example' })).statusCode, 202, 'refused silently: the answer is the same');
    assert.equal(
      (await h.post({ n: 'Outbound Link: Click', u: page, d: 'live.example', p: { url: 'https://github.com/' } })).statusCode,
      202,
    );
    await h.flush();
    assert.equal((await h.read('/v1/metrics/timeseries', { metric: 'events' })).current.total, 2, 'the pageview and the outbound click');
    // The channel is still known (it is computed before strict drops the utm values).
    assert.deepEqual(await h.breakdown('channel', { metric: 'sessions' }), { Paid: 1 });
    const res = await h.get(`/v1/metrics/breakdown?site_id=${h.siteId}&dimension=source`, { token: h.secret });
    assert.equal(res.statusCode, 409);
  } finally {
    await h.close();
  }
});

test('identical events in the same millisecond are all kept (occurrence numbers), and none twice', async () => {
  const h = await collectHarness();
  try {
    // The fake clock does not move: three byte-identical pageviews, one visitor, one millisecond.
    for (let i = 0; i < 3; i++) assert.equal((await h.post(pageview('https://live.example/same'))).statusCode, 202);
    await h.flush();
    await h.post(pageview('https://live.example/same'));
    await h.flush();
    assert.deepEqual(await h.breakdown('page'), { '/same': 4 });
  } finally {
    await h.close();
  }
});
