// The route-definition helper as analytics routes will use it: site status, tenant rules, metering.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { buildApp } from '../../src/app.js';
import { defineRoute, RawJson } from '../../src/http/pipeline/define-route.js';
import { ApiError } from '../../src/domain/errors.js';
import { chargeUnits, withMeteredUnits } from '../../src/services/metering.js';
import { apiPolicyFor } from '../../src/domain/plans.js';
import { harness } from './helpers/harness.js';
import { openApiChecker } from './helpers/openapi-check.js';

const Query = Type.Object({
  site_id: Type.String({ minLength: 1 }),
  tenant_id: Type.Optional(Type.String()),
  units: Type.Optional(Type.Integer({ minimum: 0 })),
  fail: Type.Optional(Type.String()),
});
const Meta = Type.Object({
  request_id: Type.String(),
  units_charged: Type.Integer(),
  billable_overage: Type.Boolean(),
  usage: Type.Object({
    used_units: Type.Integer(),
    overage_units: Type.Integer(),
    included_units: Type.Integer(),
    hard_cap_units: Type.Integer(),
  }),
});

const analyticsLike = defineRoute({
  url: '/v1/test/metered',
  operationId: 'testMetered',
  family: 'metrics',
  scopes: ['metrics:read'],
  surface: 'overview',
  tags: ['test'],
  summary: 'a metered test route',
  querystring: Query,
  response: Type.Object({ site: Type.String(), tenant: Type.Union([Type.String(), Type.Null()]), meta: Meta }),
  errors: [402, 409],
  site: { inactive: 'reject', tenantRequiredForRestrictedToken: true },
  async handler(ctx) {
    const { value, meta } = await ctx.meter(ctx.query.units ?? 3, async () => {
      if (ctx.query.fail === 'budget') throw new ApiError('REPORT_RESPONSE_TOO_LARGE');
      if (ctx.query.fail === 'crash') throw new Error('engine exploded');
      return { site: ctx.site!.id, tenant: ctx.tenant?.id ?? null };
    });
    const body = { ...value, meta: { request_id: ctx.requestId, ...meta } };
    return ctx.query.fail === 'raw' ? new RawJson(JSON.stringify(body)) : body;
  },
});

async function setup() {
  const h = await harness();
  const ws = await h.workspace('enterprise', { monthly_included_units: 5, hard_cap_units: 10 });
  const site = await h.catalog.createSite({ workspaceId: ws.id, name: 'S', hostnames: ['m.example.com'], collectionProfile: 'strict' });
  const suspended = await h.catalog.createSite({
    workspaceId: ws.id,
    name: 'X',
    hostnames: ['x.example.com'],
    collectionProfile: 'strict',
    status: 'SUSPENDED',
  });
  const tenant = await h.catalog.createTenant({ siteId: site.id, slug: 'a', name: 'A' });
  const app = await buildApp(h.container, { logger: false, routes: [analyticsLike] });
  const t = await h.token(ws.id);
  const checker = await openApiChecker(app);
  const call = async (token: string, qs: string) => {
    const url = `/v1/test/metered?${qs}`;
    const res = await app.inject({ url, headers: { authorization: `Bearer ${token}` } });
    checker.check('GET', url, res);
    return res;
  };
  return { h, app, ws, site, suspended, tenant, t, call };
}

test('metered route: units reserved and committed, meta.usage includes this request, overage flagged, 402 at the cap', async () => {
  const { h, app, ws, site, t, call } = await setup();
  const r1 = await call(t.secret, `site_id=${site.id}&units=4`);
  assert.equal(r1.statusCode, 200);
  assert.deepEqual(r1.json().meta, {
    request_id: r1.headers['x-request-id'],
    units_charged: 4,
    billable_overage: false,
    usage: { used_units: 4, overage_units: 0, included_units: 5, hard_cap_units: 10 },
  });
  const r2 = (await call(t.secret, `site_id=${site.id}&units=4&fail=raw`)).json();
  assert.equal(r2.meta.billable_overage, true);
  assert.deepEqual(r2.meta.usage, { used_units: 8, overage_units: 3, included_units: 5, hard_cap_units: 10 });
  const capped = await call(t.secret, `site_id=${site.id}&units=3`);
  assert.equal(capped.statusCode, 402);
  assert.equal(capped.json().error.code, 'HARD_CAP_REACHED');
  assert.equal(await h.container.ledger.used(ws.id, '2025-06'), 8, 'a 402 records nothing');
  assert.equal((await call(t.secret, `site_id=${site.id}&units=2`)).statusCode, 200, 'exactly up to the cap');
  await app.close();
  await h.close();
});

test('metered route: failures after the reservation release it', async () => {
  const { h, app, ws, site, t, call } = await setup();
  const big = await call(t.secret, `site_id=${site.id}&units=6&fail=budget`);
  assert.equal(big.statusCode, 422);
  assert.equal(big.json().error.code, 'REPORT_RESPONSE_TOO_LARGE');
  assert.equal((await call(t.secret, `site_id=${site.id}&units=6&fail=crash`)).statusCode, 500);
  assert.equal(await h.container.ledger.used(ws.id, '2025-06'), 0);
  assert.equal((await call(t.secret, `site_id=${site.id}&units=10`)).statusCode, 200, 'released units are free again');
  await app.close();
  await h.close();
});

test('site status 409 SITE_INACTIVE comes after access; tenant-restricted tokens must name an allowed tenant', async () => {
  const { h, app, ws, site, suspended, tenant, t, call } = await setup();
  const inactive = await call(t.secret, `site_id=${suspended.id}`);
  assert.equal(inactive.statusCode, 409);
  assert.equal(inactive.json().error.code, 'SITE_INACTIVE');
  const restrictedToOther = await h.token(ws.id, { siteIds: [site.id] });
  assert.equal((await call(restrictedToOther.secret, `site_id=${suspended.id}`)).statusCode, 403, 'access before status');

  const tt = await h.token(ws.id, { tenantIds: [tenant.id] });
  assert.equal((await call(tt.secret, `site_id=${site.id}`)).statusCode, 403, 'tenant_id required');
  assert.equal((await call(tt.secret, `site_id=${site.id}&tenant_id=ten_unknown`)).statusCode, 403);
  const ok = await call(tt.secret, `site_id=${site.id}&tenant_id=${tenant.id}`);
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.json().tenant, tenant.id);
  assert.equal((await call(t.secret, `site_id=${site.id}&tenant_id=${tenant.id}`)).json().tenant, tenant.id);
  await app.close();
  await h.close();
});

test('withMeteredUnits with a fake ledger and run: order of calls and what it returns', async () => {
  const calls: string[] = [];
  let used = 100;
  const ledger = {
    reserve: async (i: { units: number; period: string; included: number; hardCap: number }) => {
      calls.push(`reserve ${i.period} ${i.units} ${i.included} ${i.hardCap}`);
      return used + i.units > i.hardCap ? null : { id: 'rsv_test', workspaceId: 'w', period: i.period, units: i.units };
    },
    commit: async (r: { units: number }) => (calls.push('commit'), (used += r.units)),
    charge: async (i: { units: number; period: string; hardCap: number }) => {
      calls.push(`charge ${i.period} ${i.units} ${i.hardCap}`);
      return used + i.units > i.hardCap ? null : (used += i.units);
    },
    release: async () => void calls.push('release'),
    history: async () => [],
    used: async () => used,
  };
  const ctx = { ledger, workspaceId: 'w', policy: apiPolicyFor('starter'), arrivedAt: new Date('2025-01-31T23:59:59Z') };
  const out = await withMeteredUnits(ctx, 99_950, async () => (calls.push('run'), 'payload'));
  assert.equal(out.value, 'payload');
  assert.deepEqual(out.meta, {
    units_charged: 99_950,
    billable_overage: true,
    usage: { used_units: 100_050, overage_units: 50, included_units: 100_000, hard_cap_units: 250_000 },
  });
  await assert.rejects(
    withMeteredUnits(ctx, 1, async () => {
      calls.push('run');
      throw new Error('x');
    }),
    /x/,
  );
  await assert.rejects(
    withMeteredUnits(ctx, 200_000, async () => 'never'),
    (e: ApiError) => e.code === 'HARD_CAP_REACHED',
  );
  assert.deepEqual(calls, [
    'reserve 2025-01 99950 100000 250000',
    'run',
    'commit',
    'reserve 2025-01 1 100000 250000',
    'run',
    'release',
    'reserve 2025-01 200000 100000 250000',
  ]);
  calls.length = 0;
  assert.deepEqual(await chargeUnits(ctx, 50), {
    units_charged: 50,
    billable_overage: true,
    usage: { used_units: 100_100, overage_units: 100, included_units: 100_000, hard_cap_units: 250_000 },
  });
  await assert.rejects(chargeUnits(ctx, 149_901), (e: ApiError) => e.code === 'HARD_CAP_REACHED');
  assert.equal(used, 100_100, 'a refused charge records nothing');
  assert.deepEqual(calls, ['charge 2025-01 50 250000', 'charge 2025-01 149901 250000']);
});
