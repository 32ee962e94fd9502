import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasClickId, pathCanon, percentDecode, referrerHost, utmOf } from '../../../src/ingest/parse/url.js';

test('path_canon: /café and /caf%C3%A9 are one page', () => {
  assert.equal(pathCanon('/café'), '/café');
  assert.equal(pathCanon('/caf%C3%A9'), '/café');
  assert.equal(pathCanon('/caf%c3%a9'), '/café');
  assert.equal(pathCanon('https://example.com/caf%C3%A9?x=1'), '/café');
});

test('path_canon drops query and fragment and nothing else', () => {
  assert.equal(pathCanon('/a/b?utm_source=x#top'), '/a/b');
  assert.equal(pathCanon('/a/b#frag?notquery'), '/a/b');
  assert.equal(pathCanon('https://Example.COM:8443/Docs/Page/?q=1'), '/Docs/Page/');
  // no case folding, no trailing-slash trimming, no dot-segment or double-slash resolution
  assert.equal(pathCanon('/A//b/./c/../d/'), '/A//b/./c/../d/');
  assert.equal(pathCanon('/a%20b+c'), '/a b+c');
  assert.equal(pathCanon('/a\\b'), '/a\\b');
});

test('path_canon of a URL without a path is /', () => {
  assert.equal(pathCanon('https://example.com'), '/');
  assert.equal(pathCanon('https://example.com?utm_source=x'), '/');
  assert.equal(pathCanon('https://example.com#x'), '/');
});

test('malformed percent sequences stay as sent, decided sequence by sequence', () => {
  assert.equal(percentDecode('/%FF'), '/%FF');
  assert.equal(percentDecode('/%C3%A9%FF'), '/é%FF');
  assert.equal(percentDecode('/%ff%C3%A9'), '/%ffé');
  // a truncated sequence, then a valid one
  assert.equal(percentDecode('/%E2%82%C3%A9'), '/%E2%82é');
  // an overlong encoding of "/" and an encoded surrogate are malformed
  assert.equal(percentDecode('/%C0%AF'), '/%C0%AF');
  assert.equal(percentDecode('/%ED%A0%80'), '/%ED%A0%80');
  // not an escape at all
  assert.equal(percentDecode('/100%'), '/100%');
  assert.equal(percentDecode('/%zz%4'), '/%zz%4');
  // four-byte characters
  assert.equal(percentDecode('/%F0%9F%98%80'), '/😀');
});

test('encoded slashes and question marks decode after the query is removed', () => {
  assert.equal(pathCanon('/a%2Fb%3Fc?d'), '/a/b?c');
});

test('encoded control characters stay encoded', () => {
  assert.equal(percentDecode('/a%00b%0A%7F'), '/a%00b%0A%7F');
});

test('utm values are read from the query, decoded, empty ones absent', () => {
  assert.deepEqual(utmOf('https://x.com/p?utm_source=news%20letter&utm_medium=email&utm_campaign=spring+sale'), {
    utm_source: 'news letter',
    utm_medium: 'email',
    utm_campaign: 'spring sale',
  });
  assert.deepEqual(utmOf('/p?utm_source=&utm_medium'), { utm_source: null, utm_medium: null, utm_campaign: null });
  assert.deepEqual(utmOf('/p#utm_source=x'), { utm_source: null, utm_medium: null, utm_campaign: null });
  assert.equal(utmOf('/p?utm_source=a&utm_source=b').utm_source, 'a');
});

test('gclid or msclkid marks a click id', () => {
  assert.equal(hasClickId('/p?gclid=abc'), true);
  assert.equal(hasClickId('https://x.com/?a=1&msclkid=z'), true);
  assert.equal(hasClickId('/p?gclid'), true);
  assert.equal(hasClickId('/p?fbclid=1'), false);
  assert.equal(hasClickId('/p#gclid=1'), false);
  assert.equal(hasClickId('/p?xgclid=1'), false);
});

test('referrer host: lower case, without www., null when empty or unparseable', () => {
  const own = ['example.com'];
  assert.equal(referrerHost('https://WWW.Google.COM/search?q=x', own), 'google.com');
  assert.equal(referrerHost('https://news.ycombinator.com/item?id=1', own), 'news.ycombinator.com');
  assert.equal(referrerHost('http://www.www.example.org/', own), 'www.example.org');
  assert.equal(referrerHost('', own), null);
  assert.equal(referrerHost('-', own), null);
  assert.equal(referrerHost(null, own), null);
  assert.equal(referrerHost('not a url', own), null);
  assert.equal(referrerHost('google.com/search', own), null);
});

test('a self-referral is no referrer, ignoring port and www.', () => {
  const own = ['example.com', 'Shop.Example.net'];
  assert.equal(referrerHost('https://example.com/a', own), null);
  assert.equal(referrerHost('https://www.example.com:8443/a', own), null);
  assert.equal(referrerHost('http://shop.example.net/', own), null);
  assert.equal(referrerHost('https://www.example.com/', ['www.example.com']), null);
  assert.equal(referrerHost('https://example.com/', ['www.example.com:443']), null);
  // a subdomain of the site is another host
  assert.equal(referrerHost('https://blog.example.com/', own), 'blog.example.com');
});

test('property: decoding what encodeURIComponent wrote gives the text back', async () => {
  const fc = (await import('fast-check')).default;
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme' }), (s) => {
      const clean = s.replace(/[\u0000-\u001f\u007f%?#]/g, '');
      assert.equal(pathCanon(`/${encodeURIComponent(clean)}?q=1`), `/${clean}`);
      // decoding is the identity on text without escapes
      assert.equal(percentDecode(clean), clean);
    }),
  );
});
