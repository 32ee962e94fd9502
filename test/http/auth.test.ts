// Tokens, plans, scopes and route-family gates, in depth on a few routes; route-security.test.ts walks
// every route for the refusals each must give.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { harness } from './helpers/harness.js';
import { generateSecret } from '../../src/domain/tokens.js';

test('missing, malformed, unknown and wrongly-schemed tokens are 401 UNAUTHORIZED', async () => {
  const h = await harness();
  const ws = await h.workspace('pro');
  const t = await h.token(ws.id);
  const headers: Array<Record<string, string>> = [
    {},
    { authorization: 'Bearer' },
    { authorization: 'Bearer not-a-secret' },
    { authorization: `Bearer ${generateSecret(randomBytes)}` }, // well-formed, never issued
    { authorization: `Bearer ${t.secret.slice(0, -1)}${t.secret.endsWith('A') ? 'B' : 'A'}` }, // checksum broken
    { authorization: `Basic ${t.secret}` },
    { authorization: `Bearer ${t.secret} extra` },
  ];
  for (const hd of headers) {
    const r = await h.get('/v1/me', { headers: hd });
    assert.equal(r.statusCode, 401, JSON.stringify(hd));
    assert.equal(r.json().error.code, 'UNAUTHORIZED');
    assert.equal(r.headers['x-ratelimit-limit'], undefined);
  }
  assert.equal((await h.get('/v1/me', { token: t.secret })).statusCode, 200);
  await h.close();
});

test('a revoked token fails on the very next request', async () => {
  const h = await harness();
  const ws = await h.workspace('starter');
  const t = await h.token(ws.id);
  assert.equal((await h.get('/v1/usage/current', { token: t.secret })).statusCode, 200);
  assert.equal(await h.catalog.revokeToken(t.id, new Date().toISOString()), true);
  const r = await h.get('/v1/usage/current', { token: t.secret });
  assert.equal(r.statusCode, 401);
  assert.equal(r.json().error.code, 'UNAUTHORIZED');
  await h.close();
});

test('usage:read and metrics:read both reach /v1/usage/*', async () => {
  const h = await harness();
  const ws = await h.workspace('pro');
  const usage = await h.token(ws.id, { scopes: ['usage:read'] });
  const metrics = await h.token(ws.id, { scopes: ['metrics:read'] });
  for (const url of ['/v1/usage/current', '/v1/usage/history']) {
    assert.equal((await h.get(url, { token: usage.secret })).statusCode, 200, url);
    assert.equal((await h.get(url, { token: metrics.secret })).statusCode, 200, url);
  }
  await h.close();
});

test('an enterprise policy opens or closes goals and tenants by its own switches', async () => {
  const h = await harness();
  const ent = await h.workspace('enterprise', { allow_goals: false, allow_tenants: true });
  const et = await h.token(ent.id);
  const esite = await h.catalog.createSite({
    workspaceId: ent.id,
    name: 'e',
    hostnames: ['ent.example.com'],
    collectionProfile: 'extended',
  });
  assert.equal((await h.get(`/v1/goals?site_id=${esite.id}`, { token: et.secret })).statusCode, 403);
  assert.equal((await h.get(`/v1/tenants?site_id=${esite.id}`, { token: et.secret })).statusCode, 200);
  await h.close();
});
