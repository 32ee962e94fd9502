import { test } from 'node:test';
import assert from 'node:assert/strict';
import { channelOf, isSearchHost, isSocialHost, type ChannelInputs } from '../../../src/ingest/parse/channel.js';

const none: ChannelInputs = { utm_medium: null, utm_source: null, utm_campaign: null, has_click_id: false, referrer_host: null };
const ch = (over: Partial<ChannelInputs>) => channelOf({ ...none, ...over });

test('rule 1: paid mediums or a click id are Paid', () => {
  for (const m of ['cpc', 'ppc', 'paid', 'paidsearch', 'paid_social', 'display', 'cpm', 'cpv', 'CPC', ' Paid_Social ']) {
    assert.equal(ch({ utm_medium: m }), 'Paid', m);
  }
  assert.equal(ch({ has_click_id: true }), 'Paid');
  // before every other rule
  assert.equal(ch({ has_click_id: true, utm_medium: 'email', referrer_host: 'google.com' }), 'Paid');
  assert.equal(ch({ utm_medium: 'cpc', referrer_host: 'facebook.com' }), 'Paid');
});

test('rule 2: email mediums are Email, before search referrers', () => {
  for (const m of ['email', 'e-mail', 'newsletter', 'Email', 'NEWSLETTER']) assert.equal(ch({ utm_medium: m }), 'Email', m);
  assert.equal(ch({ utm_medium: 'email', referrer_host: 'google.com' }), 'Email');
  assert.equal(ch({ utm_medium: 'mail' }), 'Other');
});

test('rule 3: search referrers or medium organic are Search', () => {
  for (const h of [
    'google.com',
    'google.co.uk',
    'google.de',
    'google.com.au',
    'images.google.co.jp',
    'bing.com',
    'cn.bing.com',
    'duckduckgo.com',
    'search.yahoo.com',
    'yahoo.co.jp',
    'baidu.com',
    'm.baidu.com',
    'yandex.ru',
    'yandex.com.tr',
    'ecosia.org',
    'search.brave.com',
    'startpage.com',
    'qwant.com',
    'Google.COM',
  ]) {
    assert.equal(ch({ referrer_host: h }), 'Search', h);
  }
  assert.equal(ch({ utm_medium: 'organic' }), 'Search');
  assert.equal(ch({ utm_medium: 'Organic', utm_source: 'newsletter-partner' }), 'Search');
  // search before social
  assert.equal(ch({ referrer_host: 'google.com', utm_medium: 'social' }), 'Search');
  assert.equal(ch({ utm_medium: 'organic', referrer_host: 'facebook.com' }), 'Search');
});

test('search host matching keeps label boundaries', () => {
  for (const h of [
    'notgoogle.com',
    'google.evil.com',
    'google.com.evil.net',
    'mybing.com',
    'brave.com',
    'duckduckgo.com.attacker.io',
    'googlee.com',
  ]) {
    assert.equal(isSearchHost(h), false, h);
  }
});

test('rule 4: social referrers or social mediums are Social', () => {
  for (const h of [
    'facebook.com',
    'l.facebook.com',
    'm.facebook.com',
    'lm.facebook.com',
    't.co',
    'twitter.com',
    'mobile.twitter.com',
    'x.com',
    'linkedin.com',
    'lnkd.in',
    'reddit.com',
    'old.reddit.com',
    'news.ycombinator.com',
    'instagram.com',
    'youtube.com',
    'm.youtube.com',
    'pinterest.com',
    'tiktok.com',
    'mastodon.social',
    'bsky.app',
  ]) {
    assert.equal(ch({ referrer_host: h }), 'Social', h);
  }
  for (const m of ['social', 'social-network', 'sm', 'SOCIAL']) assert.equal(ch({ utm_medium: m }), 'Social', m);
  for (const h of ['ycombinator.com', 'notx.com', 'xt.co', 'facebook.com.evil.org']) assert.equal(isSocialHost(h), false, h);
  assert.equal(ch({ referrer_host: 'ycombinator.com' }), 'Referral');
});

test('rule 5: no referrer and no utm value is Direct', () => {
  assert.equal(ch({}), 'Direct');
  assert.equal(ch({ utm_source: '', utm_medium: '  ' }), 'Direct');
});

test('rule 6: any other referrer is Referral, whatever the other utm values', () => {
  assert.equal(ch({ referrer_host: 'example.org' }), 'Referral');
  assert.equal(ch({ referrer_host: 'example.org', utm_source: 'partner', utm_medium: 'banner' }), 'Referral');
});

test('rule 7: utm values without a referrer and no matching medium are Other', () => {
  assert.equal(ch({ utm_source: 'newsletter' }), 'Other');
  assert.equal(ch({ utm_campaign: 'spring' }), 'Other');
  assert.equal(ch({ utm_medium: 'feed', utm_source: 'feedburner' }), 'Other');
});
