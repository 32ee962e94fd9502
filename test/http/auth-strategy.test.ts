// The way in is a parameter of route registration: the /v1 route definitions served a second time, under
// /dash, behind a small fake session strategy (a header naming the workspace stands in for a session
// cookie). Same numbers as /v1; not metered; the dashboard policy instead of the API policy; the
// strategy's own rate window; kept out of /openapi.json.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { ApiError } from '../../src/domain/errors.js';
import type { AuthStrategy } from '../../src/http/pipeline/auth-strategy.js';
import type { AnyRoute } from '../../src/http/pipeline/define-route.js';
import { analyticsRoutes, platformRoutes } from '../../src/http/v1/index.js';
import { personCaller } from '../../src/services/caller.js';
import { linesFor } from '../unit/reports/reference.js';
import { metricsHarness, type MetricsHarness } from './metrics-harness.js';

const SESSION = 'x-test-session';
const PREFIX = '/dash';
const FROM = '2025-06-10';
const TO = '2025-06-12';

const sessionStrategy: AuthStrategy = {
  name: 'session',
  security: [{ sessionCookie: [] }],
  async admit(request, _reply, { deps }) {
    const id = request.headers[SESSION];
    const workspace = typeof id === 'string' ? await deps.catalog.getWorkspace(id) : null;
    if (!workspace) throw new ApiError('UNAUTHORIZED', 'Sign in to read the dashboard.');
    return { caller: personCaller(workspace), rate: { key: `session:${workspace.id}`, limit: 20, windowMs: 1000 } };
  },
};

/** Every /v1 route, also under /dash behind the session strategy and hidden from /openapi.json. */
const dashboardRoutes: AnyRoute[] = [...platformRoutes, ...analyticsRoutes].map((route) => ({
  ...route,
  register: (app, deps) =>
    void app.register(async (scope) => route.register(scope, deps, { strategy: sessionStrategy, hidden: true }), { prefix: PREFIX }),
}));

let h: MetricsHarness;
let app: FastifyInstance;
let site: string;

before(async () => {
  h = await metricsHarness();
  app = await buildApp(h.container, { logger: false, routes: dashboardRoutes });
  site = await h.site();
  await h.importEvents(linesFor(site));
});
after(async () => {
  await app?.close();
  await h?.close();
});

/** A dashboard read of `workspaceId`; its body is checked against the /v1 operation's documented answer. */
async function dash(
  path: string,
  query: Record<string, string | number>,
  workspaceId: string | null,
  headers: Record<string, string> = {},
) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const url = `${path}${qs ? `?${qs}` : ''}`;
  const res = await app.inject({ url: PREFIX + url, headers: { ...headers, ...(workspaceId ? { [SESSION]: workspaceId } : {}) } });
  if (!String(res.headers['content-type']).startsWith('text/csv')) h.checker.check('GET', url, res);
  return res;
}

function refused(res: LightMyRequestResponse, status: number, code: string): string {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.json().error.code, code);
  return res.json().error.message;
}

const ANALYTICS: [string, Record<string, string>][] = [
  ['/v1/metrics/timeseries', { metric: 'bounce_rate' }],
  ['/v1/metrics/breakdown', { dimension: 'page', metric: 'visitors' }],
  ['/v1/reports/overview', {}],
  ['/v1/reports/content', {}],
  ['/v1/reports/acquisition', {}],
  ['/v1/reports/actions', {}],
  ['/v1/goals/conversions', {}],
];

test('the same route definitions answer the same numbers on both ways in; the dashboard is not metered', async () => {
  for (const [path, extra] of ANALYTICS) {
    const query = { site_id: site, from: FROM, to: TO, compare: 'prev_period', ...extra };
    const api = await h.call(path, query);
    assert.equal(api.statusCode, 200, `${path}: ${api.body}`);
    const used = await h.container.ledger.used(h.ws.id, '2025-06');
    const res = await dash(path, query, h.ws.id);
    assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
    const [a, d] = [api.json(), res.json()];
    for (const member of ['current', 'compare', 'range', 'availability']) assert.deepEqual(d[member], a[member], `${path} ${member}`);
    assert.ok(a.meta.units_charged > 0, path);
    assert.equal(d.meta.units_charged, 0, path);
    assert.deepEqual(d.meta.usage, a.meta.usage, `${path}: the month's usage as it stands, the /v1 request included`);
    assert.equal(await h.container.ledger.used(h.ws.id, '2025-06'), used, `${path}: nothing recorded`);
  }
});

test('a workspace at its hard cap still reads its dashboard: no reservation, no 402, usage as it stands', async () => {
  const ws = await h.workspace('enterprise', { monthly_included_units: 2, hard_cap_units: 4 });
  const token = await h.newToken({ workspaceId: ws.id });
  const s = (await h.catalog.createSite({ workspaceId: ws.id, name: 'capped', hostnames: ['capped.example'], collectionProfile: 'strict' }))
    .id;
  assert.equal((await h.call('/v1/metrics/timeseries', { site_id: s }, { token })).statusCode, 200);
  refused(await h.call('/v1/metrics/timeseries', { site_id: s, metric: 'visitors' }, { token }), 402, 'HARD_CAP_REACHED');
  const res = await dash('/v1/metrics/timeseries', { site_id: s, metric: 'visitors' }, ws.id);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(res.json().meta.usage, { used_units: 4, overage_units: 2, included_units: 2, hard_cap_units: 4 });
  assert.equal(res.json().meta.billable_overage, true);
  assert.equal(res.json().meta.units_charged, 0);
});

test('a free workspace reads its own surfaces; the rest is 403 naming the surface, before any parameter', async () => {
  const free = await h.workspace('free');
  const s = (await h.catalog.createSite({ workspaceId: free.id, name: 'free', hostnames: ['free.example'], collectionProfile: 'strict' }))
    .id;
  for (const path of ['/v1/metrics/timeseries', '/v1/reports/overview', '/v1/reports/content', '/v1/reports/acquisition']) {
    assert.equal((await dash(path, { site_id: s }, free.id)).statusCode, 200, path);
  }
  assert.equal((await dash('/v1/metrics/breakdown', { site_id: s, dimension: 'country' }, free.id)).statusCode, 200);
  for (const path of ['/v1/me', '/v1/sites', '/v1/usage/current', '/v1/usage/history'])
    assert.equal((await dash(path, {}, free.id)).statusCode, 200, path);
  const surfaces: [string, Record<string, string>, string][] = [
    ['/v1/reports/actions', { site_id: s, bogus: '1' }, 'actions'],
    ['/v1/goals/conversions', { site_id: s, bogus: '1' }, 'goals'],
    ['/v1/goals', { site_id: s, bogus: '1' }, 'goals'],
    ['/v1/tenants', { site_id: s, bogus: '1' }, 'tenants'],
    ['/v1/metrics/breakdown', { site_id: s, dimension: 'tenant' }, 'tenants'],
  ];
  for (const [path, query, surface] of surfaces) {
    const message = refused(await dash(path, query, free.id), 403, 'FORBIDDEN');
    assert.ok(message.includes(`${surface} surface`) && /plan/.test(message), `${path}: ${message}`);
  }
  assert.match(refused(await dash('/v1/metrics/timeseries', { site_id: s, interval: 'hour' }, free.id), 403, 'FORBIDDEN'), /hourly/);
  const csv = await dash('/v1/metrics/timeseries', { site_id: s, bogus: '1' }, free.id, { accept: 'text/csv' });
  assert.match(refused(csv, 403, 'FORBIDDEN'), /CSV/);
  // the API policy still refuses a free workspace's token, route by route
  const starter = await h.workspace('starter');
  const token = await h.newToken({ workspaceId: starter.id });
  h.setPlan(starter.id, 'free');
  assert.match(refused(await h.call('/v1/reports/overview', { site_id: s }, { token }), 403, 'FORBIDDEN'), /API access/);
});

test("the dashboard's limits: the plan's retention target as retention and longest range, its row limits", async () => {
  const free = await h.workspace('free');
  const s = (
    await h.catalog.createSite({ workspaceId: free.id, name: 'limits', hostnames: ['limits.example'], collectionProfile: 'strict' })
  ).id;
  // today is 2025-06-15: 60 readable days start on 2025-04-17
  assert.equal((await dash('/v1/metrics/timeseries', { site_id: s, from: '2025-04-17' }, free.id)).statusCode, 200);
  const old = refused(await dash('/v1/metrics/timeseries', { site_id: s, from: '2025-04-16' }, free.id), 422, 'RETENTION_EXCEEDED');
  assert.match(old, /dashboard retention of 60 days/);
  assert.equal((await dash('/v1/metrics/breakdown', { site_id: s, dimension: 'page', limit: 100 }, free.id)).statusCode, 200);
  assert.match(
    refused(await dash('/v1/metrics/breakdown', { site_id: s, dimension: 'page', limit: 101 }, free.id), 422, 'INVALID_PARAMS'),
    /between 1 and 100 \(the plan's dashboard limit\)/,
  );
  refused(await dash('/v1/reports/overview', { site_id: s, limit: 101 }, free.id), 422, 'INVALID_PARAMS');
  // starter: 13 months = 395 days, 500 rows, the hourly interval; its API policy holds the same limits
  const starter = await h.workspace('starter');
  const t = (await h.catalog.createSite({ workspaceId: starter.id, name: 'st', hostnames: ['st.example'], collectionProfile: 'strict' }))
    .id;
  assert.equal((await dash('/v1/metrics/timeseries', { site_id: t, from: '2024-05-17', interval: 'hour' }, starter.id)).statusCode, 200);
  refused(await dash('/v1/metrics/timeseries', { site_id: t, from: '2024-05-16' }, starter.id), 422, 'RETENTION_EXCEEDED');
  assert.equal((await dash('/v1/metrics/breakdown', { site_id: t, dimension: 'page', limit: 500 }, starter.id)).statusCode, 200);
  assert.equal((await dash('/v1/reports/actions', { site_id: t, limit: 500 }, starter.id)).statusCode, 200);
  refused(await dash('/v1/reports/actions', { site_id: t, limit: 501 }, starter.id), 422, 'INVALID_PARAMS');
});

test('a site of another workspace is the same 403 as an unknown one, on the dashboard as on /v1', async () => {
  const other = await h.workspace('pro');
  const foreign = await dash('/v1/metrics/timeseries', { site_id: site }, other.id);
  const unknown = await dash('/v1/metrics/timeseries', { site_id: 'site_unknown' }, other.id);
  refused(foreign, 403, 'FORBIDDEN');
  const strip = (r: LightMyRequestResponse) => ({ ...r.json().error, request_id: null });
  assert.deepEqual(strip(foreign), strip(unknown));
  assert.deepEqual(
    strip(foreign),
    strip(await h.call('/v1/metrics/timeseries', { site_id: site }, { token: await h.newToken({ workspaceId: other.id }) })),
  );
});

test("the strategy's rate window: 20 a second per session, 429 as on /v1; a request without a session is 401 and not counted", async () => {
  const ws = await h.workspace('pro');
  const none = await dash('/v1/me', {}, null);
  assert.match(refused(none, 401, 'UNAUTHORIZED'), /Sign in/);
  assert.equal(none.headers['x-ratelimit-limit'], undefined);
  for (let i = 0; i < 20; i++) {
    const res = await dash('/v1/me', {}, ws.id);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-ratelimit-limit'], '20');
    assert.equal(res.headers['x-ratelimit-remaining'], String(19 - i));
  }
  const limited = await dash('/v1/me', {}, ws.id);
  refused(limited, 429, 'RATE_LIMITED');
  assert.equal(limited.headers['retry-after'], '1');
  assert.equal((await dash('/v1/me', {}, h.ws.id)).statusCode, 200, 'another session has its own window');
  h.clock.advance(1000);
  assert.equal((await dash('/v1/me', {}, ws.id)).statusCode, 200, 'a second later the window has room again');
});

test('routes served another way are kept out of /openapi.json, which is unchanged; their paths answer 405 like /v1', async () => {
  const doc = (await app.inject({ url: '/openapi.json' })).json();
  assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith(PREFIX)), 'no /dash path in the document');
  assert.deepEqual(doc, h.checker.doc);
  for (const path of ['/v1/me', '/v1/reports/overview']) {
    const res = await app.inject({ url: PREFIX + path, method: 'POST', headers: { [SESSION]: h.ws.id } });
    refused(res, 405, 'INVALID_METHOD');
    assert.equal(res.headers.allow, 'GET', path);
  }
});
