// The browser half as the server answers it: every page path gets the one HTML shell (no-cache, a strict
// Content-Security-Policy, the bundle's hashed files and no inline script), the files come precompressed
// by Accept-Encoding with a year's immutable caching, `/` points browsers and programs where to go, and
// none of it appears in the /v1 OpenAPI document. Needs dist/web (npm run build:web, run by pretest).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { harness, type Harness } from './helpers/harness.js';
import { APP_PAGE_PATHS, registerAppPages, shellPolicy } from '../../src/http/pages/app-pages.js';
import { DEFAULT_WEB_DIR, loadWebBundle, preferredEncoding } from '../../src/http/pages/web-assets.js';

let h: Harness;
const manifest = JSON.parse(fs.readFileSync(path.join(DEFAULT_WEB_DIR, 'manifest.json'), 'utf8')) as { entries: Record<string, string> };
// /embed without an embed key is framed by nobody, like every page (embed-page tests: with one)
const pagePaths = [...APP_PAGE_PATHS, '/embed'].map((p) => p.replace(/:(\w+)/g, 'some-$1'));

before(async () => {
  h = await harness();
});
after(() => h.close());

test('every page path answers the HTML shell: no-cache, a strict policy, the hashed files, no inline script', async () => {
  for (const url of pagePaths) {
    const r = await h.app.inject({ method: 'GET', url: `${url}?from=2025-01-01`, headers: { accept: 'text/html' } });
    assert.equal(r.statusCode, 200, url);
    assert.equal(r.headers['content-type'], 'text/html; charset=utf-8', url);
    assert.equal(r.headers['cache-control'], 'no-cache', url);
    const csp = String(r.headers['content-security-policy']);
    assert.equal(csp, shellPolicy());
    for (const part of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "frame-ancestors 'none'",
      "object-src 'none'",
      "base-uri 'none'",
    ])
      assert.ok(csp.includes(part), `${url}: ${part}`);
    assert.ok(!csp.includes('unsafe'), `${url}: ${csp}`);
    assert.equal(r.headers['x-frame-options'], 'DENY');
    assert.equal(r.headers['referrer-policy'], 'no-referrer');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    for (const file of [manifest.entries['main.js'], manifest.entries['main.css'], manifest.entries['icon.svg']])
      assert.ok(r.body.includes(`/app/assets/${file}`), `${url} loads ${file}`);
    const scripts = r.body.match(/<script\b[^>]*>/g) ?? [];
    assert.equal(scripts.length, 1);
    assert.match(scripts[0], /^<script type="module" src="\/app\/assets\/main-[A-Z0-9]+\.js">$/);
    assert.ok(!/\sstyle=|<style/.test(r.body), 'no inline style');
  }
});

test('paths under /app that are not pages, and another method on a page, are refused in the envelope', async () => {
  for (const url of ['/app/nope', '/app/sites', '/app/sites/a/b', '/embed/x']) {
    const r = await h.app.inject({ method: 'GET', url });
    assert.equal(r.statusCode, 404, url);
    assert.equal(r.json().error.code, 'NOT_FOUND', url);
  }
  const post = await h.app.inject({ method: 'POST', url: '/app' });
  assert.equal(post.statusCode, 405);
  assert.equal(post.headers.allow, 'GET');
});

test('the management API keeps its own 404 and 405 under /app/api, and the pages keep theirs', async () => {
  for (const url of [
    '/app/api',
    '/app/api/',
    '/app/api/nope',
    '/app/api/sites',
    '/app/api/sites/some-site/nope',
    '/app/api/settings/some-ws',
  ]) {
    const r = await h.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
    assert.equal(r.statusCode, 404, url);
    assert.equal(r.json().error.code, 'NOT_FOUND', url);
    assert.equal(r.json().error.message, 'Unknown endpoint of the management API.', url);
  }
  const put = await h.app.inject({ method: 'PUT', url: '/app/api/session' });
  assert.equal(put.statusCode, 405);
  assert.equal(put.headers.allow, 'DELETE, GET, POST');
  assert.equal(put.json().error.code, 'INVALID_METHOD');
  // A management route answers JSON to a browser too: no page path reaches under /app/api.
  const session = await h.app.inject({ method: 'GET', url: '/app/api/session', headers: { accept: 'text/html' } });
  assert.equal(session.statusCode, 401);
  assert.equal(session.json().error.code, 'UNAUTHORIZED');
  // And the management API's handlers answer nothing outside it: the pages' own 404 and 405.
  const nope = await h.app.inject({ method: 'GET', url: '/app/nope' });
  assert.equal(nope.json().error.message, 'Unknown endpoint.');
  const del = await h.app.inject({ method: 'DELETE', url: '/embed' });
  assert.equal(del.statusCode, 405);
  assert.equal(del.headers.allow, 'GET');
  assert.equal(del.json().error.code, 'INVALID_METHOD');
  assert.doesNotMatch(del.json().error.message, /management/);
});

test('the files: precompressed br or gzip by Accept-Encoding, else as built; immutable for a year; their types', async () => {
  const types: Record<string, string> = {
    'main.js': 'text/javascript; charset=utf-8',
    'main.css': 'text/css; charset=utf-8',
    'icon.svg': 'image/svg+xml',
  };
  for (const [logical, file] of Object.entries(manifest.entries)) {
    const url = `/app/assets/${file}`;
    const built = fs.readFileSync(path.join(DEFAULT_WEB_DIR, file));
    for (const [accept, encoding, body] of [
      ['gzip, deflate, br', 'br', `${file}.br`],
      ['gzip', 'gzip', `${file}.gz`],
      ['br;q=0, gzip;q=0.5', 'gzip', `${file}.gz`],
      ['identity', undefined, file],
      [undefined, undefined, file],
    ] as const) {
      const r = await h.app.inject({ method: 'GET', url, headers: accept ? { 'accept-encoding': accept } : {} });
      assert.equal(r.statusCode, 200, `${url} ${accept}`);
      assert.equal(r.headers['content-type'], types[logical]);
      assert.equal(r.headers['content-encoding'], encoding, `${url} with ${accept}`);
      assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(r.headers.vary, 'Accept-Encoding');
      assert.deepEqual(r.rawPayload, fs.readFileSync(path.join(DEFAULT_WEB_DIR, body)), `${url} with ${accept}`);
    }
    assert.ok(built.length > 0);
  }
  for (const name of ['main.js', 'manifest.json', '..%2Fmanifest.json', `${manifest.entries['main.js']}.br`]) {
    const r = await h.app.inject({ method: 'GET', url: `/app/assets/${name}`, headers: { 'accept-encoding': 'br' } });
    assert.equal(r.statusCode, 404, name);
    assert.equal(r.json().error.code, 'NOT_FOUND');
    assert.match(r.json().error.message, /reload the page/);
  }
});

test('/ sends a browser to /app and tells a program where the dashboard, the docs and the document are', async () => {
  const browser = await h.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
  assert.equal(browser.statusCode, 302);
  assert.equal(browser.headers.location, '/app');
  for (const accept of [undefined, 'application/json', '*/*']) {
    const r = await h.app.inject({ method: 'GET', url: '/', headers: accept ? { accept } : {} });
    assert.equal(r.statusCode, 200, String(accept));
    assert.deepEqual(r.json(), { name: 'footfall', dashboard: '/app', docs: '/docs', openapi: '/openapi.json' });
    assert.match(String(r.headers.vary), /Accept/);
  }
});

test('the read API OpenAPI document holds the read API only (/v1, /api/v2/query, /api/v2/funnel and /api/v2/funnels): no page, file or / in it', async () => {
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
  const paths = Object.keys(doc.paths);
  const queryApi = new Set(['/api/v2/query', '/api/v2/funnel', '/api/v2/funnels']);
  assert.deepEqual(
    paths.filter((p) => !p.startsWith('/v1/') && p !== '/healthz' && !queryApi.has(p)),
    [],
  );
});

test('without a built bundle the pages answer 503 saying how to build it', async () => {
  assert.equal(loadWebBundle(path.join(DEFAULT_WEB_DIR, 'not-here')), null);
  const app = Fastify();
  registerAppPages(app, () => null);
  const r = await app.inject({ method: 'GET', url: '/app' });
  assert.equal(r.statusCode, 503);
  assert.match(r.body, /npm run build:web/);
  await app.close();
});

test('Accept-Encoding: br first, then gzip; q=0 refuses; * takes br; nothing known sends the file as built', () => {
  assert.equal(preferredEncoding('gzip, deflate, br, zstd'), 'br');
  assert.equal(preferredEncoding('gzip;q=1.0, br;q=0'), 'gzip');
  assert.equal(preferredEncoding('*'), 'br');
  assert.equal(preferredEncoding('deflate'), null);
  assert.equal(preferredEncoding(undefined), null);
});
