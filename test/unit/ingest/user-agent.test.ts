import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseUserAgent } from '../../../src/ingest/parse/user-agent.js';

// Real user agents; the 2015 ones are taken from /work/shared/data/apache_combined_semicomplete_2015.log.
const HUMANS: [string, string, string, string][] = [
  // [ua, device, browser, os]
  [
    'Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/32.0.1700.107 Safari/537.36',
    'desktop',
    'Chrome',
    'Windows',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_9_1) AppleWebKit/537.73.11 (KHTML, like Gecko) Version/7.0.1 Safari/537.73.11',
    'desktop',
    'Safari',
    'macOS',
  ],
  ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:27.0) Gecko/20100101 Firefox/27.0', 'desktop', 'Firefox', 'Linux'],
  ['Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; WOW64; Trident/5.0)', 'desktop', 'IE', 'Windows'],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; Trident/7.0; rv:11.0) like Gecko', 'desktop', 'IE', 'Windows'],
  ['Opera/9.80 (X11; Linux x86_64) Presto/2.12.388 Version/12.16', 'desktop', 'Opera', 'Linux'],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 OPR/106.0.0.0',
    'desktop',
    'Opera',
    'Windows',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91',
    'desktop',
    'Edge',
    'Windows',
  ],
  [
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
    'desktop',
    'Chrome',
    'ChromeOS',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 7_0_4 like Mac OS X) AppleWebKit/537.51.1 (KHTML, like Gecko) Version/7.0 Mobile/11B554a Safari/9537.53',
    'mobile',
    'Safari',
    'iOS',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 7_0_4 like Mac OS X) AppleWebKit/537.51.1 (KHTML, like Gecko) CriOS/32.0.1700.21 Mobile/11B554a Safari/9537.53',
    'mobile',
    'Chrome',
    'iOS',
  ],
  [
    'Mozilla/5.0 (iPad; CPU OS 7_0_4 like Mac OS X) AppleWebKit/537.51.1 (KHTML, like Gecko) Version/7.0 Mobile/11B554a Safari/9537.53',
    'tablet',
    'Safari',
    'iOS',
  ],
  [
    'Mozilla/5.0 (Linux; Android 4.4.2; Nexus 5 Build/KOT49H) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/32.0.1700.99 Mobile Safari/537.36',
    'mobile',
    'Chrome',
    'Android',
  ],
  [
    'Mozilla/5.0 (Linux; Android 13; SM-S901B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36',
    'mobile',
    'Samsung Internet',
    'Android',
  ],
  [
    'Mozilla/5.0 (Linux; U; Android 4.2.2; fa-ir; SM-T311 Build/JDQ39) AppleWebKit/534.30 (KHTML, like Gecko) Version/4.0 Safari/534.30',
    'tablet',
    'Android Browser',
    'Android',
  ],
  ['Mozilla/5.0 (Android; Tablet; rv:27.0) Gecko/27.0 Firefox/27.0', 'tablet', 'Firefox', 'Android'],
  ['Mozilla/5.0 (Android; Mobile; rv:27.0) Gecko/27.0 Firefox/27.0', 'mobile', 'Firefox', 'Android'],
  [
    'Mozilla/5.0 (Linux; U; en-us; KFAPWI Build/JDQ39) AppleWebKit/535.19 (KHTML, like Gecko) Silk/3.13 Safari/535.19 Silk-Accelerated=true',
    'tablet',
    'Silk',
    'Android',
  ],
  ['Opera/9.80 (J2ME/MIDP; Opera Mini/7.1.32052/34.1244; U; en) Presto/2.8.119 Version/11.10', 'mobile', 'Opera', 'Other'],
  [
    'SAMSUNG-GT-E2232/1.0 Openwave/6.2.3 Profile/MIDP-2.0 Configuration/CLDC-1.1 UP.Browser/6.2.3.3.c.1.101 (GUI) MMP/2.0',
    'mobile',
    'Other',
    'Other',
  ],
  [
    'Mozilla/5.0 (Windows Phone 10.0; Android 6.0.1; Microsoft; Lumia 950) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/52.0.2743.116 Mobile Safari/537.36 Edge/15.14977',
    'mobile',
    'Edge',
    'Windows Phone',
  ],
  [
    'Mozilla/5.0 (Web0S; Linux/SmartTV) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/79.0.3945.79 Safari/537.36',
    'other',
    'Chrome',
    'Linux',
  ],
  // "Cubot" is a phone brand: not a bot.
  [
    'Mozilla/5.0 (Linux; Android 10; CUBOT X20 PRO) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/86.0.4240.99 Mobile Safari/537.36',
    'mobile',
    'Chrome',
    'Android',
  ],
];

test('human user agents give device, browser and OS', () => {
  for (const [ua, device, browser, os] of HUMANS) {
    assert.deepEqual(parseUserAgent(ua), { device_type: device, browser_family: browser, os_family: os, traffic_class: 'human' }, ua);
  }
});

test('AI agents acting for a person are ai_agent', () => {
  for (const ua of [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MistralAI-User/1.0; +https://docs.mistral.ai/robots)',
  ]) {
    assert.equal(parseUserAgent(ua).traffic_class, 'ai_agent', ua);
  }
});

test('AI crawlers are ai_bot, checked before the generic bot rule', () => {
  for (const ua of [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
    'Mozilla/5.0 (compatible; Claude-Web/1.0)',
    'anthropic-ai',
    'CCBot/2.0 (https://commoncrawl.org/faq/)',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
    'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)',
    'Google-Extended',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15 (Applebot-Extended/0.1)',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 8_3 like Mac OS X) AppleWebKit/600.1.4 (KHTML, like Gecko) Version/8.0 Mobile/12F70 Safari/600.1.4 (compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot)',
    'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)',
    'cohere-ai',
    'Mozilla/5.0 (compatible; Diffbot/0.1; +http://www.diffbot.com)',
  ]) {
    assert.equal(parseUserAgent(ua).traffic_class, 'ai_bot', ua);
  }
});

test('crawlers, fetchers, scripts and headless browsers are bots with no device', () => {
  for (const ua of [
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 6_0 like Mac OS X) AppleWebKit/536.26 (KHTML, like Gecko) Version/6.0 Mobile/10A5376e Safari/8536.25 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
    'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
    'DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    'Twitterbot/1.0',
    'Mozilla/5.0 (compatible; AhrefsBot/5.0; +http://ahrefs.com/robot/)',
    'Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)',
    'Mozilla/5.0 (compatible; MJ12bot/v1.4.4; http://www.majestic12.co.uk/bot.php?+)',
    'Mozilla/5.0 (compatible; archive.org_bot +http://www.archive.org/details/archive.org_bot)',
    'ia_archiver (+http://www.alexa.com/site/help/webmasters; crawler@alexa.com)',
    'curl/7.22.0 (i686-pc-linux-gnu) libcurl/7.22.0 OpenSSL/1.0.1 zlib/1.2.3.4 libidn/1.23 librtmp/2.3',
    'Wget/1.14 (linux-gnu)',
    'python-requests/1.2.0 CPython/2.7.4 Linux/3.8.0-33-generic',
    'Go-http-client/1.1',
    'UniversalFeedParser/4.2-pre-314-svn +http://feedparser.org/',
    'Tiny Tiny RSS/1.11 (http://tt-rss.org/)',
    'Feedfetcher-Google; (+http://www.google.com/feedfetcher.html; 22 subscribers; feed-id=8321906634162087507)',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36',
    'Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/534.34 (KHTML, like Gecko) PhantomJS/1.9.2 Safari/534.34',
    'Mozilla/5.0 (compatible; Ezooms/1.0; help@moz.com)',
    'Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)',
    'SomeNewCrawler/0.1',
    'acme-spider',
    // isbot's list matches an agent that names no product at all
    'Mozilla/4.0 (compatible;)',
  ]) {
    assert.deepEqual(parseUserAgent(ua), { device_type: 'other', browser_family: 'Other', os_family: 'Other', traffic_class: 'bot' }, ua);
  }
});

test('an empty user agent is a bot', () => {
  assert.equal(parseUserAgent('').traffic_class, 'bot');
  assert.equal(parseUserAgent('   ').traffic_class, 'bot');
  assert.equal(parseUserAgent('-').traffic_class, 'bot');
});

test('a text browser whose library name contains libwww stays human', () => {
  assert.equal(parseUserAgent('Lynx/2.8.7rel.2 libwww-FM/2.14 SSL-MM/1.4.1 OpenSSL/1.0.1f').traffic_class, 'human');
});

test('scanners and fetchers the old hand-kept list missed are bots (isbot)', () => {
  for (const ua of [
    'Mozilla/5.0 zgrab/0.x',
    // from /work/shared/data/apache_combined_semicomplete_2015.log
    'Mozilla/5.0 (Windows NT 6.1; rv:6.0) Gecko/20110814 Firefox/6.0 Google favicon',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko; Google Web Preview) Chrome/27.0.1453 Safari/537.36',
    'Mozilla/5.0 (Windows NT 6.2; WOW64; rv:30.0) Gecko/20100101 Firefox/30.0 AppEngine-Google; (+http://code.google.com/appengine; appid: s~copyliugoa)',
  ]) {
    assert.equal(parseUserAgent(ua).traffic_class, 'bot', ua);
  }
});

test('the product decides the AI classes before the maintained bot list does', () => {
  // isbot knows these too; the product's own lists keep them in their own classes
  assert.equal(
    parseUserAgent('Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)').traffic_class,
    'ai_bot',
  );
  assert.equal(
    parseUserAgent('Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot')
      .traffic_class,
    'ai_agent',
  );
});
