// The mistakes a newcomer makes in the first requests, and answers that say what to do: a hostname or a
// slug where an id goes, a date written another way, a `to` in the future, a plan that does not open
// a route.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { metricsHarness, pv, type MetricsHarness } from './metrics-harness.js';

let h: MetricsHarness;
let site: string;
let hostname: string;
const TS = '/v1/metrics/timeseries';

before(async () => {
  h = await metricsHarness(); // today is 2025-06-15 (UTC)
  site = await h.site();
  hostname = (await h.catalog.getSite(site))!.hostnames[0];
  await h.importEvents([pv(site, '2025-06-14T10:00:00Z', '/', 'k1')]);
});
after(() => h.close());

function refused(r: { statusCode: number; json(): any; body: string }, status: number) {
  assert.equal(r.statusCode, status, r.body);
  const { request_id: _id, ...error } = r.json().error;
  return error as { code: string; message: string; details?: Record<string, unknown> };
}

test('a hostname or a slug as site_id: the 403 says what site_id is and where the ids are, the same body as for any site it may not read', async () => {
  const other = await h.workspace('pro');
  const foreign = (
    await h.catalog.createSite({ workspaceId: other.id, name: 'x', hostnames: ['theirs.example'], collectionProfile: 'strict' })
  ).id;
  const bodies = [];
  for (const siteId of [hostname, 'acme', foreign, 'site_Ab3dEf6hIj9kLm2nOp5qRs', 'theirs.example'])
    bodies.push(refused(await h.call(TS, { site_id: siteId }), 403));
  assert.deepEqual(bodies[0], {
    code: 'FORBIDDEN',
    message:
      "The site_id is not a site you may read. site_id is a site's id (site_ and 22 letters and digits), not its hostname; GET /v1/sites lists the sites you may read.",
    details: { parameter: 'site_id' },
  });
  for (const b of bodies) assert.deepEqual(b, bodies[0], 'no caller learns whether a site exists');
  // and /v1/sites does list it, with its hostname next to its id
  const listed = (await h.call('/v1/sites', {})).json().items.find((s: { siteId: string }) => s.siteId === site);
  assert.deepEqual(listed?.hostnames, [hostname]);
});

test("a tenant's slug as tenant_id: the same kind of 403, naming GET /v1/tenants", async () => {
  const tenant = await h.tenant(site, 'north');
  const other = await h.tenant(await h.site(), 'south');
  const bySlug = refused(await h.call(TS, { site_id: site, tenant_id: 'north' }), 403);
  assert.match(
    bySlug.message,
    /tenant_id is a tenant's id \(ten_ and 22 letters and digits\), not its slug; GET \/v1\/tenants\?site_id=… lists/,
  );
  assert.deepEqual(bySlug.details, { parameter: 'tenant_id' });
  assert.deepEqual(refused(await h.call(TS, { site_id: site, tenant_id: other }), 403), bySlug, "another site's tenant: the same body");
  assert.equal((await h.call(TS, { site_id: site, tenant_id: tenant })).statusCode, 200);
});

test('a date written another way: the 422 says how to write it, not a regular expression', async () => {
  for (const [q, parameter] of [
    [{ from: '25/11/2026' }, 'from'],
    [{ to: '2025-6-1' }, 'to'],
  ] as const) {
    const e = refused(await h.call(TS, { site_id: site, ...q }), 422);
    assert.deepEqual(e, {
      code: 'INVALID_PARAMS',
      message: `${parameter} must be a date written YYYY-MM-DD, e.g. 2026-11-25.`,
      details: { parameter },
    });
  }
  const unreal = refused(await h.call(TS, { site_id: site, from: '2025-02-30' }), 422);
  assert.equal(unreal.message, 'from must be a date written YYYY-MM-DD, e.g. 2026-11-25; "2025-02-30" is not a day of the calendar');
  const history = refused(await h.call('/v1/usage/history', { from: '11/2025' }), 422);
  assert.equal(history.message, 'from must be a date written YYYY-MM-DD, e.g. 2026-11-25.');
});

test('to after today means up to now: the range ends today, and its days, units and max_range_days are those of the range served', async () => {
  const r = await h.call(TS, { site_id: site, from: '2025-06-09', to: '2025-12-31' });
  assert.equal(r.statusCode, 200, r.body);
  const body = r.json();
  assert.equal(body.range.end, '2025-06-15T23:59:59.999Z');
  assert.equal(body.current.points.length, 7);
  const same = (await h.call(TS, { site_id: site, from: '2025-06-09', to: '2025-06-15', metric: 'visitors' })).json();
  const later = (await h.call(TS, { site_id: site, from: '2025-06-09', to: '2099-01-01', metric: 'visitors' })).json();
  assert.equal(later.meta.units_charged, same.meta.units_charged, 'charged for the days served');
  // `to` alone in the future: the default from is 6 days before the clamped to
  const alone = (await h.call(TS, { site_id: site, to: '2026-01-01' })).json();
  assert.deepEqual([alone.range.start, alone.range.end], ['2025-06-09T00:00:00.000Z', '2025-06-15T23:59:59.999Z']);
  // a range within max_range_days once clamped is served, however far `to` was
  const starter = await metricsHarness({ plan: 'starter' });
  try {
    const s = await starter.site();
    const ok = await starter.call(TS, { site_id: s, from: '2024-06-01', to: '2030-01-01' });
    assert.equal(ok.statusCode, 200, ok.body);
  } finally {
    await starter.close();
  }
  const future = refused(await h.call(TS, { site_id: site, from: '2025-06-16', to: '2025-06-20' }), 422);
  assert.deepEqual(future, {
    code: 'INVALID_PARAMS',
    message: 'from must not be after today (2025-06-15, UTC)',
    details: { parameter: 'from' },
  });
});

test('a starter token on the reports: the 403 says the plan decides it and what opens it', async () => {
  const starter = await metricsHarness({ plan: 'starter' });
  try {
    const s = await starter.site();
    for (const [path, family] of [
      ['/v1/reports/overview', 'reports'],
      ['/v1/goals', 'goals'],
      ['/v1/tenants', 'tenants'],
    ] as const) {
      const e = refused(await starter.call(path, { site_id: s }), 403);
      assert.equal(
        e.message,
        `The starter plan does not include the ${family} endpoints; upgrade to pro or ask for an enterprise policy with allow_${family}.`,
      );
    }
    const dim = refused(await starter.call('/v1/metrics/breakdown', { site_id: s, dimension: 'tenant' }), 403);
    assert.match(
      dim.message,
      /^The starter plan does not include the tenant dimension \(dimension=tenant\); upgrade to pro or ask for an enterprise policy with allow_tenant_dimension\.$/,
    );
  } finally {
    await starter.close();
  }
  const enterprise = await metricsHarness({ plan: 'enterprise', apiPolicy: { allow_reports: false } });
  try {
    const e = refused(await enterprise.call('/v1/reports/overview', { site_id: await enterprise.site() }), 403);
    assert.equal(
      e.message,
      "This workspace's enterprise API policy does not include the reports endpoints: allow_reports is false; ask for a policy with allow_reports.",
    );
  } finally {
    await enterprise.close();
  }
});
