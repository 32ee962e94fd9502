import { test } from 'node:test';
import assert from 'node:assert/strict';
import { accessLogToRawEvent, parseAccessLogLine, type AccessLogEntry } from '../../../src/ingest/parse/access-log.js';
import { validateEventLine } from '../../../src/ingest/parse/validate.js';

const UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:27.0) Gecko/20100101 Firefox/27.0';
const combined = (req: string, status = 200, ref = '-', ua = UA, stamp = '17/May/2015:10:05:03 +0000') =>
  `83.149.9.216 - - [${stamp}] "${req}" ${status} 1234 "${ref}" "${ua}"`;

function entry(line: string, format: 'combined' | 'common' = 'combined'): AccessLogEntry {
  const e = parseAccessLogLine(line, format);
  if ('error' in e) assert.fail(e.error);
  return e;
}
const kind = (line: string) => accessLogToRawEvent(entry(line), { id: 's1' });

test('combined lines parse, with the timestamp offset applied', () => {
  const e = entry(combined('GET /a?b=1 HTTP/1.1', 200, 'http://www.google.com/', UA, '17/May/2015:12:05:03 +0200'));
  assert.equal(e.ip, '83.149.9.216');
  assert.equal(e.ts, '2015-05-17T12:05:03+02:00');
  assert.equal(e.ts_ms, Date.UTC(2015, 4, 17, 10, 5, 3));
  assert.deepEqual([e.method, e.target, e.status, e.bytes], ['GET', '/a?b=1', 200, 1234]);
  assert.equal(e.referrer, 'http://www.google.com/');
  assert.equal(e.user_agent, UA);
  assert.equal(entry(combined('GET / HTTP/1.1', 200, '-', '-')).user_agent, '');
  assert.equal(entry(combined('GET / HTTP/1.1', 200, '-', '-')).referrer, null);
});

test('escaped quotes and trailing fields are handled', () => {
  const e = entry('1.2.3.4 - bob [01/Jan/2024:00:00:00 -0500] "GET /q\\"x HTTP/1.0" 200 - "-" "agent \\"quoted\\" \\x41" "10.0.0.1" 0.002');
  assert.equal(e.target, '/q"x');
  assert.equal(e.bytes, null);
  assert.equal(e.user_agent, 'agent "quoted" A');
  assert.equal(e.ts_ms, Date.UTC(2024, 0, 1, 5));
});

test('common lines parse without referrer or user agent', () => {
  const e = entry('1.2.3.4 - - [17/May/2015:10:05:03 +0000] "GET /about HTTP/1.1" 200 512', 'common');
  assert.equal(e.referrer, null);
  assert.equal(e.user_agent, null);
  const r = accessLogToRawEvent(e, { id: 's1' });
  assert.equal(r.kind, 'pageview');
  assert.deepEqual((r as { line: Record<string, unknown> }).line, {
    ts: '2015-05-17T10:05:03+00:00',
    type: 'pageview',
    site_id: 's1',
    path: '/about',
    ip: '1.2.3.4',
    user_agent: '',
    traffic_class: 'human',
  });
});

test('bad lines give an error naming the problem', () => {
  assert.deepEqual(parseAccessLogLine('garbage', 'combined'), { error: 'not a combined log line' });
  assert.deepEqual(parseAccessLogLine(combined('GET / HTTP/1.1').replace(/"[^"]*"$/, '"truncated'), 'combined'), {
    error: 'not a combined log line',
  });
  assert.deepEqual(parseAccessLogLine(combined('GET / HTTP/1.1', 200, '-', UA, '31/Feb/2015:10:05:03 +0000'), 'combined'), {
    error: 'invalid timestamp [31/Feb/2015:10:05:03 +0000]',
  });
  assert.deepEqual(parseAccessLogLine(combined('GET / HTTP/1.1', 200, '-', UA, '17/Foo/2015:10:05:03 +0000'), 'combined'), {
    error: 'invalid timestamp [17/Foo/2015:10:05:03 +0000]',
  });
});

test('only GET is a pageview', () => {
  assert.equal(kind(combined('GET /a HTTP/1.1')).kind, 'pageview');
  assert.deepEqual(kind(combined('HEAD /a HTTP/1.1')), { kind: 'skipped', reason: 'method HEAD' });
  assert.deepEqual(kind(combined('POST /a HTTP/1.1')), { kind: 'skipped', reason: 'method POST' });
  assert.deepEqual(kind(combined('-', 400)), { kind: 'skipped', reason: 'malformed request line' });
});

test('the common format reads the common fields of combined lines; a common line read as combined says so', () => {
  const e = entry(combined('GET /about HTTP/1.1', 200, 'http://www.google.com/'), 'common');
  assert.deepEqual([e.ip, e.target, e.status, e.bytes, e.referrer, e.user_agent], ['83.149.9.216', '/about', 200, 1234, null, null]);
  assert.deepEqual(parseAccessLogLine('1.2.3.4 - - [17/May/2015:10:05:03 +0000] "GET /about HTTP/1.1" 200 512', 'combined'), {
    error: 'not a combined log line (no referrer and user agent: for a common log use --format common)',
  });
});

test('methods other than the HTTP and WebDAV ones share one skip reason', () => {
  assert.deepEqual(kind(combined('OPTIONS /a HTTP/1.1')), { kind: 'skipped', reason: 'method OPTIONS' });
  assert.deepEqual(kind(combined('FOO /a HTTP/1.1')), { kind: 'skipped', reason: 'method other' });
});

test('2xx except 204 and 206, and 304, are pageviews; redirects and errors are not', () => {
  for (const s of [200, 203, 304]) assert.equal(kind(combined('GET /a HTTP/1.1', s)).kind, 'pageview', String(s));
  for (const s of [204, 206, 301, 302, 307, 400, 403, 404, 416, 500, 503]) {
    assert.deepEqual(kind(combined('GET /a HTTP/1.1', s)), { kind: 'skipped', reason: `status ${s}` });
  }
});

test('static files, feeds, downloads and well-known files are not pageviews', () => {
  for (const p of [
    '/style.css',
    '/app.js',
    '/img/a.PNG',
    '/favicon.ico',
    '/f.woff2',
    '/robots.txt',
    '/sitemap.xml',
    '/feed.rss',
    '/x.pdf',
    '/a.tar.gz',
    '/m.mp4',
    '/icon.svg?v=3',
  ]) {
    // one skip reason for every extension: the import summary counts by it
    assert.deepEqual(kind(combined(`GET ${p} HTTP/1.1`)), { kind: 'skipped', reason: 'static file' }, p);
  }
  assert.deepEqual(kind(combined('GET /.well-known/security HTTP/1.1')), { kind: 'skipped', reason: 'well-known file' });
  for (const p of [
    '/',
    '/blog/',
    '/blog/post.html',
    '/index.php?x=1',
    '/projects/xdotool/xdotool.xhtml',
    '/v1.2',
    '/file.py',
    '/a.css/b',
    '/.htaccess',
  ]) {
    assert.equal(kind(combined(`GET ${p} HTTP/1.1`)).kind, 'pageview', p);
  }
});

test('a pageview line validates, keeps bots as bots, and carries referrer and query', () => {
  const r = kind(
    combined(
      'GET /post.html?utm_source=feedburner HTTP/1.1',
      200,
      'https://www.google.com/',
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    ),
  );
  assert.equal(r.kind, 'pageview');
  const line = (r as { line: Record<string, unknown> }).line;
  assert.equal(line.referrer, 'https://www.google.com/');
  assert.equal(line.path, '/post.html?utm_source=feedburner');
  assert.equal('traffic_class' in line, false);
  const v = validateEventLine(line, { nowMs: Date.UTC(2024, 0, 1) });
  assert.ok(v.ok);
  // absolute-form targets (proxies) go through url
  const abs = kind(combined('GET http://example.com/x HTTP/1.1'));
  assert.equal((abs as { line: Record<string, unknown> }).line.url, 'http://example.com/x');
});

/** nginx's `main` format: combined, then "$http_x_forwarded_for". */
const main = (xff: string, req = 'GET /pricing HTTP/1.1') =>
  `10.0.0.2 - - [17/May/2015:10:05:03 +0000] "${req}" 200 5316 "https://www.google.com/" "${UA}" "${xff}"`;

test('--forwarded-for: the client is the left-most address of the last quoted field; without it, the proxy is', () => {
  const as = (line: string, format: 'combined' | 'common' = 'combined') => {
    const e = parseAccessLogLine(line, format, { forwardedFor: true });
    if ('error' in e) assert.fail(e.error);
    return e.ip;
  };
  assert.equal(entry(main('203.0.113.7')).ip, '10.0.0.2', 'not trusted unless asked');
  assert.equal(as(main('203.0.113.7')), '203.0.113.7');
  assert.equal(as(main('203.0.113.7, 198.51.100.4, 10.0.0.1')), '203.0.113.7', 'the client, then the proxies it went through');
  assert.equal(as(main('2001:db8::7, 10.0.0.1')), '2001:db8::7');
  assert.equal(as(main('[2001:db8::7]:51234')), '2001:db8::7');
  assert.equal(as(main('203.0.113.7:51234')), '203.0.113.7');
  // nothing forwarded, or nothing an address: the line's own address
  for (const none of ['-', '', 'unknown', 'unknown, 10.0.0.1']) assert.equal(as(main(none)), '10.0.0.2', JSON.stringify(none));
  // the last quoted field, whatever unquoted fields follow it (nginx formats often add timings)
  assert.equal(as(main('203.0.113.7') + ' rt=0.002'), '203.0.113.7');
  assert.equal(as(main('203.0.113.7') + ' 0.002 0.001'), '203.0.113.7');
  // a common line with the header appended after the size
  assert.equal(as('10.0.0.2 - - [17/May/2015:10:05:03 +0000] "GET / HTTP/1.1" 200 512 "203.0.113.9"', 'common'), '203.0.113.9');
});

test('--forwarded-for on a log without the field: each line says what the option reads', () => {
  const e = parseAccessLogLine(combined('GET / HTTP/1.1'), 'combined', { forwardedFor: true });
  assert.ok('error' in e);
  assert.match(e.error, /no quoted X-Forwarded-For field after the user agent/);
  assert.match(e.error, /\$http_x_forwarded_for/);
});
