import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './helpers/harness.js';

const CAPABILITIES = ['collection', 'reports', 'acquisition', 'advanced_actions', 'multi_tenant', 'exports', 'api'];

test('GET /v1/me returns the whole product object with its deprecated mirrors, per plan', async () => {
  const h = await harness();
  const expected = {
    starter: { availability: 'limited', retention: 395, rps: 15, reports: false, history: 12 },
    pro: { availability: 'standard', retention: 730, rps: 30, reports: true, history: 24 },
  } as const;
  for (const plan of ['starter', 'pro'] as const) {
    const ws = await h.workspace(plan);
    const t = await h.token(ws.id);
    const r = await h.get('/v1/me', { token: t.secret });
    assert.equal(r.statusCode, 200);
    const body = r.json();
    const p = body.product;
    assert.equal(p.runtime_plan_id, plan);
    assert.equal(body.plan_id, plan);
    assert.equal(body.retention_days, expected[plan].retention);
    assert.equal(p.product_retention.api_retention_days, expected[plan].retention);
    assert.equal(p.api.availability, expected[plan].availability);
    assert.equal(p.api.rate_limit_rps, expected[plan].rps);
    assert.equal(p.api.allow_reports, expected[plan].reports);
    assert.equal(p.api.usage_history_months, expected[plan].history);
    assert.ok(['strict', 'extended'].includes(p.default_collection_profile));
    assert.deepEqual(Object.keys(p.capabilities).sort(), [...CAPABILITIES].sort());
    assert.deepEqual(p.capabilities.reports.dashboard_surfaces, p.dashboard.enabled_surfaces);
    assert.equal(r.headers['x-ratelimit-limit'], String(expected[plan].rps * 60));
  }
  await h.close();
});

test('GET /v1/me for enterprise reports runtime_plan_id pro, availability custom and its overrides', async () => {
  const h = await harness();
  const ws = await h.workspace('enterprise', { hard_cap_units: 100, monthly_included_units: 50, rate_limit_rps: 1 });
  const t = await h.token(ws.id);
  const body = (await h.get('/v1/me', { token: t.secret })).json();
  assert.equal(body.plan_id, 'pro');
  assert.equal(body.product.runtime_plan_id, 'pro');
  assert.equal(body.product.api.availability, 'custom');
  assert.equal(body.product.api.hard_cap_units, 100);
  assert.equal(body.product.api.monthly_included_units, 50);
  assert.equal(body.product.api.max_breakdown_limit, 2000, 'pro policy underneath');
  await h.close();
});

test('GET /v1/me errors: 401 without a token, 429 over the limit', async () => {
  const h = await harness();
  assert.equal((await h.get('/v1/me')).statusCode, 401);
  const ws = await h.workspace('enterprise', { rate_limit_rps: 1 });
  const t = await h.token(ws.id);
  for (let i = 0; i < 60; i++) await h.get('/v1/me', { token: t.secret });
  assert.equal((await h.get('/v1/me', { token: t.secret })).statusCode, 429);
  await h.close();
});
