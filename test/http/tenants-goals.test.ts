import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness, type Harness } from './helpers/harness.js';

async function seed(h: Harness) {
  const ws = await h.workspace('pro');
  const site = await h.catalog.createSite({
    workspaceId: ws.id,
    name: 'Shop',
    hostnames: ['shop.example.com'],
    collectionProfile: 'extended',
  });
  const other = await h.catalog.createSite({
    workspaceId: ws.id,
    name: 'Blog',
    hostnames: ['blog.example.com'],
    collectionProfile: 'strict',
  });
  const acme = await h.catalog.createTenant({ siteId: site.id, slug: 'acme', name: 'Acme' });
  const globex = await h.catalog.createTenant({ siteId: site.id, slug: 'globex', name: 'Globex' });
  await h.catalog.createTenant({ siteId: site.id, slug: 'gone', name: 'Gone', status: 'INACTIVE' });
  const foreignWs = await h.workspace('pro');
  const foreign = await h.catalog.createSite({
    workspaceId: foreignWs.id,
    name: 'F',
    hostnames: ['f.example.com'],
    collectionProfile: 'strict',
  });
  return { ws, site, other, acme, globex, foreign };
}

test('GET /v1/tenants lists the active tenants of the site', async () => {
  const h = await harness();
  const { ws, site, acme, globex } = await seed(h);
  const t = await h.token(ws.id);
  const r = await h.get(`/v1/tenants?site_id=${site.id}`, { token: t.secret });
  assert.equal(r.statusCode, 200);
  const items = r.json().items.sort((a: any, b: any) => a.tenant_slug.localeCompare(b.tenant_slug));
  assert.deepEqual(items, [
    { tenant_id: acme.id, tenant_slug: 'acme', tenant_name: 'Acme', status: 'ACTIVE' },
    { tenant_id: globex.id, tenant_slug: 'globex', tenant_name: 'Globex', status: 'ACTIVE' },
  ]);
  await h.close();
});

test('GET /v1/tenants shows a tenant-restricted token only its tenants', async () => {
  const h = await harness();
  const { ws, site, acme } = await seed(h);
  const t = await h.token(ws.id, { tenantIds: [acme.id] });
  const items = (await h.get(`/v1/tenants?site_id=${site.id}`, { token: t.secret })).json().items;
  assert.deepEqual(
    items.map((x: any) => x.tenant_id),
    [acme.id],
  );
  await h.close();
});

test('unknown, foreign and not-allowed site ids get one identical 403 body', async () => {
  const h = await harness();
  const { ws, site, other, foreign } = await seed(h);
  const t = await h.token(ws.id, { siteIds: [site.id] });
  for (const path of ['/v1/tenants', '/v1/goals']) {
    const bodies = [];
    for (const id of ['site_doesnotexist', foreign.id, other.id]) {
      const r = await h.get(`${path}?site_id=${id}`, { token: t.secret, headers: { 'x-request-id': 'same' } });
      assert.equal(r.statusCode, 403, `${path} ${id}`);
      bodies.push(r.body);
    }
    assert.equal(new Set(bodies).size, 1, `${path}: ${bodies.join(' | ')}`);
  }
  await h.close();
});

test('GET /v1/goals lists the site goals in the spec shape; suspended sites stay listable', async () => {
  const h = await harness();
  const ws = await h.workspace('pro');
  const site = await h.catalog.createSite({
    workspaceId: ws.id,
    name: 'S',
    hostnames: ['g.example.com'],
    collectionProfile: 'extended',
    status: 'SUSPENDED',
  });
  const signup = await h.catalog.createGoal({
    siteId: site.id,
    name: 'Signup',
    type: 'PAGEVIEW_MATCH',
    intent: 'signup',
    pattern: '/welcome*',
    filters: {},
  });
  const lead = await h.catalog.createGoal({
    siteId: site.id,
    name: 'Lead form',
    type: 'EVENT_MATCH',
    intent: 'lead',
    pattern: 'form.submit',
    filters: { form_id: 'contact' },
  });
  const t = await h.token(ws.id);
  const r = await h.get(`/v1/goals?site_id=${site.id}`, { token: t.secret });
  assert.equal(r.statusCode, 200);
  const items = r.json().items as any[];
  const s = items.find((g) => g.goalId === signup.id);
  assert.deepEqual(s, {
    goalId: signup.id,
    siteId: site.id,
    orgId: ws.id,
    name: 'Signup',
    type: 'PAGEVIEW_MATCH',
    intent: 'signup',
    pattern: '/welcome*',
    createdAt: signup.createdAt,
    updatedAt: signup.updatedAt,
  });
  assert.deepEqual(items.find((g) => g.goalId === lead.id).filters, { form_id: 'contact' });
  await h.close();
});

test('GET /v1/goals and /v1/tenants errors: 401, 403 (plan), 422, 429', async () => {
  const h = await harness();
  const { site } = await seed(h);
  for (const path of ['/v1/goals', '/v1/tenants']) {
    assert.equal((await h.get(`${path}?site_id=${site.id}`)).statusCode, 401);
    const starter = await h.workspace('starter');
    const st = await h.token(starter.id);
    assert.equal((await h.get(`${path}?site_id=${site.id}`, { token: st.secret })).statusCode, 403);
    const ent = await h.workspace('enterprise', { rate_limit_rps: 1 });
    const et = await h.token(ent.id);
    assert.equal((await h.get(`${path}?site_id=${site.id}&limit=5`, { token: et.secret })).statusCode, 422);
    for (let i = 0; i < 59; i++) await h.get(`${path}?site_id=x`, { token: et.secret });
    assert.equal((await h.get(`${path}?site_id=${site.id}`, { token: et.secret })).statusCode, 429);
  }
  await h.close();
});
