// The data lifecycle through the HTTP surfaces (docs/product.md §10): events in the management API's usage,
// deleting a site after typing its name, and what a deleted site's id answers afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metricsHarness, pv } from './metrics-harness.js';
import { checked, person } from './helpers/app-api.js';

test('usage carries events used against the plan; deleting a site is for owners and needs its name, then its id answers like an unknown one', async () => {
  const h = await metricsHarness({ plan: 'pro' });
  try {
    const ws = h.ws.id;
    const site = await h.site();
    const kept = await h.site();
    await h.importEvents([
      pv(site, '2025-06-10T10:00:00Z', '/a', 'k1'),
      pv(site, '2025-06-11T10:00:00Z', '/b', 'k2'),
      pv(kept, '2025-06-12T10:00:00Z', '/a', 'k3'),
      pv(site, '2025-05-30T10:00:00Z', '/a', 'k1'), // another month
    ]);
    const admin = await person(h, { workspaceId: ws, role: 'admin' });
    const owner = await person(h, { workspaceId: ws, role: 'owner' });
    const usage = async () => (await checked(h, admin, 'GET', `/app/api/workspaces/${ws}/usage`)).json();
    const u = await usage();
    assert.deepEqual([u.period, u.events_used, u.events_included, u.events_overage], ['2025-06', 3, 1_000_000, 0]);
    assert.equal(typeof u.units_used, 'number');

    const restricted = await h.newToken({ siteIds: [site] });
    const q = { site_id: site, from: '2025-06-01', to: '2025-06-15' };
    assert.equal((await h.call('/v1/metrics/timeseries', q)).statusCode, 200);

    const { name, hostnames } = (await h.catalog.getSite(site))!;
    // owners only: an admin, with the right name, deletes nothing
    const byAdmin = await checked(h, admin, 'DELETE', `/app/api/sites/${site}`, { body: { name } });
    assert.deepEqual([byAdmin.statusCode, byAdmin.json().error.code], [403, 'FORBIDDEN']);
    assert.ok(await h.catalog.getSite(site), 'nothing deleted by an admin');
    const wrong = await checked(h, owner, 'DELETE', `/app/api/sites/${site}`, { body: { name: `${name}!` } });
    assert.equal(wrong.statusCode, 422);
    assert.deepEqual([wrong.json().error.code, wrong.json().error.details], ['INVALID_PARAMS', { field: 'name' }]);
    assert.ok(await h.catalog.getSite(site), 'nothing deleted without the name');

    const done = await checked(h, owner, 'DELETE', `/app/api/sites/${site}`, { body: { name } });
    assert.equal(done.statusCode, 200);
    assert.deepEqual(done.json(), { site_id: site, events_removed: 3, days_removed: 3 });

    // /v1: the same answer as for an id that never existed, for the workspace's token and the restricted one
    const unknown = await h.call('/v1/metrics/timeseries', { ...q, site_id: 'site_does_not_exist' });
    const gone = await h.call('/v1/metrics/timeseries', q);
    assert.deepEqual([gone.statusCode, gone.json().error.code], [unknown.statusCode, unknown.json().error.code]);
    assert.equal(gone.statusCode, 403);
    assert.equal((await h.call('/v1/metrics/timeseries', q, { token: restricted })).statusCode, 403);
    const sites = await h.call('/v1/sites', {}, { token: restricted });
    assert.deepEqual([sites.statusCode, sites.json().items], [200, []], 'a token restricted to it reads no site');
    // management API: not there
    assert.equal((await checked(h, admin, 'PATCH', `/app/api/sites/${site}`, { body: { name: 'X' } })).statusCode, 404);
    assert.equal((await checked(h, owner, 'DELETE', `/app/api/sites/${site}`, { body: { name } })).statusCode, 404);
    // its hostnames are free, its events gone from the counts, the other site's kept
    const again = await checked(h, admin, 'POST', `/app/api/workspaces/${ws}/sites`, {
      body: { name: 'Again', hostnames, collection_profile: 'strict' },
    });
    assert.equal(again.statusCode, 201);
    assert.equal((await usage()).events_used, 1);
    assert.equal((await h.call('/v1/metrics/timeseries', { ...q, site_id: kept })).statusCode, 200);
    assert.equal((await h.container.events.siteCoverage(site)).events, 0);
  } finally {
    await h.close();
  }
});

test('a viewer may not delete a site, and the name check comes after the role', async () => {
  const h = await metricsHarness({ plan: 'pro' });
  try {
    const site = await h.site();
    const viewer = await person(h, { workspaceId: h.ws.id, role: 'viewer' });
    const r = await checked(h, viewer, 'DELETE', `/app/api/sites/${site}`, { body: { name: 'wrong' } });
    assert.equal(r.statusCode, 403);
    assert.ok(await h.catalog.getSite(site));
  } finally {
    await h.close();
  }
});

test('live collection counts in the allowance and never stops past it (enterprise max_events_per_month)', async () => {
  const { collectHarness, pageview } = await import('./helpers/collect.js');
  const { eventUsage } = await import('../../src/services/lifecycle/event-usage.js');
  const h = await collectHarness({ now: '2025-06-15T10:00:00.000Z', apiPolicy: { max_events_per_month: 2 } });
  try {
    const ws = (await h.catalog.getSite(h.siteId))!.workspaceId;
    for (const p of ['/a', '/b', '/c'])
      assert.equal((await h.post(pageview(`https://live.example${p}`))).statusCode, 202, 'accepted past the allowance');
    await h.flush();
    const u = await eventUsage({ catalog: h.catalog, ledger: h.container.ledger, store: h.container.events, clock: h.clock }, ws);
    assert.deepEqual([u.period, u.events_used, u.events_included, u.events_overage], ['2025-06', 3, 2, 1]);
    assert.equal((await h.read('/v1/reports/overview')).current.overview.totals.pageviews, 3);
  } finally {
    await h.close();
  }
});
