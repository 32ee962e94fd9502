import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './helpers/harness.js';

test('GET /v1/sites lists the workspace sites with their product configuration', async () => {
  const h = await harness({ now: '2025-06-15T12:00:00Z' });
  const ws = await h.workspace('pro');
  const strict = await h.catalog.createSite({
    workspaceId: ws.id,
    name: 'Strict',
    hostnames: ['strict.example.com'],
    collectionProfile: 'strict',
  });
  h.clock.advance(1000);
  const switched = await h.catalog.createSite({
    workspaceId: ws.id,
    name: 'Switched',
    hostnames: ['switched.example.com', 'www.switched.example.com'],
    collectionProfile: 'extended',
    profileEffectiveAt: '2025-07-01T00:00:00.000Z',
    status: 'SUSPENDED',
  });
  const otherWs = await h.workspace('pro');
  await h.catalog.createSite({ workspaceId: otherWs.id, name: 'Foreign', hostnames: ['foreign.example.com'], collectionProfile: 'strict' });
  const t = await h.token(ws.id);
  const r = await h.get('/v1/sites', { token: t.secret });
  assert.equal(r.statusCode, 200);
  const items = r.json().items as any[];
  assert.deepEqual(items.map((s) => s.name).sort(), ['Strict', 'Switched']);
  const s1 = items.find((s) => s.siteId === strict.id);
  assert.equal(s1.status, 'ACTIVE');
  assert.deepEqual(s1.hostnames, ['strict.example.com']);
  assert.equal(s1.product_configuration.collection_profile, 'strict');
  assert.equal(s1.product_configuration.collection_profile_effective_at, null);
  assert.equal(s1.product_configuration.runtime_plan_id, 'pro');
  for (const c of Object.values(s1.product_configuration.capabilities) as any[]) assert.equal(c.data_envelope, 'strict');
  const s2 = items.find((s) => s.siteId === switched.id);
  assert.equal(s2.status, 'SUSPENDED');
  assert.equal(s2.product_configuration.collection_profile, 'extended');
  assert.equal(s2.product_configuration.collection_profile_effective_at, '2025-07-01T00:00:00.000Z');
  for (const c of Object.values(s2.product_configuration.capabilities) as any[]) assert.equal(c.data_envelope, 'mixed');
  await h.close();
});

test('GET /v1/sites honours the token site allowlist', async () => {
  const h = await harness();
  const ws = await h.workspace('starter');
  const a = await h.catalog.createSite({ workspaceId: ws.id, name: 'A', hostnames: ['a.example.com'], collectionProfile: 'strict' });
  await h.catalog.createSite({ workspaceId: ws.id, name: 'B', hostnames: ['b.example.com'], collectionProfile: 'extended' });
  const t = await h.token(ws.id, { siteIds: [a.id] });
  const items = (await h.get('/v1/sites', { token: t.secret })).json().items;
  assert.deepEqual(
    items.map((s: any) => s.siteId),
    [a.id],
  );
  await h.close();
});

test('GET /v1/sites errors: 401, 429', async () => {
  const h = await harness();
  assert.equal((await h.get('/v1/sites', { token: 'ff_live_nope' })).statusCode, 401);
  const ws = await h.workspace('enterprise', { rate_limit_rps: 1 });
  const t = await h.token(ws.id);
  for (let i = 0; i < 60; i++) await h.get('/v1/sites', { token: t.secret });
  assert.equal((await h.get('/v1/sites', { token: t.secret })).statusCode, 429);
  await h.close();
});
