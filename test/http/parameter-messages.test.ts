// What a newcomer reads when a parameter is wrong: enum errors list the allowed values, the filter
// error's allowed list names only dimensions that can be filtered on, a tenant-restricted token
// without tenant_id is told tenant_id is required, and integers are plain decimal digits.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { metricsHarness, type MetricsHarness } from './metrics-harness.js';

// The contract's lists (docs/api.md, docs/metrics.md), written out: a value added or dropped in the
// code must be added or dropped here too.
const TIMESERIES_METRICS = [
  'pageviews',
  'visitors',
  'sessions',
  'events',
  'bounce_rate',
  'avg_pages_per_session',
  'avg_session_eng_time_ms',
];
const DIMENSIONS = [
  'page',
  'entry_page',
  'exit_page',
  'referrer',
  'channel',
  'source',
  'medium',
  'campaign',
  'country',
  'region',
  'city',
  'device',
  'browser',
  'os',
  'tenant',
];

let h: MetricsHarness;
let site: string;
const TS = '/v1/metrics/timeseries';
const BD = '/v1/metrics/breakdown';

before(async () => {
  h = await metricsHarness();
  site = await h.site();
});
after(() => h.close());

function error(r: { statusCode: number; json(): any; body: string }, status: number) {
  assert.equal(r.statusCode, status, r.body);
  return r.json().error as { code: string; message: string; details?: Record<string, any> };
}

test('an enum error lists the allowed values in the message and in details.allowed', async () => {
  const metric = error(await h.call(TS, { site_id: site, metric: 'bounces' }), 422);
  assert.equal(
    metric.message,
    'Invalid query parameter metric: must be one of pageviews, visitors, sessions, events, bounce_rate, avg_pages_per_session, avg_session_eng_time_ms.',
  );
  assert.deepEqual(metric.details, { parameter: 'metric', allowed: TIMESERIES_METRICS });
  const dimension = error(await h.call(BD, { site_id: site, dimension: 'planet' }), 422);
  assert.deepEqual(dimension.details?.allowed, DIMENSIONS);
  assert.equal(
    dimension.message,
    'Invalid query parameter dimension: must be one of page, entry_page, exit_page, referrer, channel, source, medium, campaign, country, region, city, device, browser, os, tenant.',
  );
  const include = error(await h.call('/v1/reports/content', { site_id: site, include: 'everything' }), 422);
  assert.deepEqual(include.details?.allowed, ['summary', 'full', 'details']);
});

test('the filters error names the dimensions that can be filtered on, and tenant is not one of them', async () => {
  const unknown = error(await h.call(TS, { site_id: site, filters: '{"colour":"red"}' }), 422);
  const allowed: string[] = unknown.details?.allowed;
  assert.ok(allowed.includes('page') && allowed.includes('country'));
  assert.ok(!allowed.includes('tenant'), 'tenant is refused as a filter, so it is not offered');
  assert.deepEqual(allowed, [
    'page',
    'entry_page',
    'exit_page',
    'referrer',
    'channel',
    'source',
    'medium',
    'campaign',
    'country',
    'region',
    'city',
    'device',
    'browser',
    'os',
  ]);
  assert.match(unknown.message, /unknown dimension "colour"; allowed: page, /);
  assert.doesNotMatch(unknown.message, /tenant/);
  const tenant = error(await h.call(TS, { site_id: site, filters: '{"tenant":"t"}' }), 422);
  assert.match(tenant.message, /tenant is not a filter dimension; pass tenant_id/);
  assert.deepEqual(tenant.details, { parameter: 'filters', dimension: 'tenant' });
});

test('a tenant-restricted token without tenant_id gets a 403 that says tenant_id is required', async () => {
  const tenant = await h.tenant(site, 'acme');
  const restricted = await h.newToken({ tenantIds: [tenant] });
  for (const [path, q] of [
    [TS, { site_id: site }],
    [BD, { site_id: site, dimension: 'page' }],
    ['/v1/reports/content', { site_id: site }],
  ] as const) {
    const e = error(await h.call(path, q, { token: restricted }), 403);
    assert.equal(e.code, 'FORBIDDEN');
    assert.match(e.message, /tenant_id is required/, path);
    assert.deepEqual(e.details, { parameter: 'tenant_id' });
  }
  // A tenant it may not read still gets the one FORBIDDEN body that reveals nothing.
  const other = await h.tenant(await h.site(), 'other');
  const foreign = error(await h.call(TS, { site_id: site, tenant_id: other }, { token: restricted }), 403);
  assert.equal(
    foreign.message,
    "The tenant_id is not a tenant of this site you may read. tenant_id is a tenant's id (ten_ and 22 letters and digits), not its slug; GET /v1/tenants?site_id=… lists the tenants you may read.",
  );
  assert.deepEqual(foreign.details, { parameter: 'tenant_id' });
  assert.equal((await h.call(TS, { site_id: site, tenant_id: tenant }, { token: restricted })).statusCode, 200);
});

test('integer parameters accept only plain decimal digits', async () => {
  for (const limit of ['1e3', '0x10', ' 10', '10.0', '+10', '-1', '', '１０', '10 ']) {
    const e = error(await h.get(`${BD}?site_id=${site}&dimension=page&limit=${encodeURIComponent(limit)}`, { token: h.secret }), 422);
    assert.equal(e.code, 'INVALID_PARAMS', limit);
    assert.deepEqual(e.details, { parameter: 'limit' }, JSON.stringify(limit));
    assert.match(e.message, /decimal digits/);
  }
  const rep = error(await h.get(`/v1/reports/overview?site_id=${site}&limit=0x10`, { token: h.secret }), 422);
  assert.equal(rep.details?.parameter, 'limit');
  for (const limit of ['10', '010', '500']) {
    const r = await h.get(`${BD}?site_id=${site}&dimension=page&limit=${limit}`, { token: h.secret });
    assert.equal(r.statusCode, 200, `${limit}: ${r.body}`);
  }
});
