import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siteDataEnvelope, siteProductConfiguration, workspaceProduct } from '../../src/domain/product.js';
import { apiPolicyFor } from '../../src/domain/plans.js';

test('workspace product: api is the plan policy, mirrors and retention agree', () => {
  for (const plan of ['free', 'starter', 'pro'] as const) {
    const p = workspaceProduct({ plan, apiPolicy: {} });
    assert.equal(p.runtime_plan_id, plan);
    assert.deepEqual(p.api, apiPolicyFor(plan));
    assert.equal(p.product_retention.api_retention_days, apiPolicyFor(plan).retention_days);
    assert.equal(p.dashboard.hourly_enabled, plan !== 'free');
    assert.equal(p.exports.csv, plan !== 'free');
    assert.equal(p.capabilities.multi_tenant.level, plan === 'pro' ? 'standard' : 'none');
  }
  assert.deepEqual(workspaceProduct({ plan: 'pro', apiPolicy: {} }).product_retention.workspace_retention, {
    kind: 'fixed',
    value: 24,
    unit: 'months',
  });
  assert.deepEqual(workspaceProduct({ plan: 'free', apiPolicy: {} }).product_retention.workspace_retention, {
    kind: 'fixed',
    value: 60,
    unit: 'days',
  });
});

test('enterprise: runtime plan pro, availability custom, overrides applied', () => {
  const p = workspaceProduct({ plan: 'enterprise', apiPolicy: { allow_tenants: false, retention_days: 1000 } });
  assert.equal(p.runtime_plan_id, 'pro');
  assert.equal(p.api.availability, 'custom');
  assert.equal(p.api.allow_tenants, false);
  assert.equal(p.product_retention.api_retention_days, 1000);
  assert.equal(p.product_retention.workspace_retention.kind, 'custom');
  assert.equal(p.capabilities.api.level, 'custom');
});

test('site envelope: its profile, or mixed once it switched after the site began', () => {
  const created = '2025-01-01T00:00:00.000Z';
  assert.equal(siteDataEnvelope({ collectionProfile: 'strict', profileEffectiveAt: null, createdAt: created }), 'strict');
  assert.equal(siteDataEnvelope({ collectionProfile: 'extended', profileEffectiveAt: null, createdAt: created }), 'extended');
  assert.equal(siteDataEnvelope({ collectionProfile: 'extended', profileEffectiveAt: created, createdAt: created }), 'extended');
  assert.equal(siteDataEnvelope({ collectionProfile: 'strict', profileEffectiveAt: '2025-03-01T00:00:00Z', createdAt: created }), 'mixed');
  const cfg = siteProductConfiguration(
    { plan: 'starter', apiPolicy: {} },
    { collectionProfile: 'extended', profileEffectiveAt: '2025-03-01T00:00:00Z', createdAt: created },
  );
  assert.equal(cfg.collection_profile, 'extended');
  assert.equal(cfg.collection_profile_effective_at, '2025-03-01T00:00:00Z');
  assert.ok(Object.values(cfg.capabilities).every((c) => c.data_envelope === 'mixed'));
  assert.deepEqual(Object.keys(cfg.capabilities).sort(), [
    'acquisition',
    'advanced_actions',
    'api',
    'collection',
    'exports',
    'multi_tenant',
    'reports',
  ]);
});

test('products are fresh objects: changing one never leaks into the next', () => {
  const a = workspaceProduct({ plan: 'pro', apiPolicy: {} });
  a.dashboard.enabled_surfaces.push('hacked');
  a.capabilities.reports.dashboard_surfaces.push('hacked');
  const b = workspaceProduct({ plan: 'pro', apiPolicy: {} });
  assert.ok(!b.dashboard.enabled_surfaces.includes('hacked'));
  assert.ok(!b.capabilities.reports.dashboard_surfaces.includes('hacked'));
});
