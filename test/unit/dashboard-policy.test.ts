// The dashboard policy of each plan (surfaces, retention target as retention and longest range, hourly,
// row limits, CSV) and the read rules of a token beside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dashboardPolicy, retentionTargetDays, surfaceRefusal } from '../../src/domain/dashboard-policy.js';
import { apiPolicyFor } from '../../src/domain/plans.js';
import { DASHBOARD_SURFACES } from '../../src/domain/plans.js';
import { workspaceProduct } from '../../src/domain/product.js';
import { apiReadPolicy, breakdownLimitName, retentionName, tenantDimensionRefusal } from '../../src/domain/read-policy.js';

const policyOf = (plan: 'free' | 'starter' | 'pro' | 'enterprise', apiPolicy = {}) => dashboardPolicy({ plan, apiPolicy });

test('free: overview, content and acquisition; 60 days; no hourly; 100 rows; no CSV', () => {
  assert.deepEqual(policyOf('free'), {
    kind: 'dashboard',
    surfaces: ['overview', 'content', 'acquisition'],
    retention_days: 60,
    max_range_days: 60,
    max_breakdown_limit: 100,
    max_report_limit: 100,
    hourly: false,
    tenant_dimension: false,
    csv: false,
  });
});

test('starter: adds actions; 13 months = 395 days; hourly; 500 rows; CSV', () => {
  assert.deepEqual(policyOf('starter'), {
    kind: 'dashboard',
    surfaces: ['overview', 'content', 'acquisition', 'actions'],
    retention_days: 395,
    max_range_days: 395,
    max_breakdown_limit: 500,
    max_report_limit: 500,
    hourly: true,
    tenant_dimension: false,
    csv: true,
  });
});

test('pro: every surface; 24 months = 730 days; 2000 rows; the tenants surface opens the tenant dimension', () => {
  assert.deepEqual(policyOf('pro'), {
    kind: 'dashboard',
    surfaces: [...DASHBOARD_SURFACES],
    retention_days: 730,
    max_range_days: 730,
    max_breakdown_limit: 2000,
    max_report_limit: 2000,
    hourly: true,
    tenant_dimension: true,
    csv: true,
  });
});

test("enterprise: pro's surfaces and rows; its API policy's retention_days, none when it sets none", () => {
  const standard = policyOf('enterprise');
  assert.deepEqual(standard.surfaces, [...DASHBOARD_SURFACES]);
  assert.equal(standard.retention_days, 730);
  assert.equal(standard.max_range_days, 730);
  assert.equal(standard.max_breakdown_limit, 2000);
  assert.equal(standard.max_report_limit, 2000);
  assert.equal(policyOf('enterprise', { retention_days: 1000 }).retention_days, 1000);
  const unlimited = policyOf('enterprise', { retention_days: null });
  assert.equal(unlimited.retention_days, null);
  assert.equal(unlimited.max_range_days, null);
  // the API policy's switches do not close dashboard surfaces
  assert.deepEqual(policyOf('enterprise', { allow_reports: false, allow_goals: false, allow_tenants: false }).surfaces, [
    ...DASHBOARD_SURFACES,
  ]);
});

test('the policy follows the product object it is derived from', () => {
  for (const plan of ['free', 'starter', 'pro', 'enterprise'] as const) {
    const product = workspaceProduct({ plan, apiPolicy: {} });
    const policy = policyOf(plan);
    assert.deepEqual([...policy.surfaces], product.dashboard.enabled_surfaces, plan);
    assert.equal(policy.hourly, product.dashboard.hourly_enabled, plan);
    assert.equal(policy.csv, product.exports.csv, plan);
  }
});

test('retention targets in months count 365/12 days each', () => {
  assert.equal(retentionTargetDays({ kind: 'fixed', value: 60, unit: 'days' }, 7), 60);
  assert.equal(retentionTargetDays({ kind: 'fixed', value: 13, unit: 'months' }, 7), 395);
  assert.equal(retentionTargetDays({ kind: 'fixed', value: 24, unit: 'months' }, 7), 730);
  assert.equal(retentionTargetDays({ kind: 'fixed', value: 12, unit: 'months' }, 7), 365);
  assert.equal(retentionTargetDays({ kind: 'custom' }, 900), 900);
  assert.equal(retentionTargetDays({ kind: 'custom' }, null), null);
});

test('a surface outside the plan is refused with a message naming it and the plan; null surfaces are open to all', () => {
  const free = policyOf('free');
  for (const surface of ['overview', 'content', 'acquisition'] as const) assert.equal(surfaceRefusal(free, surface), null, surface);
  assert.equal(surfaceRefusal(free, null), null);
  for (const surface of ['actions', 'goals', 'tenants'] as const) {
    const message = surfaceRefusal(free, surface);
    assert.ok(message?.includes(`${surface} surface`), `${surface}: ${message}`);
    assert.match(message!, /plan/);
  }
  assert.equal(surfaceRefusal(policyOf('starter'), 'actions'), null);
  assert.notEqual(surfaceRefusal(policyOf('starter'), 'goals'), null);
});

test("a token's read rules are its plan's API policy; messages name whose rules refused", () => {
  for (const plan of ['starter', 'pro'] as const) {
    const api = apiPolicyFor(plan);
    assert.deepEqual(apiReadPolicy(plan, api), {
      kind: 'api',
      plan,
      retention_days: api.retention_days,
      max_range_days: api.max_range_days,
      max_breakdown_limit: api.max_breakdown_limit,
      max_report_limit: api.max_report_limit,
      hourly: true,
      tenant_dimension: api.allow_tenant_dimension,
      csv: true,
    });
  }
  const token = apiReadPolicy('pro', apiPolicyFor('pro'));
  const person = policyOf('free');
  assert.equal(breakdownLimitName(token), 'api.max_breakdown_limit');
  assert.match(breakdownLimitName(person), /dashboard/);
  assert.equal(retentionName(token), 'the API retention');
  assert.match(retentionName(person), /dashboard/);
  assert.equal(
    tenantDimensionRefusal(apiReadPolicy('starter', apiPolicyFor('starter'))),
    'The starter plan does not include the tenant dimension (dimension=tenant); upgrade to pro or ask for an enterprise policy with allow_tenant_dimension.',
  );
  assert.match(tenantDimensionRefusal(person), /tenants surface/);
});
