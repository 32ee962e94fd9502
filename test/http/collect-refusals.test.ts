// POST /api/event against hostile and mistaken input: each refusal in the spec's error envelope with
// X-Request-Id (and CORS, so a page can read it), nothing stored; unknown domains answered like known
// ones; CORS preflight; the per-address rate limit; whose X-Forwarded-For is believed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { collectHarness, pageview } from './helpers/collect.js';
import { openApiValidator } from './helpers/openapi-check.js';

function assertRefused(res: LightMyRequestResponse, status: number, message: RegExp, details?: Record<string, unknown>): void {
  assert.equal(res.statusCode, status, res.body);
  const body = res.json();
  assert.equal(body.error.code, status === 429 ? 'RATE_LIMITED' : 'INVALID_PARAMS');
  assert.match(body.error.message, message);
  assert.equal(body.error.request_id, res.headers['x-request-id']);
  assert.match(String(res.headers['x-request-id']), /^req_/);
  assert.equal(res.headers['access-control-allow-origin'], '*', 'a page can read why it was refused');
  if (details) assert.deepEqual(body.error.details, details);
}

test('bad bodies and fields are refused (400, 413, 415, 422) in the error envelope, and nothing is stored', async () => {
  const h = await collectHarness();
  try {
    const url = 'https://live.example/';
    assertRefused(await h.post('{"n": "pageview", '), 400, /JSON object/);
    assertRefused(await h.post('[1, 2]'), 400, /JSON object/);
    assertRefused(await h.post(''), 400, /JSON object/);
    assertRefused(await h.post({ n: 'pageview', u: url, d: 'live.example', p: { pad: 'x'.repeat(9000) } }), 413, /larger than 8192 bytes/, {
      max_bytes: 8192,
    });
    assertRefused(
      await h.post(pageview(url), { contentType: 'application/x-www-form-urlencoded' }),
      415,
      /Content-Type application\/x-www-form-urlencoded/,
    );
    const field = (res: LightMyRequestResponse, name: string, message: RegExp) => {
      assertRefused(res, 422, message);
      assert.equal(res.json().error.details.field, name);
    };
    field(await h.post({ n: 'pageview', d: 'live.example' }), 'url', /url is required/);
    field(await h.post({ n: 'pageview', u: '/relative', d: 'live.example' }), 'url', /absolute http\(s\) URL/);
    field(await h.post({ n: 'pageview', u: 'ftp://live.example/x', d: 'live.example' }), 'url', /absolute http\(s\) URL/);
    field(await h.post({ n: 'pageview', u: 'javascript:alert(1)', d: 'live.example' }), 'url', /absolute http\(s\) URL/);
    field(await h.post({ n: 'pageview', u: url }), 'domain', /domain is required/);
    field(await h.post({ u: url, d: 'live.example' }), 'name', /name is required/);
    field(await h.post({ n: 'x'.repeat(121), u: url, d: 'live.example' }), 'name', /longer than 120/);
    field(await h.post({ n: 'pageview', u: url, d: 'live.example', r: 5 }), 'referrer', /referrer must be a string/);
    const many = Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`k${i}`, 'v']));
    field(await h.post({ n: 'Signup', u: url, d: 'live.example', p: many }), 'props', /more than 30 keys/);
    field(await h.post({ n: 'Signup', u: url, d: 'live.example', p: { k: 'v'.repeat(2001) } }), 'props', /longer than 2000/);
    field(await h.post({ n: 'Signup', u: url, d: 'live.example', p: { ['k'.repeat(301)]: 'v' } }), 'props', /props key/);
    field(await h.post({ n: 'Signup', u: url, d: 'live.example', p: { nested: { a: 1 } } }), 'props', /string, a number or a boolean/);
    field(await h.post({ n: 'Signup', u: url, d: 'live.example', p: [1] }), 'props', /must be an object/);
    field(await h.post({ n: 'engagement', u: url, d: 'live.example', e: -5 }), 'e', /non-negative/);
    // What the importer refuses is refused here too, with its reason (422).
    const res = await h.post({ n: 'Signup', u: url, d: 'live.example', p: { family: 'bogus' } });
    assertRefused(res, 422, /family must be one of/);
    const nul = await h.post({ n: 'Sign\u0000up', u: url, d: 'live.example' });
    assertRefused(nul, 422, /NUL/);
    await h.flush();
    assert.equal((await h.read('/v1/metrics/timeseries', { metric: 'events', traffic: 'all' })).current.total, 0);
  } finally {
    await h.close();
  }
});

test('an event of an unknown or suspended domain is answered 202 like any other, and stores nothing', async () => {
  const h = await collectHarness();
  try {
    const suspended = await h.catalog.createSite({
      workspaceId: (await h.catalog.getSite(h.siteId))!.workspaceId,
      name: 's',
      hostnames: ['paused.example'],
      collectionProfile: 'extended',
      status: 'SUSPENDED',
    });
    const known = await h.post(pageview('https://live.example/'));
    const unknown = await h.post(pageview('https://nowhere.example/', { d: 'nowhere.example' }));
    const paused = await h.post(pageview('https://paused.example/', { d: 'paused.example' }));
    for (const r of [known, unknown, paused]) {
      assert.equal(r.statusCode, 202);
      assert.equal(r.body, 'ok');
      assert.equal(r.headers['content-type'], known.headers['content-type']);
    }
    // A bad event is refused whether or not its domain exists: the refusal reveals nothing either.
    assert.equal((await h.post({ n: 'pageview', u: 'ftp://x/', d: 'nowhere.example' })).statusCode, 422);
    await h.flush();
    assert.equal((await h.read('/v1/metrics/timeseries')).current.total, 1);
    const other = await h.get(`/v1/metrics/timeseries?site_id=${suspended.id}`, { token: h.secret });
    assert.equal(other.statusCode, 409, 'the suspended site is not served either');
  } finally {
    await h.close();
  }
});

test('CORS: any origin may send events; the preflight is answered; /v1 stays GET-only', async () => {
  const h = await collectHarness();
  try {
    const pre = await h.app.inject({
      method: 'OPTIONS',
      url: '/api/event',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    assert.equal(pre.statusCode, 204);
    assert.equal(pre.headers['access-control-allow-origin'], '*');
    assert.match(String(pre.headers['access-control-allow-methods']), /POST/);
    assert.equal(pre.headers['access-control-allow-headers'], 'content-type');
    assert.equal(pre.headers['access-control-max-age'], '86400');
    const post = await h.post(pageview('https://live.example/'), {
      contentType: 'application/json',
      headers: { origin: 'https://shop.example' },
    });
    assert.equal(post.statusCode, 202);
    assert.equal(post.headers['access-control-allow-origin'], '*');
    assert.match(String(post.headers['x-request-id']), /^req_/);
    // Collection lives beside the read API, not in it: in its OpenAPI document under its own tag, without a token.
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.deepEqual(Object.keys(doc.paths['/api/event']), ['post'], 'the preflight is not an operation');
    assert.deepEqual(Object.keys(doc.paths['/js/script.js']), ['get']);
    for (const op of [doc.paths['/api/event'].post, doc.paths['/js/script.js'].get]) {
      assert.deepEqual(op.tags, ['Collection']);
      assert.ok(!op.security?.length, `${op.operationId}: no token`);
    }
    assert.ok(Object.entries(doc.paths).every(([p, ops]) => !p.startsWith('/v1') || Object.keys(ops as object).every((m) => m === 'get')));
    h.checker.check('GET', '/js/script.js', await h.app.inject({ method: 'GET', url: '/js/script.js' }));
    // The documented body is what senders send: the tracker's short keys, the Events API's long names.
    const body = doc.paths['/api/event'].post.requestBody;
    assert.deepEqual(Object.keys(body.content), ['application/json', 'text/plain']);
    const validate = openApiValidator(doc)('#/paths/~1api~1event/post/requestBody/content/application~1json/schema');
    for (const event of [
      pageview('https://live.example/'),
      { name: 'Signup', url: 'https://live.example/', domain: 'live.example', props: { plan: 'pro' } },
    ])
      assert.ok(validate(event), JSON.stringify(validate.errors));
    const v1post = await h.app.inject({ method: 'POST', url: '/v1/me', payload: '{}' });
    assert.equal(v1post.statusCode, 405);
    const getEvent = await h.app.inject({ method: 'GET', url: '/api/event' });
    assert.equal(getEvent.statusCode, 405);
    assert.equal(getEvent.json().error.code, 'INVALID_METHOD');
  } finally {
    await h.close();
  }
});

test('the first-party script is served at /js/script.js', async () => {
  const h = await collectHarness();
  try {
    const res = await h.app.inject({ method: 'GET', url: '/js/script.js' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/javascript/);
    assert.match(String(res.headers['cache-control']), /max-age=\d+/);
    assert.match(res.body, /\/api\/event/);
    assert.match(res.body, /Outbound Link: Click/);
    // it parses as a script
    assert.doesNotThrow(() => new Function(res.body));
  } finally {
    await h.close();
  }
});

test('each client address has a rate limit (configurable); others are not held back', async () => {
  const h = await collectHarness({ config: { collectRateLimit: 3 } });
  try {
    const send = (ip: string) => h.post(pageview('https://live.example/'), { ip });
    for (let i = 0; i < 3; i++) assert.equal((await send('198.51.100.1')).statusCode, 202);
    const refused = await send('198.51.100.1');
    assertRefused(refused, 429, /at most 3 a minute/);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assert.equal(refused.headers['x-ratelimit-limit'], '3');
    assert.ok(refused.json().error.details.retry_after_seconds >= 1);
    assert.equal((await send('198.51.100.2')).statusCode, 202, 'another address');
    await h.flush();
    assert.equal((await h.read('/v1/metrics/timeseries')).current.total, 4, 'the refused event is not stored');
  } finally {
    await h.close();
  }
  const off = await collectHarness({ config: { collectRateLimit: 0 } });
  try {
    for (let i = 0; i < 20; i++) assert.equal((await off.post(pageview('https://live.example/'), { ip: '198.51.100.1' })).statusCode, 202);
  } finally {
    await off.close();
  }
});

test('FOOTFALL_TRUST_PROXY: the socket address by default; X-Forwarded-For under true, a hop count or a CIDR list', async () => {
  // Visitors are told apart by address (same agent, same day): count them to see which address was used.
  const visitors = async (trustProxy: string | undefined, sends: { ip: string; xff?: string }[]) => {
    const h = await collectHarness({ config: trustProxy === undefined ? {} : { trustProxy } });
    try {
      for (const s of sends) {
        const r = await h.post(pageview('https://live.example/'), { ip: s.ip, headers: s.xff ? { 'x-forwarded-for': s.xff } : {} });
        assert.equal(r.statusCode, 202, r.body);
      }
      await h.flush();
      return (await h.read('/v1/metrics/timeseries', { metric: 'visitors' })).current.total as number;
    } finally {
      await h.close();
    }
  };
  const spoofed = [
    { ip: '10.0.0.5', xff: '198.51.100.1' },
    { ip: '10.0.0.5', xff: '198.51.100.2' },
    { ip: '10.0.0.5', xff: '198.51.100.3' },
  ];
  assert.equal(await visitors(undefined, spoofed), 1, 'untrusted: X-Forwarded-For is ignored, one socket address');
  assert.equal(await visitors('true', spoofed), 3);
  assert.equal(await visitors('10.0.0.0/8', spoofed), 3, 'the proxy is in the list');
  assert.equal(await visitors('192.168.0.0/16, ::1', spoofed), 1, 'the proxy is not in the list');
  // One hop: the address the nearest proxy saw; a client-forged value further left is ignored.
  assert.equal(
    await visitors('1', [
      { ip: '10.0.0.5', xff: '6.6.6.6, 198.51.100.1' },
      { ip: '10.0.0.5', xff: '7.7.7.7, 198.51.100.1' },
    ]),
    1,
  );
  assert.equal(
    await visitors('1', [
      { ip: '10.0.0.5', xff: '6.6.6.6, 198.51.100.1' },
      { ip: '10.0.0.5', xff: '6.6.6.6, 198.51.100.2' },
    ]),
    2,
  );
});

test('the rate limit counts the client address behind a trusted proxy', async () => {
  const h = await collectHarness({ config: { collectRateLimit: 2, trustProxy: '10.0.0.0/8' } });
  try {
    const send = (xff: string) => h.post(pageview('https://live.example/'), { ip: '10.0.0.5', headers: { 'x-forwarded-for': xff } });
    assert.equal((await send('198.51.100.1')).statusCode, 202);
    assert.equal((await send('198.51.100.1')).statusCode, 202);
    assert.equal((await send('198.51.100.1')).statusCode, 429);
    assert.equal((await send('198.51.100.2')).statusCode, 202, 'another client behind the same proxy');
  } finally {
    await h.close();
  }
});
