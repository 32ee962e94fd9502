import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeEvent, profileAt, type NormalizeSite } from '../../../src/ingest/parse/normalize.js';
import { validateEventLine } from '../../../src/ingest/parse/validate.js';
import { dailyVisitorKey } from '../../../src/ingest/parse/visitor-key.js';
import type { RawEvent } from '../../../src/ingest/parse/raw-event.js';

const NOW = Date.UTC(2024, 5, 1);
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const extended: NormalizeSite = { id: 'site_1', hostnames: ['example.com'], collectionProfile: 'extended', profileEffectiveAt: null };
const strict: NormalizeSite = { ...extended, collectionProfile: 'strict' };

function raw(line: Record<string, unknown>): RawEvent {
  const r = validateEventLine(
    { ts: '2024-05-01T10:00:00Z', type: 'pageview', site_id: 'site_1', path: '/a', visitor_key: 'k1', ...line },
    { nowMs: NOW },
  );
  if (!r.ok) throw new Error(r.reason);
  return r.event;
}
const norm = (line: Record<string, unknown>, site = extended) => {
  const ev = normalizeEvent(raw(line), site, 'secret');
  assert.ok(ev, 'expected an event');
  return ev;
};

test('profile stamping: the site profile from effective_at (inclusive), the other one before', () => {
  const s: NormalizeSite = { ...extended, collectionProfile: 'extended', profileEffectiveAt: '2024-05-01T10:00:00.000Z' };
  assert.equal(profileAt(s, Date.UTC(2024, 4, 1, 10)), 'extended');
  assert.equal(profileAt(s, Date.UTC(2024, 4, 1, 10) - 1), 'strict');
  const t: NormalizeSite = { ...s, collectionProfile: 'strict' };
  assert.equal(profileAt(t, Date.UTC(2024, 4, 1, 10)), 'strict');
  assert.equal(profileAt(t, Date.UTC(2024, 4, 1, 9, 59, 59, 999)), 'extended');
  // null: since the beginning
  assert.equal(profileAt(extended, 0), 'extended');
  assert.equal(profileAt(strict, 0), 'strict');
  assert.equal(norm({ ts: '2024-05-01T09:59:59Z' }, s).profile, 'strict');
  assert.equal(norm({ ts: '2024-05-01T10:00:00Z' }, s).profile, 'extended');
});

test('strict stores no region, city or utm values, yet keeps the channel they give', () => {
  const line = {
    url: 'https://example.com/a?utm_source=nl&utm_medium=email&utm_campaign=may',
    region: 'BY',
    city: 'Munich',
    country: 'DE',
  };
  const ext = norm(line);
  // region BY in DE is stored as its ISO 3166-2 code (regions.ts)
  assert.deepEqual([ext.utm_source, ext.utm_medium, ext.utm_campaign, ext.region, ext.city], ['nl', 'email', 'may', 'DE-BY', 'Munich']);
  assert.equal(ext.channel, 'Email');
  const st = norm(line, strict);
  assert.deepEqual([st.utm_source, st.utm_medium, st.utm_campaign, st.region, st.city], [null, null, null, null, null]);
  assert.equal(st.channel, 'Email');
  assert.equal(st.country, 'DE');
  assert.equal(st.profile, 'strict');
});

test('strict drops actions outside the four simple actions', () => {
  for (const name of ['ui.click', 'outbound.click', 'file.download', 'form.submit']) {
    const ev = normalizeEvent(raw({ type: 'action', action_name: name }), strict, 'secret');
    assert.equal(ev?.action_name, name);
  }
  for (const name of ['signup', 'error.js', 'UI.click']) {
    assert.equal(normalizeEvent(raw({ type: 'action', action_name: name }), strict, 'secret'), null, name);
  }
  // a custom action before a strict site's effective_at was collected under extended and is kept
  const later: NormalizeSite = { ...strict, profileEffectiveAt: '2024-05-02T00:00:00Z' };
  assert.equal(normalizeEvent(raw({ type: 'action', action_name: 'signup' }), later, 'secret')?.profile, 'extended');
});

test('user-agent fields fill only what was not sent', () => {
  const derived = norm({ user_agent: CHROME });
  assert.deepEqual(
    [derived.device_type, derived.browser_family, derived.os_family, derived.traffic_class],
    ['desktop', 'Chrome', 'Windows', 'human'],
  );
  const explicit = norm({ user_agent: CHROME, device_type: 'tablet', browser_family: 'Brave', traffic_class: 'ai_agent' });
  assert.deepEqual(
    [explicit.device_type, explicit.browser_family, explicit.os_family, explicit.traffic_class],
    ['tablet', 'Brave', 'Windows', 'ai_agent'],
  );
  const bot = norm({ user_agent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' });
  assert.equal(bot.traffic_class, 'bot');
  const none = norm({});
  assert.deepEqual([none.device_type, none.browser_family, none.os_family, none.traffic_class], [null, null, null, 'human']);
  const empty = norm({ user_agent: '' });
  assert.deepEqual([empty.device_type, empty.browser_family, empty.os_family, empty.traffic_class], [null, null, null, 'bot']);
});

test('visitor key: sent keys are kept; ip + user agent derive the daily key and are not stored', () => {
  assert.equal(norm({ visitor_key: 'abc' }).visitor_key, 'abc');
  const ev = norm({ visitor_key: undefined, ip: '203.0.113.7', user_agent: CHROME, ts: '2024-05-01T23:59:59Z' });
  assert.equal(ev.visitor_key, dailyVisitorKey('secret', 'site_1', '2024-05-01', '203.0.113.7', CHROME));
  const nextDay = norm({ visitor_key: undefined, ip: '203.0.113.7', user_agent: CHROME, ts: '2024-05-02T00:00:00Z' });
  assert.notEqual(nextDay.visitor_key, ev.visitor_key);
  const stored = JSON.stringify(ev);
  assert.ok(!stored.includes('203.0.113.7') && !stored.includes('Chrome/120'));
  assert.equal('ip' in ev || 'user_agent' in ev, false);
});

test('the day of the key is the UTC day, whatever the offset of ts', () => {
  const ev = norm({ visitor_key: undefined, ip: '1.2.3.4', user_agent: CHROME, ts: '2024-05-02T01:00:00+02:00' });
  assert.equal(ev.visitor_key, dailyVisitorKey('secret', 'site_1', '2024-05-01', '1.2.3.4', CHROME));
});

test('page, utm, click ids and referrer', () => {
  const ev = norm({ path: undefined, url: 'https://example.com/caf%C3%A9?utm_source=x&gclid=1#top', referrer: 'https://www.Google.de/' });
  assert.equal(ev.path_canon, '/café');
  assert.equal(ev.utm_source, 'x');
  assert.equal(ev.has_click_id, true);
  assert.equal(ev.referrer_host, 'google.de');
  assert.equal(ev.channel, 'Paid');
  // explicit utm_* override the URL's, one by one
  const over = norm({ path: undefined, url: 'https://example.com/?utm_source=a&utm_medium=b', utm_medium: 'cpc' });
  assert.deepEqual([over.utm_source, over.utm_medium], ['a', 'cpc']);
  // a path names the page, the url carries the query
  const both = norm({ path: '/virtual', url: 'https://example.com/real?utm_medium=social' });
  assert.equal(both.path_canon, '/virtual');
  assert.equal(both.channel, 'Social');
  // self-referral is no referrer: Direct
  const self = norm({ referrer: 'https://www.example.com:443/other' });
  assert.equal(self.referrer_host, null);
  assert.equal(self.channel, 'Direct');
  assert.equal(norm({ referrer: 'https://blog.example.org/x' }).channel, 'Referral');
});

test('actions get families; pageviews have none', () => {
  const a = norm({ type: 'action', action_name: 'file.download', path: '/docs', action_target_host: 'cdn.example.com' });
  assert.equal(a.family, 'downloads');
  assert.equal(a.path_canon, '/docs');
  assert.equal(a.action_target_host, 'cdn.example.com');
  assert.equal(norm({ type: 'action', action_name: 'signup', family: 'goals' }).family, 'goals');
  assert.equal(norm({ type: 'action', action_name: 'error.js', path: undefined }).path_canon, null);
  const pv = norm({});
  assert.equal(pv.family, null);
  assert.equal(pv.action_name, null);
});

test('an event of another site is a programming error', () => {
  assert.throws(() => normalizeEvent(raw({}), { ...extended, id: 'site_2' }, 'secret'), /normalized for site site_2/);
});
