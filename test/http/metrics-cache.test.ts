// The response cache: hits are billed like misses and flagged; an import makes older entries
// unreachable; the 5 MiB budget (injected smaller here) refuses, charges nothing and never caches.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_RESPONSE_BYTES } from '../../src/services/analytics/budget.js';
import { metricsHarness, pv, type MetricsHarness } from './metrics-harness.js';

let h: MetricsHarness;
let site: string;

before(async () => {
  h = await metricsHarness();
  site = await h.site();
  await h.importEvents([
    pv(site, '2025-06-10T10:00:00Z', '/a', 'k1'),
    pv(site, '2025-06-10T10:01:00Z', '/b', 'k1'),
    pv(site, '2025-06-11T08:00:00Z', '/a', 'k2'),
  ]);
});
after(() => h.close());

const used = async () => (await h.call('/v1/usage/current', {})).json().units_used as number;
const withoutMeta = (b: any) => ({ ...b, meta: undefined });

test('a repeated request is a cache hit: same data, flagged cached, billed again through the ledger', async () => {
  const q = { site_id: site, dimension: 'page', from: '2025-06-09', to: '2025-06-15' };
  const before = await used();
  const first = await h.call('/v1/metrics/breakdown', q);
  const second = await h.call('/v1/metrics/breakdown', q);
  assert.equal(first.statusCode, 200);
  assert.equal(second.statusCode, 200);
  const a = first.json();
  const b = second.json();
  assert.equal(a.meta.surface.dataFreshness.cached, false);
  assert.equal(b.meta.surface.dataFreshness.cached, true);
  assert.ok(b.meta.surface.dataFreshness.notes.some((n: string) => /cache/i.test(n)));
  assert.deepEqual(withoutMeta(b), withoutMeta(a));
  assert.deepEqual(a.current.rows, [
    { key: '/a', value: 2 },
    { key: '/b', value: 1 },
  ]);
  assert.equal(b.meta.units_charged, a.meta.units_charged);
  assert.equal(b.meta.usage.used_units, a.meta.usage.used_units + a.meta.units_charged);
  assert.equal(await used(), before + 2 * a.meta.units_charged);
  assert.notEqual(b.meta.request_id, a.meta.request_id);
});

test('parameters, traffic and tenant scope are part of the key', async () => {
  const base = { site_id: site, from: '2025-06-01', to: '2025-06-12' };
  assert.equal((await h.call('/v1/metrics/timeseries', base)).json().meta.surface.dataFreshness.cached, false);
  for (const q of [
    { ...base, metric: 'visitors' },
    { ...base, traffic: 'all' },
    { ...base, compare: 'prev_period' },
    { ...base, filters: '{"page":"/a"}' },
    { ...base, to: '2025-06-13' },
  ]) {
    const r = await h.call('/v1/metrics/timeseries', q);
    assert.equal(r.json().meta.surface.dataFreshness.cached, false, JSON.stringify(q));
  }
  // the same filters written differently hit the same entry
  const filters = { country: 'DE', page: '/a' };
  await h.call('/v1/metrics/timeseries', { ...base, filters: JSON.stringify(filters) });
  const r = await h.call('/v1/metrics/timeseries', { ...base, filters: JSON.stringify({ page: '/a', country: 'DE' }) });
  assert.equal(r.json().meta.surface.dataFreshness.cached, true);

  const tenant = await h.tenant(site, 'tee');
  const scoped = await h.call('/v1/metrics/timeseries', { ...base, tenant_id: tenant });
  assert.equal(scoped.json().meta.surface.dataFreshness.cached, false);
  assert.equal(scoped.json().current.total, 0, 'the tenant has no events');
});

test('an import makes cached responses unreachable: the next request sees the new events', async () => {
  const q = { site_id: site, from: '2025-06-09', to: '2025-06-15' };
  await h.call('/v1/metrics/timeseries', q);
  const hit = await h.call('/v1/metrics/timeseries', q);
  assert.equal(hit.json().meta.surface.dataFreshness.cached, true);
  assert.equal(hit.json().current.total, 3);

  h.clock.set('2025-06-15T12:30:00.000Z');
  await h.importEvents([pv(site, '2025-06-15T12:20:00Z', '/c', 'k3')]);
  const fresh = await h.call('/v1/metrics/timeseries', q);
  const body = fresh.json();
  assert.equal(body.meta.surface.dataFreshness.cached, false);
  assert.equal(body.current.total, 4);
  assert.deepEqual(body.meta.surface.dataFreshness, {
    status: 'fresh',
    asOf: '2025-06-15T12:20:00.000Z',
    lagMinutes: 10,
    cached: false,
    notes: [],
  });

  // a hit recomputes the lag from the clock
  h.clock.set('2025-06-15T14:20:00.000Z');
  const later = (await h.call('/v1/metrics/timeseries', q)).json().meta.surface.dataFreshness;
  assert.equal(later.cached, true);
  assert.equal(later.status, 'delayed');
  assert.equal(later.lagMinutes, 120);

  // an import of another site leaves this site's entries valid
  const other = await h.site();
  await h.importEvents([pv(other, '2025-06-15T12:00:00Z', '/', 'z')]);
  assert.equal((await h.call('/v1/metrics/timeseries', q)).json().meta.surface.dataFreshness.cached, true);
  // re-importing events already stored adds nothing and changes nothing
  await h.importEvents([pv(site, '2025-06-15T12:20:00Z', '/c', 'k3')]);
  assert.equal((await h.call('/v1/metrics/timeseries', q)).json().meta.surface.dataFreshness.cached, true);
});

test('REPORT_RESPONSE_TOO_LARGE: refused whole, zero units, not cached; a cache hit is checked against the budget too', async () => {
  const analytics = h.container.analytics!;
  assert.equal(analytics.maxResponseBytes ?? MAX_RESPONSE_BYTES, 5_242_880, 'production budget is 5 MiB');
  const q = { site_id: site, from: '2025-03-18', to: '2025-06-15', compare: 'prev_period' };
  const before = await used();
  h.container.analytics = { ...analytics, maxResponseBytes: 4000 };
  try {
    const r = await h.call('/v1/metrics/timeseries', q);
    assert.equal(r.statusCode, 422, r.body);
    const err = r.json().error;
    assert.equal(err.code, 'REPORT_RESPONSE_TOO_LARGE');
    assert.equal(err.details.range_days, 90);
    assert.equal(err.details.max_bytes, 4000);
    assert.equal(err.details.include, 'full');
    assert.ok(err.details.measured_bytes > 4000);
    assert.equal(await used(), before);
  } finally {
    h.container.analytics = analytics;
  }
  const ok = await h.call('/v1/metrics/timeseries', q);
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.json().meta.surface.dataFreshness.cached, false, 'the refused response was not cached');
  const size = Buffer.byteLength(ok.body);
  assert.ok(size > 4000 && size < 40_000);

  // now cached; with a budget between the data and the whole response, the hit is refused as well
  h.container.analytics = { ...analytics, maxResponseBytes: size - 10 };
  try {
    const r = await h.call('/v1/metrics/timeseries', q);
    assert.equal(r.statusCode, 422);
    assert.equal(r.json().error.code, 'REPORT_RESPONSE_TOO_LARGE');
  } finally {
    h.container.analytics = analytics;
  }
  const afterRefusals = await used();
  assert.equal(afterRefusals, before + ok.json().meta.units_charged, 'only the served request was billed');
  const again = await h.call('/v1/metrics/timeseries', q);
  assert.equal(again.json().meta.surface.dataFreshness.cached, true);
  assert.ok(Buffer.byteLength(again.body) <= size + 200);
});

test('notes the process has about the data (the demo still loading) show in dataFreshness, and such responses are not cached', async () => {
  const analytics = h.container.analytics!;
  const q = { site_id: site, dimension: 'referrer', from: '2025-06-02', to: '2025-06-15' };
  analytics.notes = (s) => (s === site ? ['The demo traffic is still loading.'] : []);
  try {
    for (let i = 0; i < 2; i++) {
      const f = (await h.call('/v1/metrics/breakdown', q)).json().meta.surface.dataFreshness;
      assert.equal(f.cached, false);
      assert.ok(f.notes.includes('The demo traffic is still loading.'));
    }
  } finally {
    delete analytics.notes;
  }
  const after = (await h.call('/v1/metrics/breakdown', q)).json().meta.surface.dataFreshness;
  assert.equal(after.cached, false, 'nothing was cached while the notes stood');
  assert.ok(!after.notes.includes('The demo traffic is still loading.'));
  assert.equal((await h.call('/v1/metrics/breakdown', q)).json().meta.surface.dataFreshness.cached, true);
});
