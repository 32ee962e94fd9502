// Every error status the spec lists for /v1/metrics/* (401, 402, 403, 409, 422, 429), SITE_INACTIVE
// and the 503 mapping of engine faults, each in the error envelope and charging nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { EngineError } from '../../src/domain/errors.js';
import { nextPeriodStart } from '../../src/domain/periods.js';
import type { AnalyticsEngine } from '../../src/ports/analytics-engine.js';
import { metricsHarness, pv, type MetricsHarness } from './metrics-harness.js';

let h: MetricsHarness;
let site: string;
const TS = '/v1/metrics/timeseries';
const BD = '/v1/metrics/breakdown';

before(async () => {
  h = await metricsHarness();
  site = await h.site();
  await h.importEvents([pv(site, '2025-06-14T10:00:00Z', '/', 'k1')]);
});
after(() => h.close());

function expectError(r: { statusCode: number; json(): any; body: string }, status: number, code: string) {
  assert.equal(r.statusCode, status, r.body);
  assert.equal(r.json().error.code, code, r.body);
  return r.json().error as { code: string; message: string; details?: Record<string, any> };
}

const usedOf = async (m: MetricsHarness, token?: string) => (await m.call('/v1/usage/current', {}, { token })).json().units_used as number;

test('401 without, with a malformed and with a revoked token', async () => {
  expectError(await h.get(`${TS}?site_id=${site}`), 401, 'UNAUTHORIZED');
  expectError(await h.call(TS, { site_id: site }, { token: 'ff_live_nope' }), 401, 'UNAUTHORIZED');
  const { id, secret } = await h.token(h.ws.id);
  await h.catalog.revokeToken(id, new Date().toISOString());
  expectError(await h.call(BD, { site_id: site, dimension: 'page' }, { token: secret }), 401, 'UNAUTHORIZED');
});

test('403: scope, plan, foreign or unknown site (one body), allowlists, tenant dimension off', async () => {
  const usageOnly = await h.newToken({ scopes: ['usage:read'] });
  expectError(await h.call(TS, { site_id: site }, { token: usageOnly }), 403, 'FORBIDDEN');

  const other = await h.workspace('pro');
  const otherSite = (
    await h.catalog.createSite({ workspaceId: other.id, name: 'x', hostnames: ['other-ws.example'], collectionProfile: 'extended' })
  ).id;
  const foreign = expectError(await h.call(TS, { site_id: otherSite }), 403, 'FORBIDDEN');
  const unknown = expectError(await h.call(TS, { site_id: 'site_does_not_exist' }), 403, 'FORBIDDEN');
  const { request_id: _a, ...foreignBody } = foreign as any;
  const { request_id: _b, ...unknownBody } = unknown as any;
  assert.deepEqual(foreignBody, unknownBody, 'no caller learns whether a site exists');

  const second = await h.site();
  const allowOne = await h.newToken({ siteIds: [second] });
  expectError(await h.call(BD, { site_id: site, dimension: 'page' }, { token: allowOne }), 403, 'FORBIDDEN');

  const tenant = await h.tenant(site, 'acme');
  const tenantToken = await h.newToken({ tenantIds: [tenant] });
  expectError(await h.call(TS, { site_id: site }, { token: tenantToken }), 403, 'FORBIDDEN');
  const otherTenant = await h.tenant(second, 'beta');
  expectError(await h.call(TS, { site_id: site, tenant_id: otherTenant }), 403, 'FORBIDDEN');

  const starter = await h.workspace('starter');
  const starterSite = (
    await h.catalog.createSite({ workspaceId: starter.id, name: 's', hostnames: ['starter-ws.example'], collectionProfile: 'extended' })
  ).id;
  const { secret: starterToken } = await h.token(starter.id);
  const e = expectError(await h.call(BD, { site_id: starterSite, dimension: 'tenant' }, { token: starterToken }), 403, 'FORBIDDEN');
  assert.match(e.message, /tenant dimension/);
  const ok = await h.call(TS, { site_id: starterSite, interval: 'hour', from: '2025-06-15', to: '2025-06-15' }, { token: starterToken });
  assert.equal(ok.statusCode, 200, 'hourly is open to starter');

  h.setPlan(starter.id, 'free');
  expectError(await h.call(TS, { site_id: starterSite }, { token: starterToken }), 403, 'FORBIDDEN');
});

test('422 INVALID_PARAMS names the parameter', async () => {
  const cases: [string, Record<string, string | number>, string][] = [
    [TS, {}, 'site_id'],
    [TS, { site_id: site, nope: 1 }, 'nope'],
    [TS, { site_id: site, metric: 'bounces' }, 'metric'],
    [TS, { site_id: site, interval: 'minute' }, 'interval'],
    [TS, { site_id: site, compare: 'yoy' }, 'compare'],
    [TS, { site_id: site, traffic: 'robots' }, 'traffic'],
    [TS, { site_id: site, from: '2025-02-30' }, 'from'],
    [TS, { site_id: site, from: '2025-06-10', to: '2025-06-01' }, 'from'],
    [TS, { site_id: site, from: '2025-06-16' }, 'from'], // after today (a later to means up to now)
    [TS, { site_id: site, filters: '{"page":' }, 'filters'],
    [TS, { site_id: site, filters: '["page"]' }, 'filters'],
    [TS, { site_id: site, filters: '{"colour":"red"}' }, 'filters'],
    [TS, { site_id: site, filters: '{"page":1}' }, 'filters'],
    [TS, { site_id: site, filters: '{"tenant":"t"}' }, 'filters'],
    [BD, { site_id: site }, 'dimension'],
    [BD, { site_id: site, dimension: 'planet' }, 'dimension'],
    [BD, { site_id: site, dimension: 'page', limit: 0 }, 'limit'],
    [BD, { site_id: site, dimension: 'page', limit: 2001 }, 'limit'],
    [BD, { site_id: site, dimension: 'page', limit: 'ten' }, 'limit'],
  ];
  for (const [path, q, parameter] of cases) {
    const e = expectError(await h.call(path, q), 422, 'INVALID_PARAMS');
    assert.equal(e.details?.parameter, parameter, `${path} ${JSON.stringify(q)}: ${e.message}`);
  }
  const e = expectError(await h.get(`${TS}?site_id=${site}&metric=pageviews&metric=events`, { token: h.secret }), 422, 'INVALID_PARAMS');
  assert.equal(e.details?.parameter, 'metric');
  assert.equal(await usedOf(h), 0, 'rejected requests cost nothing');
});

test('422 RETENTION_EXCEEDED with min_allowed_from, checked before max_range_days and for the compare window', async () => {
  const m = await metricsHarness({ plan: 'starter' });
  try {
    const s = await m.site();
    // starter: 395 days of API retention; today 2025-06-15 -> oldest allowed day 2024-05-17
    let e = expectError(await m.call(TS, { site_id: s, from: '2024-05-16', to: '2024-05-20' }), 422, 'RETENTION_EXCEEDED');
    assert.deepEqual(e.details, { min_allowed_from: '2024-05-17' });
    e = expectError(await m.call(TS, { site_id: s, from: '2023-01-01' }), 422, 'RETENTION_EXCEEDED');
    e = expectError(
      await m.call(TS, { site_id: s, from: '2024-05-17', to: '2024-05-20', compare: 'prev_period' }),
      422,
      'RETENTION_EXCEEDED',
    );
    assert.equal(e.details?.min_allowed_from, '2024-05-17');
    const ok = await m.call(TS, { site_id: s, from: '2024-05-17', to: '2024-05-20' });
    assert.equal(ok.statusCode, 200);
    expectError(await m.call(BD, { site_id: s, dimension: 'page', limit: 501 }), 422, 'INVALID_PARAMS');
  } finally {
    await m.close();
  }
  const narrow = await metricsHarness({ plan: 'enterprise', apiPolicy: { max_range_days: 10, retention_days: null } });
  try {
    const s = await narrow.site();
    const e = expectError(await narrow.call(TS, { site_id: s, from: '2025-06-01', to: '2025-06-15' }), 422, 'INVALID_PARAMS');
    assert.equal(e.details?.parameter, 'from');
    assert.equal((await narrow.call(TS, { site_id: s, from: '2025-06-06', to: '2025-06-15' })).statusCode, 200);
    assert.equal((await narrow.call(TS, { site_id: s, from: '2020-01-01', to: '2020-01-10' })).statusCode, 200, 'no retention limit');
  } finally {
    await narrow.close();
  }
});

test('402 HARD_CAP_REACHED once a request would pass the cap; overage before it is flagged, not refused', async () => {
  const m = await metricsHarness({ plan: 'enterprise', apiPolicy: { monthly_included_units: 5, hard_cap_units: 10 } });
  try {
    const s = await m.site();
    let r = await m.call(TS, { site_id: s });
    assert.deepEqual(r.json().meta.usage, { used_units: 4, overage_units: 0, included_units: 5, hard_cap_units: 10 });
    assert.equal(r.json().meta.billable_overage, false);
    r = await m.call(TS, { site_id: s });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json().meta.usage, { used_units: 8, overage_units: 3, included_units: 5, hard_cap_units: 10 });
    assert.equal(r.json().meta.billable_overage, true);
    assert.equal(r.json().meta.surface.dataFreshness.cached, true, 'the repeat is a cache hit, charged in one ledger step');
    // a hit over the cap, then a miss: each says how far the month got, the cap, the request's units and when it resets
    const resetAt = nextPeriodStart(m.clock.now()).toISOString();
    const hit = expectError(await m.call(TS, { site_id: s }), 402, 'HARD_CAP_REACHED');
    assert.deepEqual(hit.details, { used_units: 8, hard_cap_units: 10, requested_units: 4, reset_at: resetAt });
    assert.equal(
      hit.message,
      `The workspace has used 8 of its hard cap of 10 units this month (UTC) and this request needs 4; the count starts again at ${resetAt}. ` +
        "GET /v1/usage/current shows the month's usage.",
    );
    const miss = expectError(await m.call(BD, { site_id: s, dimension: 'page' }), 402, 'HARD_CAP_REACHED');
    assert.deepEqual(miss.details, { used_units: 8, hard_cap_units: 10, requested_units: 16, reset_at: resetAt });
    assert.equal(await usedOf(m), 8, 'a refused request records nothing');
    r = await m.call(TS, { site_id: s, metric: 'events' });
    assert.equal(r.statusCode, 200, 'a cheaper request still fits: 8 + 2 = 10');
    assert.equal(r.json().meta.usage.used_units, 10);
  } finally {
    await m.close();
  }
});

test('409 SITE_INACTIVE for a suspended site, before any range check', async () => {
  const suspended = await h.site({ status: 'SUSPENDED' });
  expectError(await h.call(TS, { site_id: suspended, from: '2019-01-01' }), 409, 'SITE_INACTIVE');
  expectError(await h.call(BD, { site_id: suspended, dimension: 'page' }), 409, 'SITE_INACTIVE');
});

test('429 RATE_LIMITED with its headers and retry_after_seconds; every authenticated request counts', async () => {
  const m = await metricsHarness({ plan: 'enterprise', apiPolicy: { rate_limit_rps: 1 } });
  try {
    const s = await m.site();
    for (let i = 0; i < 59; i++) assert.equal((await m.call(TS, { site_id: s, bogus: i })).statusCode, 422);
    assert.equal((await m.call(TS, { site_id: s })).statusCode, 200);
    const r = await m.call(BD, { site_id: s, dimension: 'page' });
    const e = expectError(r, 429, 'RATE_LIMITED');
    assert.equal(r.headers['x-ratelimit-limit'], '60');
    assert.equal(r.headers['x-ratelimit-remaining'], '0');
    assert.ok(Number(r.headers['x-ratelimit-reset']) > 0);
    assert.ok((e.details?.retry_after_seconds as number) >= 1);
  } finally {
    await m.close();
  }
});

/** The real engine, but its QuerySpec reads answer with `run`. */
function faulty(run: AnalyticsEngine['run']): AnalyticsEngine {
  const real = h.container.analytics!.engine;
  return Object.assign(Object.create(real) as AnalyticsEngine, { run });
}

test('503: engine timeouts and outages map to ANALYTICS_DB_TIMEOUT / UNAVAILABLE and charge nothing', async () => {
  const analytics = h.container.analytics!;
  const before = await usedOf(h);
  try {
    h.container.analytics = {
      ...analytics,
      engine: faulty(async () => {
        throw new EngineError('timeout');
      }),
    };
    expectError(await h.call(TS, { site_id: site, from: '2025-06-01', to: '2025-06-03' }), 503, 'ANALYTICS_DB_TIMEOUT');
    h.container.analytics = {
      ...analytics,
      engine: faulty(async () => {
        throw new EngineError('unavailable', new Error('disk gone'));
      }),
    };
    expectError(
      await h.call(BD, { site_id: site, dimension: 'page', from: '2025-06-01', to: '2025-06-03' }),
      503,
      'ANALYTICS_DB_UNAVAILABLE',
    );
    // an engine that never answers is cut off by the configured query timeout
    h.container.analytics = { ...analytics, engine: faulty(() => new Promise(() => undefined)) };
    const config = h.container.config;
    h.container.config = { ...config, queryTimeoutMs: 30 };
    try {
      expectError(await h.call(TS, { site_id: site, from: '2025-06-01', to: '2025-06-04' }), 503, 'ANALYTICS_DB_TIMEOUT');
    } finally {
      h.container.config = config;
    }
    // an unexpected fault is a 500 with the fixed message, also free
    h.container.analytics = {
      ...analytics,
      engine: faulty(async () => {
        throw new Error('Binder Error: column x');
      }),
    };
    const e = expectError(await h.call(TS, { site_id: site, from: '2025-06-01', to: '2025-06-05' }), 500, 'INTERNAL_ERROR');
    assert.doesNotMatch(e.message, /Binder/);
  } finally {
    h.container.analytics = analytics;
  }
  assert.equal(await usedOf(h), before);
  const r = await h.call(TS, { site_id: site, from: '2025-06-01', to: '2025-06-03' });
  assert.equal(r.statusCode, 200, 'the failures cached nothing');
  assert.equal(r.json().meta.surface.dataFreshness.cached, false);
});

test('without an analytics store the routes answer 503 ANALYTICS_DB_UNAVAILABLE', async () => {
  const analytics = h.container.analytics;
  h.container.analytics = undefined;
  try {
    expectError(await h.call(TS, { site_id: site }), 503, 'ANALYTICS_DB_UNAVAILABLE');
  } finally {
    h.container.analytics = analytics;
  }
});
