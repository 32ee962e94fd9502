// The per-token window over HTTP: headers on every authenticated response, 429 shape, refusals not counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './helpers/harness.js';

test('X-RateLimit-* on every authenticated response, 429 with Retry-After once L requests were made', async () => {
  const h = await harness();
  const ws = await h.workspace('enterprise', { rate_limit_rps: 1 }); // L = 60
  const t = await h.token(ws.id);
  const other = await h.token(ws.id);
  const t0 = h.clock.now().getTime();
  for (let i = 0; i < 60; i++) {
    // Errors after the limiter count too (here a 422 every third request).
    const r = await h.get(i % 3 ? '/v1/me' : '/v1/me?x=1', { token: t.secret });
    assert.equal(r.statusCode, i % 3 ? 200 : 422);
    assert.equal(r.headers['x-ratelimit-limit'], '60');
    assert.equal(r.headers['x-ratelimit-remaining'], String(59 - i));
    assert.equal(r.headers['x-ratelimit-reset'], String(Math.ceil((t0 + 60_000) / 1000)));
    h.clock.advance(500);
  }
  const limited = await h.get('/v1/me', { token: t.secret });
  assert.equal(limited.statusCode, 429);
  const reset = Math.ceil((t0 + 60_000) / 1000);
  const expectedRetry = Math.max(1, reset - Math.floor(h.clock.now().getTime() / 1000));
  assert.equal(limited.headers['x-ratelimit-limit'], '60');
  assert.equal(limited.headers['x-ratelimit-remaining'], '0');
  assert.equal(limited.headers['x-ratelimit-reset'], String(reset));
  assert.equal(limited.headers['retry-after'], String(expectedRetry));
  assert.deepEqual(limited.json().error.details, { retry_after_seconds: expectedRetry });
  assert.equal(limited.json().error.code, 'RATE_LIMITED');

  // The limit is per token.
  assert.equal((await h.get('/v1/me', { token: other.secret })).statusCode, 200);

  // 429s are not recorded: hammering while limited does not push the reset back.
  for (let i = 0; i < 20; i++) assert.equal((await h.get('/v1/me', { token: t.secret })).statusCode, 429);
  h.clock.set(t0 + 60_000);
  const again = await h.get('/v1/me', { token: t.secret });
  assert.equal(again.statusCode, 200);
  assert.equal(again.headers['x-ratelimit-remaining'], '0');
  await h.close();
});

test('the rate limit comes before plan and parameter checks', async () => {
  const h = await harness();
  const ws = await h.workspace('enterprise', { rate_limit_rps: 1, allow_tenants: false });
  const t = await h.token(ws.id);
  for (let i = 0; i < 60; i++) await h.get('/v1/usage/current', { token: t.secret });
  assert.equal((await h.get('/v1/tenants?bad=1', { token: t.secret })).statusCode, 429);
  await h.close();
});

test('a token whose policy sets no rate gets no rate headers', async () => {
  const h = await harness();
  const ws = await h.workspace('enterprise', { rate_limit_rps: null });
  const t = await h.token(ws.id);
  const r = await h.get('/v1/me', { token: t.secret });
  assert.equal(r.statusCode, 200);
  assert.equal(r.headers['x-ratelimit-limit'], undefined);
  await h.close();
});
