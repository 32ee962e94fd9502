// Envelope, routing, request ids and the order of checks (docs/product.md §7.2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { harness } from './helpers/harness.js';
import { openApiChecker } from './helpers/openapi-check.js';
import { buildApp } from '../../src/app.js';
import { defineRoute } from '../../src/http/pipeline/define-route.js';
import { EngineError } from '../../src/domain/errors.js';

test('unknown paths answer 404 NOT_FOUND in the envelope, before any token check', async () => {
  const h = await harness();
  for (const url of ['/v1/nope', '/v2/me', '/app/no-such-page', '/v1/me/', '/v1/usage']) {
    const r = await h.get(url);
    assert.equal(r.statusCode, 404, url);
    assert.equal(r.json().error.code, 'NOT_FOUND');
  }
  await h.close();
});

test('other methods on known paths answer 405 INVALID_METHOD with Allow: GET, HEAD and OPTIONS included', async () => {
  const h = await harness();
  const ws = await h.workspace('pro');
  const t = await h.token(ws.id);
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const) {
    for (const url of ['/v1/me', '/v1/usage/current', '/healthz']) {
      if (method === 'HEAD' && url === '/healthz') continue; // answered: uptime monitors ask with HEAD
      const r = await h.get(url, { method, token: t.secret });
      assert.equal(r.statusCode, 405, `${method} ${url}`);
      assert.equal(r.headers.allow, url === '/healthz' ? 'GET, HEAD' : 'GET');
      assert.equal(r.headers['x-ratelimit-limit'], undefined, 'a 405 is not counted');
      if (method !== 'HEAD') assert.equal(r.json().error.code, 'INVALID_METHOD');
    }
  }
  await h.close();
});

test('HEAD /healthz answers like GET without a body, for uptime monitors', async () => {
  const h = await harness();
  const get = await h.get('/healthz');
  const head = await h.get('/healthz', { method: 'HEAD' });
  assert.equal(head.statusCode, 200);
  assert.equal(head.body, '');
  assert.equal(head.headers['content-type'], get.headers['content-type']);
  assert.ok(head.headers['x-request-id']);
  await h.close();
});

test('a valid X-Request-Id is echoed in the header and the error body; an invalid one is replaced', async () => {
  const h = await harness();
  const ok = await h.get('/v1/me', { headers: { 'x-request-id': 'client.req:42-A_b' } });
  assert.equal(ok.headers['x-request-id'], 'client.req:42-A_b');
  assert.equal(ok.json().error.request_id, 'client.req:42-A_b');
  for (const bad of ['has space', 'x'.repeat(129), 'emoji😀', '']) {
    const r = await h.get('/v1/nope', { headers: { 'x-request-id': bad } });
    assert.notEqual(r.headers['x-request-id'], bad);
    assert.match(String(r.headers['x-request-id']), /^[A-Za-z0-9._:-]{1,128}$/);
  }
  const a = await h.get('/healthz');
  const b = await h.get('/healthz');
  assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id'], 'generated ids are unique');
  await h.close();
});

test('unknown or repeated query parameters are 422 INVALID_PARAMS naming the parameter', async () => {
  const h = await harness();
  const ws = await h.workspace('pro');
  const t = await h.token(ws.id);
  const site = await h.catalog.createSite({ workspaceId: ws.id, name: 's', hostnames: ['p.example.com'], collectionProfile: 'strict' });
  const cases: Array<[string, string]> = [
    ['/v1/me?verbose=1', 'verbose'],
    ['/v1/usage/current?period=2025-01', 'period'],
    [`/v1/goals?site_id=${site.id}&site_id=${site.id}`, 'site_id'],
    ['/v1/usage/history?from=2025-01-01&from=2025-02-01', 'from'],
    ['/v1/goals', 'site_id'],
    ['/v1/goals?site_id=', 'site_id'],
    ['/v1/usage/history?from=2025-1-1', 'from'],
  ];
  for (const [url, parameter] of cases) {
    const r = await h.get(url, { token: t.secret });
    assert.equal(r.statusCode, 422, url);
    assert.equal(r.json().error.code, 'INVALID_PARAMS');
    assert.equal(r.json().error.details.parameter, parameter, url);
    assert.match(r.json().error.message, new RegExp(parameter));
  }
  await h.close();
});

test('order of checks: 404 before 401, 401 before 422, 403 before 422, 422 before site 403', async () => {
  const h = await harness();
  const starter = await h.workspace('starter');
  const ts = await h.token(starter.id);
  const pro = await h.workspace('pro');
  const usageOnly = await h.token(pro.id, { scopes: ['usage:read'] });
  const full = await h.token(pro.id);
  assert.equal((await h.get('/v1/nope?bad=1', { token: 'garbage' })).statusCode, 404);
  assert.equal((await h.get('/v1/me?bad=1', { token: 'garbage' })).statusCode, 401);
  assert.equal((await h.get('/v1/tenants?bad=1', { token: ts.secret })).statusCode, 403, 'family gate before params');
  assert.equal((await h.get('/v1/me?bad=1', { token: usageOnly.secret })).statusCode, 403, 'scope before params');
  const r = await h.get('/v1/goals?site_id=unknown&bad=1', { token: full.secret });
  assert.equal(r.statusCode, 422, 'params before site access');
  await h.close();
});

test('unexpected failures answer 500 INTERNAL_ERROR with the fixed message; engine faults answer 503', async () => {
  const h = await harness();
  const ws = await h.workspace('pro');
  const t = await h.token(ws.id);
  const boom = (url: string, err: () => Error) =>
    defineRoute({
      url,
      operationId: `test${url.split('/').pop()}`,
      family: 'metrics',
      scopes: ['metrics:read'],
      surface: 'overview',
      tags: ['test'],
      summary: 'fails',
      response: Type.Object({}),
      errors: [503],
      handler: async () => {
        throw err();
      },
    });
  const logs: string[] = [];
  const app = await buildApp(h.container, {
    logger: { level: 'error', stream: { write: (s: string) => void logs.push(s) } },
    routes: [
      boom('/v1/test/crash', () => new Error('secret db path /var/x')),
      boom('/v1/test/timeout', () => new EngineError('timeout')),
      boom('/v1/test/down', () => new EngineError('unavailable')),
    ],
  });
  const checker = await openApiChecker(app);
  const call = async (url: string) => {
    const res = await app.inject({ url, headers: { authorization: `Bearer ${t.secret}`, 'x-request-id': 'trace-1' } });
    checker.check('GET', url, res);
    return res;
  };
  const crash = await call('/v1/test/crash');
  assert.equal(crash.statusCode, 500);
  assert.deepEqual(crash.json(), { error: { code: 'INTERNAL_ERROR', message: 'Unexpected backend failure.', request_id: 'trace-1' } });
  assert.ok(
    logs.some((l) => l.includes('secret db path') && l.includes('trace-1')),
    'cause logged with the request id',
  );
  const timeout = await call('/v1/test/timeout');
  assert.equal(timeout.json().error.code, 'ANALYTICS_DB_TIMEOUT');
  assert.equal(timeout.headers['retry-after'], '30', '503 carries Retry-After');
  assert.equal(crash.headers['retry-after'], undefined, 'a 500 does not');
  const down = await call('/v1/test/down');
  assert.equal(down.statusCode, 503);
  assert.equal(down.json().error.code, 'ANALYTICS_DB_UNAVAILABLE');
  assert.equal(down.headers['retry-after'], '5');
  await app.close();
  await h.close();
});
