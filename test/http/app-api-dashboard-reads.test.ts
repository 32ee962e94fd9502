// The dashboard's reads under /app/api/v1 with the session cookie: the /v1 routes that name a site,
// answering what /v1 answers (checked against /v1's document), not metered, under the plan's dashboard
// rules; a site the person may not see answers as /v1 answers a site the token may not read; one rate
// window per session for the whole of /app/api; and the frame's reads: a site with the plan's dashboard
// rules, and its current visitors.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { pv, type MetricsHarness } from './metrics-harness.js';
import { call, checked as checkedNow, person, sessionCookieOf, signIn, viewerOfReferenceSite, type Person } from './helpers/app-api.js';

const FROM = '2025-06-10';
const TO = '2025-06-12';

let h: MetricsHarness;
let site: string;
let viewer: Person;

before(async () => {
  ({ h, site, viewer } = await viewerOfReferenceSite());
});
after(() => h?.close());

const qs = (query: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();

/**
 * The clock stands still in these tests: each request moves it 60 ms on, so the sessions' windows of 100
 * requests in 5 seconds see a pace they allow (the budget test moves it itself).
 */
let pace = true;
const tick = () => pace && h.clock.advance(60);

function checked(...args: Parameters<typeof checkedNow>) {
  tick();
  return checkedNow(...args);
}

/** A dashboard read as `who`; its answer checked against the /v1 operation's documented one. */
async function dash(
  who: Person | null,
  path: string,
  query: Record<string, string | number>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  tick();
  const url = `${path}?${qs(query)}`;
  const res = await call(h, who, 'GET', `/app/api${url}`, { headers });
  if (!String(res.headers['content-type']).startsWith('text/csv')) h.checker.check('GET', url, res);
  return res;
}

function refusal(res: LightMyRequestResponse, status: number) {
  assert.equal(res.statusCode, status, res.body);
  const { code, message, details } = res.json().error;
  return { code, message, details };
}

const ANALYTICS: [string, Record<string, string>][] = [
  ['/v1/metrics/timeseries', { metric: 'avg_session_eng_time_ms' }],
  ['/v1/metrics/breakdown', { dimension: 'country', metric: 'visitors' }],
  ['/v1/reports/overview', {}],
  ['/v1/reports/content', {}],
  ['/v1/reports/acquisition', {}],
  ['/v1/reports/actions', {}],
  ['/v1/goals/conversions', {}],
];

test("a viewer reads the site's numbers under /app/api/v1: /v1's answer, not metered, the month's usage as it stands", async () => {
  for (const [path, extra] of ANALYTICS) {
    const query = { site_id: site, from: FROM, to: TO, compare: 'prev_period', ...extra };
    const api = await h.call(path, query);
    assert.equal(api.statusCode, 200, `${path}: ${api.body}`);
    const used = await h.container.ledger.used(h.ws.id, '2025-06');
    const res = await dash(viewer, path, query);
    assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
    const [a, d] = [api.json(), res.json()];
    for (const member of ['current', 'compare', 'range', 'availability']) assert.deepEqual(d[member], a[member], `${path} ${member}`);
    assert.equal(d.meta.units_charged, 0, path);
    assert.equal(await h.container.ledger.used(h.ws.id, '2025-06'), used, `${path}: nothing recorded`);
    assert.equal(res.headers['x-ratelimit-limit'], '100', `${path}: the session's window`);
  }
  const tenant = await h.tenant(site, 'north', 'North');
  await h.catalog.createGoal({ siteId: site, name: 'Pricing', type: 'PAGEVIEW_MATCH', intent: 'lead', pattern: '/pricing', filters: {} });
  for (const path of ['/v1/tenants', '/v1/goals']) {
    const api = await h.call(path, { site_id: site });
    const res = await dash(viewer, path, { site_id: site });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), api.json(), path);
  }
  assert.deepEqual(
    (await dash(viewer, '/v1/tenants', { site_id: site })).json().items.map((t: { tenant_id: string }) => t.tenant_id),
    [tenant],
  );
  // CSV: the same bytes as /v1's
  const csvQuery = { site_id: site, from: FROM, to: TO, dimension: 'page', metric: 'visitors' };
  const apiCsv = await h.get(`/v1/metrics/breakdown?${qs(csvQuery)}`, { token: h.secret, headers: { accept: 'text/csv' } });
  const csv = await dash(viewer, '/v1/metrics/breakdown', csvQuery, { accept: 'text/csv' });
  assert.equal(csv.statusCode, 200, csv.body);
  assert.match(String(csv.headers['content-type']), /^text\/csv/);
  assert.equal(csv.body, apiCsv.body);
});

test('a site of another workspace, or none at all, answers exactly as /v1 answers a site the token may not read; parameters are checked first, as on /v1', async () => {
  const other = await h.workspace('pro');
  const foreign = (
    await h.catalog.createSite({ workspaceId: other.id, name: 'theirs', hostnames: ['theirs.example'], collectionProfile: 'extended' })
  ).id;
  const stranger = await person(h, { workspaceId: other.id, role: 'owner' });
  for (const [path, extra] of [...ANALYTICS, ['/v1/tenants', {}], ['/v1/goals', {}]] as [string, Record<string, string>][]) {
    const dated: Record<string, string> = path === '/v1/tenants' || path === '/v1/goals' ? {} : { from: FROM, to: TO };
    const api = refusal(await h.call(path, { site_id: foreign, ...dated, ...extra }), 403);
    assert.equal(api.code, 'FORBIDDEN');
    assert.deepEqual(
      refusal(await dash(viewer, path, { site_id: foreign, ...dated, ...extra }), 403),
      api,
      `${path}: another workspace's site`,
    );
    assert.deepEqual(
      refusal(await dash(viewer, path, { site_id: 'site_unknown', ...dated, ...extra }), 403),
      api,
      `${path}: an unknown site`,
    );
    assert.deepEqual(
      refusal(await dash(stranger, path, { site_id: site, ...dated, ...extra }), 403),
      api,
      `${path}: a person of another workspace`,
    );
    // what /v1 refuses before the site, the dashboard refuses the same way
    const bogus = refusal(await h.call(path, { site_id: foreign, bogus: '1' }), 422);
    assert.deepEqual(refusal(await dash(viewer, path, { site_id: foreign, bogus: '1' }), 422), bogus, `${path}: an unknown parameter`);
    assert.deepEqual(refusal(await dash(viewer, path, {}), 422), refusal(await h.call(path, {}), 422), `${path}: no site_id`);
  }
});

test('without a session, or with an ended one, every read is 401 in the read API envelope; sign-out ends it at once', async () => {
  const p = await person(h, { workspaceId: h.ws.id, role: 'admin' });
  for (const [path] of ANALYTICS) {
    const none = await dash(null, path, { site_id: site });
    assert.equal(refusal(none, 401).code, 'UNAUTHORIZED');
    const unknown = await call(h, null, 'GET', `/app/api${path}?site_id=${site}`, {
      headers: { cookie: `footfall_session=${'A'.repeat(43)}` },
    });
    assert.equal(refusal(unknown, 401).code, 'UNAUTHORIZED');
  }
  assert.equal((await dash(p, '/v1/reports/overview', { site_id: site })).statusCode, 200);
  assert.equal((await call(h, p, 'DELETE', '/app/api/session')).statusCode, 204);
  assert.equal(refusal(await dash(p, '/v1/reports/overview', { site_id: site }), 401).code, 'UNAUTHORIZED');
});

test('one budget per session for the whole of /app/api: 100 requests in 5 seconds, then 429 on reads and management routes alike', async () => {
  const p = await person(h, { workspaceId: h.ws.id, role: 'viewer' });
  pace = false;
  for (let i = 0; i < 50; i++) assert.equal((await call(h, p, 'GET', '/app/api/session')).statusCode, 200);
  for (let i = 0; i < 50; i++) assert.equal((await dash(p, '/v1/tenants', { site_id: site })).statusCode, 200, `read ${i + 1}`);
  const read = await dash(p, '/v1/metrics/timeseries', { site_id: site });
  assert.equal(refusal(read, 429).code, 'RATE_LIMITED');
  assert.ok(Number(read.headers['retry-after']) >= 1);
  assert.equal(read.headers['x-ratelimit-remaining'], '0');
  assert.equal((await call(h, p, 'GET', '/app/api/session')).statusCode, 429);
  // another session of the same person has its own window
  const again = await signIn(h, p.email);
  assert.equal(
    (await dash({ ...p, cookie: sessionCookieOf(again)!, csrf: again.json().csrf_token }, '/v1/tenants', { site_id: site })).statusCode,
    200,
  );
  h.clock.advance(5_000);
  assert.equal((await dash(p, '/v1/tenants', { site_id: site })).statusCode, 200, '5 s later the window has room');
  pace = true;
});

test("the plan's dashboard rules: a free workspace reads its surfaces, the rest is 403 in words; GET /app/api/sites/{id} and /workspaces/{id} say which", async () => {
  const free = await h.workspace('free');
  const s = (
    await h.catalog.createSite({ workspaceId: free.id, name: 'Free site', hostnames: ['free-site.example'], collectionProfile: 'strict' })
  ).id;
  const owner = await person(h, { workspaceId: free.id, role: 'owner' });
  for (const path of ['/v1/metrics/timeseries', '/v1/reports/overview', '/v1/reports/content', '/v1/reports/acquisition']) {
    assert.equal((await dash(owner, path, { site_id: s })).statusCode, 200, path);
  }
  for (const [path, surface] of [
    ['/v1/reports/actions', 'actions'],
    ['/v1/goals/conversions', 'goals'],
    ['/v1/goals', 'goals'],
    ['/v1/tenants', 'tenants'],
  ]) {
    const r = refusal(await dash(owner, path, { site_id: s }), 403);
    assert.match(r.message, new RegExp(`${surface} surface`), path);
  }
  assert.match(refusal(await dash(owner, '/v1/metrics/timeseries', { site_id: s }, { accept: 'text/csv' }), 403).message, /CSV/);
  const frame = await checked(h, owner, 'GET', `/app/api/sites/${s}`);
  assert.equal(frame.statusCode, 200, frame.body);
  assert.deepEqual(frame.json().dashboard, {
    surfaces: ['overview', 'content', 'acquisition'],
    hourly: false,
    csv: false,
    retention_days: 60,
    max_range_days: 60,
    row_limit: 100,
  });
  assert.deepEqual(frame.json().workspace, { workspace_id: free.id, name: free.name, plan: 'free', role: 'owner' });
  assert.equal(frame.json().site.name, 'Free site');
  assert.equal(frame.json().tracker_script_url, `${h.container.config.publicUrl}/js/script.js`);
  const pro = await checked(h, viewer, 'GET', `/app/api/sites/${site}`);
  assert.deepEqual(pro.json().dashboard, {
    surfaces: ['overview', 'content', 'acquisition', 'actions', 'goals', 'tenants'],
    hourly: true,
    csv: true,
    retention_days: 730,
    max_range_days: 730,
    row_limit: 2000,
  });
  assert.equal(pro.json().workspace.role, 'viewer');
  assert.equal((await checked(h, owner, 'GET', `/app/api/sites/${site}`)).statusCode, 404, 'a site of another workspace is unknown');
  const ws = await checked(h, owner, 'GET', `/app/api/workspaces/${free.id}`);
  assert.deepEqual(ws.json(), {
    workspace: frame.json().workspace,
    dashboard: frame.json().dashboard,
    plan: { api_tokens: false, max_users: 1, max_sites: 3 },
  });
  assert.deepEqual((await checked(h, viewer, 'GET', `/app/api/workspaces/${h.ws.id}`)).json().plan, {
    api_tokens: true,
    max_users: 10,
    max_sites: 50,
  });
});

test('current visitors: distinct human visitors of the last five minutes, and the newest stored event; none yet is null', async () => {
  const live = await h.site();
  const empty = await checked(h, viewer, 'GET', `/app/api/sites/${live}/live`);
  assert.equal(empty.statusCode, 200, empty.body);
  assert.deepEqual(empty.json(), { visitors: 0, last_event_at: null });
  const now = h.clock.now().getTime();
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
  await h.importEvents([
    pv(live, at(1), '/', 'a'),
    pv(live, at(2), '/pricing', 'a'),
    pv(live, at(4), '/', 'b'),
    pv(live, at(3), '/', 'bot', { traffic_class: 'bot' }),
    pv(live, at(6), '/', 'c'),
    pv(live, at(30), '/', 'd'),
    pv(live, at(0.5), '/', 'e', { traffic_class: 'bot' }),
  ]);
  const res = await checked(h, viewer, 'GET', `/app/api/sites/${live}/live`);
  assert.deepEqual(res.json(), { visitors: 2, last_event_at: at(0.5) });
  h.clock.advance(3 * 60_000);
  assert.equal((await checked(h, viewer, 'GET', `/app/api/sites/${live}/live`)).json().visitors, 1, 'b has left the window');
  const other = await person(h, { workspaceId: (await h.workspace('pro')).id, role: 'owner' });
  assert.equal((await checked(h, other, 'GET', `/app/api/sites/${live}/live`)).statusCode, 404);
  assert.equal((await checked(h, null, 'GET', `/app/api/sites/${live}/live`)).statusCode, 401);
});

test("the read API's document keeps the twins out; the management document names them", async () => {
  const read = (await h.app.inject({ url: '/openapi.json' })).json();
  assert.ok(!Object.keys(read.paths).some((p) => p.startsWith('/app/')), Object.keys(read.paths).join(' '));
  const manage = (await h.app.inject({ url: '/app/api/openapi.json' })).json();
  for (const [path] of ANALYTICS) assert.ok(manage.info.description.includes(`GET /app/api${path}`), path);
  assert.ok(manage.paths['/app/api/sites/{site_id}/live'].get);
  assert.ok(manage.paths['/app/api/sites/{site_id}'].get);
});
