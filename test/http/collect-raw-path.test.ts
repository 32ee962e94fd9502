// POST /api/event and its preflight are answered from node:http ahead of Fastify's routing
// (http/collect/collect-fast-path.ts). Every answer of that path must be the one the Fastify route
// gives (inject goes through Fastify): status, headers, envelope; the rate limit counts both paths
// together; and whatever the raw path does not take reaches Fastify unchanged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerFirst, collectFastPath } from '../../src/http/collect/collect-fast-path.js';
import { CollectEndpoint } from '../../src/http/collect/collect-endpoint.js';
import { noopMetrics } from '../../src/ports/metrics.js';
import { collectHarness, CHROME, pageview } from './helpers/collect.js';

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

/** One request over a socket, headers exactly as given. */
function send(port: number, method: string, path: string, headers: Record<string, string>, body?: string | string[]): Promise<Answer> {
  // a string goes with its Content-Length, as a tracker sends it
  if (typeof body === 'string') headers = { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    // an array is sent chunk by chunk (Transfer-Encoding: chunked)
    if (Array.isArray(body)) for (const part of body) req.write(part);
    else if (body !== undefined) req.write(body);
    req.end();
  });
}

/** What must be equal between two answers: the request id replaced by its place, the per-connection headers left out. */
function comparable(a: Answer): Answer {
  const id = String(a.headers['x-request-id']);
  assert.match(id, /^req_|^given-id$/);
  const headers = { ...a.headers };
  for (const h of ['date', 'connection', 'keep-alive', 'x-request-id', 'transfer-encoding']) delete headers[h];
  return { status: a.status, headers, body: a.body.replaceAll(id, '<id>') };
}

test('each answer of the raw path is the one the Fastify route gives, and the rate limit counts both', async () => {
  const h = await collectHarness({ config: { collectRateLimit: 2, trustProxy: 'loopback' } });
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (h.app.server.address() as AddressInfo).port;
  try {
    let n = 0;
    // each case from its own client address (X-Forwarded-For from the trusted loopback), so the limit of 2 is not reached
    const both = async (method: 'POST' | 'OPTIONS', headers: Record<string, string>, body?: string, why = '') => {
      const xff = `198.51.100.${++n}`;
      const raw = await send(port, method, '/api/event', { ...headers, 'x-forwarded-for': xff }, body);
      const xff2 = `198.51.100.${++n}`;
      const injected = await h.app.inject({
        method,
        url: '/api/event',
        headers: { ...headers, 'x-forwarded-for': xff2 },
        remoteAddress: '127.0.0.1',
        payload: body,
      });
      if (method === 'POST') h.checker.check(method, '/api/event', injected);
      const routed = comparable({ status: injected.statusCode, headers: injected.headers, body: injected.body });
      assert.deepEqual(comparable(raw), routed, why);
      return raw;
    };
    const text = { 'content-type': 'text/plain', 'user-agent': CHROME, host: 'live.example' };
    const ok = pageview('https://live.example/docs');
    assert.equal((await both('POST', text, JSON.stringify(ok), 'accepted')).status, 202);
    assert.equal(
      (await both('POST', { ...text, 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(ok), 'json')).status,
      202,
    );
    assert.equal((await both('POST', text, JSON.stringify({ ...ok, d: 'nobody.example' }), 'unknown domain')).status, 202);
    assert.equal((await both('POST', text, '{"n": ', 'not JSON')).status, 400);
    assert.equal((await both('POST', text, '', 'empty')).status, 400);
    assert.equal(
      (await both('POST', { ...text, 'content-type': 'text/plain;charset=UTF-8' }, JSON.stringify({ ...ok, u: 'nope' }), 'bad field'))
        .status,
      422,
    );
    assert.equal((await both('POST', text, JSON.stringify({ ...ok, p: { pad: 'x'.repeat(9000) } }), 'too large')).status, 413);
    assert.equal((await both('POST', { ...text, 'content-type': 'application/xml' }, '<a/>', 'other type (left to Fastify)')).status, 415);
    assert.equal(
      (await both('POST', { ...text, 'x-request-id': 'given-id' }, JSON.stringify(ok), 'the client id is kept')).headers['x-request-id'],
      'given-id',
    );
    const preflight = {
      origin: 'https://shop.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
      host: 'live.example',
    };
    assert.equal((await both('OPTIONS', preflight, undefined, 'preflight')).status, 204);

    // the limit: two from one address through the raw path, the third refused through either
    const from = (path: 'raw' | 'routed') => {
      const headers = { ...text, 'x-forwarded-for': '203.0.113.50' };
      return path === 'raw'
        ? send(port, 'POST', '/api/event', headers, JSON.stringify(ok))
        : h.app
            .inject({ method: 'POST', url: '/api/event', headers, remoteAddress: '127.0.0.1', payload: JSON.stringify(ok) })
            .then((r) => ({ status: r.statusCode, headers: r.headers, body: r.body }));
    };
    assert.equal((await from('raw')).status, 202);
    assert.equal((await from('routed')).status, 202);
    const refusedRaw = await from('raw');
    const refusedRouted = await from('routed');
    assert.equal(refusedRaw.status, 429);
    assert.equal(refusedRaw.headers['x-ratelimit-limit'], '2');
    assert.equal(refusedRaw.headers['x-ratelimit-remaining'], '0');
    assert.ok(Number(refusedRaw.headers['retry-after']) >= 1);
    assert.match(
      JSON.parse(refusedRaw.body).error.message,
      /^Too many events from this address: at most 2 a minute; retry in \d+ seconds?\.$|1 minute\.$/,
    );
    const [a, b] = [comparable(refusedRaw), comparable(refusedRouted)];
    // the seconds left may differ by one between the two requests
    for (const x of [a, b]) {
      delete x.headers['retry-after'];
      x.body = x.body.replace(/\d+ seconds?|1 minute/, 'T').replace(/"retry_after_seconds":\d+/, '"retry_after_seconds":T');
    }
    assert.deepEqual(a, b);

    // what the raw path leaves to Fastify: a chunked body, a query string, another method
    const chunked = await send(port, 'POST', '/api/event', { ...text, 'x-forwarded-for': '203.0.113.60' }, [
      '{"n":"pageview","u":"https://live.example/",',
      '"d":"live.example","r":null}',
    ]);
    assert.equal(chunked.status, 202);
    assert.equal(chunked.headers['access-control-allow-origin'], '*');
    assert.equal(
      (await send(port, 'POST', '/api/event?x=1', { ...text, 'x-forwarded-for': '203.0.113.61' }, JSON.stringify(ok))).status,
      202,
    );
    const get = await send(port, 'GET', '/api/event', { host: 'live.example' });
    assert.equal(get.status, 405);
    assert.equal(JSON.parse(get.body).error.code, 'INVALID_METHOD');
    assert.equal((await send(port, 'GET', '/healthz', { host: 'live.example' })).status, 200);
  } finally {
    await h.close();
  }
});

test('the raw path takes only the exact route with headers it is sure of; everything else reaches the next listener unchanged', async () => {
  const collector = { collect: async () => ({ kind: 'accepted' as const, engagement: false }), progress: () => null };
  const endpoint = new CollectEndpoint(collector, noopMetrics, null);
  const log = {
    child: () => log,
    info() {},
    error() {},
    warn() {},
    debug() {},
    fatal() {},
    trace() {},
    silent() {},
    level: 'silent',
  } as never;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(299, { 'x-fallback': 'yes' }).end(`${req.method} ${req.url}`));
  });
  answerFirst(server, collectFastPath({ endpoint, clientAddress: (req) => req.socket.remoteAddress, log, routeMetrics: undefined }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  try {
    const body = JSON.stringify(pageview('https://live.example/'));
    const taken = await send(port, 'POST', '/api/event', { 'content-type': 'text/plain' }, body);
    assert.equal(taken.status, 202);
    assert.equal(taken.body, 'ok');
    assert.equal((await send(port, 'OPTIONS', '/api/event', {})).status, 204);
    const passed: [string, string, Record<string, string>, (string | string[])?][] = [
      ['POST', '/api/event?x=1', { 'content-type': 'text/plain' }, body],
      ['POST', '/api/event/', { 'content-type': 'text/plain' }, body],
      ['POST', '/API/EVENT', { 'content-type': 'text/plain' }, body],
      ['GET', '/api/event', {}],
      ['PUT', '/api/event', { 'content-type': 'text/plain' }, body],
      ['POST', '/api/event', { 'content-type': 'text/html' }, body],
      ['POST', '/api/event', { 'content-type': 'text/plain; boundary=x' }, body],
      ['POST', '/api/event', { 'content-type': 'text/plain' }, [body.slice(0, 5), body.slice(5)]],
      ['OPTIONS', '/api/event', { 'content-type': 'text/plain' }, 'x'],
      ['POST', '/v1/me', {}],
    ];
    for (const [method, path, headers, sent] of passed) {
      const r = await send(port, method, path, headers, sent);
      assert.equal(r.status, 299, `${method} ${path} ${JSON.stringify(headers)}`);
      assert.equal(r.body, `${method} ${path}`);
    }
  } finally {
    await new Promise((r) => server.close(r));
  }
});
