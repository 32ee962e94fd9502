// Share links: /share/<slug> is the site's (or one tenant's) read-only dashboard for people without a
// backend. Its reads (/share/<slug>/api/v1/...) are the embed routes under the plan's dashboard policy,
// unmetered, per viewer rate-limited; a password gives a cookie scoped to that link; sign-in's throttle
// guards the password; a revoked or expired link is gone on the next request.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { metricsHarness, pv, type MetricsHarness } from './metrics-harness.js';
import { shareLink } from './helpers/embeds.js';

const FROM = '2025-06-10';
const TO = '2025-06-12';
const PASSWORD = 'open sesame please';

let h: MetricsHarness;
let site: string;
let tenantA: string;
let tenantB: string;

before(async () => {
  h = await metricsHarness();
  site = await h.site();
  tenantA = await h.tenant(site, 'acme');
  tenantB = await h.tenant(site, 'globex');
  const lines = [];
  for (let d = 10; d <= 12; d++) {
    for (let v = 0; v < 3; v++) lines.push(pv(site, `2025-06-${d}T0${v}:00:00Z`, '/a', `a${d}${v}`, { tenant_id: tenantA }));
    for (let v = 0; v < 5; v++) lines.push(pv(site, `2025-06-${d}T1${v}:00:00Z`, '/b', `b${d}${v}`, { tenant_id: tenantB }));
  }
  await h.importEvents(lines);
});
after(() => h.close());

function share(
  slug: string,
  path: string,
  query: Record<string, string> = {},
  headers: Record<string, string> = {},
  address = '198.51.100.1',
): Promise<LightMyRequestResponse> {
  const qs = new URLSearchParams(query).toString();
  return h.app.inject({ method: 'GET', url: `/share/${slug}/api${path}${qs ? `?${qs}` : ''}`, headers, remoteAddress: address });
}

function metaOf(res: LightMyRequestResponse): Record<string, unknown> {
  const m = /<meta name="footfall-share" content="([^"]*)">/.exec(res.body);
  assert.ok(m, res.body.slice(0, 500));
  return JSON.parse(
    m[1]
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&amp;/g, '&'),
  );
}

function refused(res: LightMyRequestResponse, status: number, code: string): string {
  assert.equal(res.statusCode, status, res.body.slice(0, 300));
  assert.equal(res.json().error.code, code);
  assert.equal(res.json().error.request_id, res.headers['x-request-id']);
  return res.json().error.message;
}

const used = () => h.container.ledger.used(h.ws.id, '2025-06');

test("a share link's page and reads: the dashboard's numbers for its tenant, unmetered, sealed to it", async () => {
  const link = await shareLink(h, site, { tenantId: tenantA });
  assert.match(link.url, /^http:\/\/[^/]+\/share\/[0-9A-Za-z]{40}$/);
  const page = await h.app.inject({ method: 'GET', url: `/share/${link.slug}` });
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
  assert.equal(page.headers['referrer-policy'], 'no-referrer');
  assert.deepEqual(metaOf(page), { state: 'open', site_id: site, site_name: 'site 1', tenant_id: tenantA, timezone: 'UTC' });

  for (const [path, extra] of [
    ['/v1/reports/overview', {}],
    ['/v1/metrics/timeseries', { metric: 'visitors' }],
    ['/v1/reports/content', {}],
  ] as const) {
    const before = await used();
    const res = await share(link.slug, path, { from: FROM, to: TO, ...extra });
    assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
    assert.equal(res.json().meta.units_charged, 0, path);
    assert.equal(await used(), before, `${path}: nothing charged`);
    const api = await h.call(path, { site_id: site, tenant_id: tenantA, from: FROM, to: TO, ...extra });
    assert.deepEqual(res.json().current, api.json().current, path);
  }
  const breakdown = await share(link.slug, '/v1/metrics/breakdown', { from: FROM, to: TO, dimension: 'tenant', metric: 'visitors' });
  assert.deepEqual(
    breakdown.json().current.rows.map((r: { tenant_id: string; value: number }) => [r.tenant_id, r.value]),
    [[tenantA, 9]],
  );
  refused(await share(link.slug, '/v1/reports/overview', { tenant_id: tenantB }), 403, 'FORBIDDEN');
  // only the embed routes exist under a link
  for (const path of ['/v1/me', '/v1/sites', '/v1/usage/current', '/v1/tenants'])
    assert.equal((await share(link.slug, path)).statusCode, 404, path);

  // the query API's twin (what the share page's panels read): the link's tenant, as the query API answers it, unmetered
  const body = { site_id: site, date_range: [FROM, TO], metrics: ['visitors', 'pageviews'], dimensions: ['event:page'] };
  const post = (b: unknown) => h.app.inject({ method: 'POST', url: `/share/${link.slug}/api/api/v2/query`, payload: b as object });
  const before = await used();
  const twin = await post(body);
  assert.equal(twin.statusCode, 200, twin.body);
  assert.equal(twin.json().meta.units_charged, 0);
  assert.equal(await used(), before, 'nothing charged');
  const api = await h.app.inject({
    method: 'POST',
    url: '/api/v2/query',
    headers: { authorization: `Bearer ${h.secret}` },
    payload: { ...body, tenant_id: tenantA },
  });
  assert.ok(api.json().results.length > 0, 'the tenant has pages');
  assert.deepEqual(twin.json().results, api.json().results, "the link's tenant, sealed");
  refused(await post({ ...body, tenant_id: tenantB }), 403, 'FORBIDDEN');
  const funnel = await h.app.inject({
    method: 'POST',
    url: `/share/${link.slug}/api/api/v2/funnel`,
    payload: { site_id: site, date_range: [FROM, TO], steps: [{ page: '/' }, { page: '/pricing' }] },
  });
  assert.equal(funnel.statusCode, 200, funnel.body);
});

test('a whole-site link reads every tenant; an unknown slug is gone (404 page, 401 reads)', async () => {
  const link = await shareLink(h, site);
  const res = await share(link.slug, '/v1/metrics/timeseries', { from: FROM, to: TO, metric: 'visitors' });
  assert.equal(res.json().current.total, 24);
  for (const slug of ['x'.repeat(40), 'short', link.slug.slice(0, 39) + (link.slug.endsWith('A') ? 'B' : 'A')]) {
    const page = await h.app.inject({ method: 'GET', url: `/share/${slug}` });
    assert.equal(page.statusCode, 404, slug);
    assert.deepEqual(metaOf(page), { state: 'gone' });
    assert.match(refused(await share(slug, '/v1/reports/overview'), 401, 'UNAUTHORIZED'), /revoked or has expired/);
  }
});

test('a password: the page asks for it, reads need the cookie it gives, scoped to that link; wrong ones are throttled like sign-in', async () => {
  const link = await shareLink(h, site, { password: PASSWORD });
  const other = await shareLink(h, site, { password: PASSWORD });
  const page = await h.app.inject({ method: 'GET', url: `/share/${link.slug}` });
  assert.deepEqual(metaOf(page), { state: 'password' }, 'nothing of the site before the password');
  assert.match(refused(await share(link.slug, '/v1/reports/overview'), 401, 'UNAUTHORIZED'), /needs its password/);

  const post = (slug: string, password: unknown, address = '198.51.100.2') =>
    h.app.inject({ method: 'POST', url: `/share/${slug}/api/session`, payload: { password }, remoteAddress: address });
  assert.match(refused(await post(link.slug, 'not the password'), 401, 'UNAUTHORIZED'), /Wrong password/);
  const ok = await post(link.slug, PASSWORD);
  assert.equal(ok.statusCode, 204, ok.body);
  const set = ok.cookies.find((c) => c.name === 'footfall_share')!;
  assert.ok(set, 'a cookie');
  assert.equal(set.path, `/share/${link.slug}`);
  assert.equal(set.httpOnly, true);
  assert.equal(set.sameSite, 'Strict');
  const lifetime = new Date(set.expires!).getTime() - h.clock.now().getTime();
  assert.ok(lifetime > 0 && lifetime <= 8 * 3600_000, `short-lived: ${lifetime} ms`);
  const cookie = { cookie: `footfall_share=${set.value}` };
  assert.equal((await share(link.slug, '/v1/reports/overview', {}, cookie)).statusCode, 200);
  assert.deepEqual(metaOf(await h.app.inject({ method: 'GET', url: `/share/${link.slug}`, headers: cookie })), {
    state: 'open',
    timezone: 'UTC',
    site_id: site,
    site_name: 'site 1',
    tenant_id: null,
  });
  refused(await share(other.slug, '/v1/reports/overview', {}, cookie), 401, 'UNAUTHORIZED');
  refused(
    await share(
      link.slug,
      '/v1/reports/overview',
      {},
      { cookie: `footfall_share=${set.value.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))}` },
    ),
    401,
    'UNAUTHORIZED',
  );
  // the cookie lives its lifetime, no longer
  h.clock.advance(8 * 3600_000 + 1000);
  refused(await share(link.slug, '/v1/reports/overview', {}, cookie), 401, 'UNAUTHORIZED');

  // 10 failures for one link from one address in 15 minutes: then 429 there with Retry-After, even with
  // the right password, while another viewer of the link goes on; 100 from any addresses: 429 for all.
  for (let i = 0; i < 10; i++) refused(await post(other.slug, `wrong ${i}`, '198.51.100.10'), 401, 'UNAUTHORIZED');
  const limited = await post(other.slug, PASSWORD, '198.51.100.10');
  refused(limited, 429, 'RATE_LIMITED');
  assert.ok(Number(limited.headers['retry-after']) >= 1);
  assert.equal((await post(other.slug, PASSWORD, '198.51.100.11')).statusCode, 204, 'one guesser does not lock the other viewers out');
  for (let a = 0; a < 9; a++)
    for (let i = 0; i < 10; i++) refused(await post(other.slug, `wrong ${i}`, `203.0.113.${a + 1}`), 401, 'UNAUTHORIZED');
  refused(await post(other.slug, PASSWORD, '198.51.100.99'), 429, 'RATE_LIMITED');
  h.clock.advance(15 * 60_000 + 1000);
  assert.equal((await post(other.slug, PASSWORD, '198.51.100.99')).statusCode, 204);
  refused(await post(other.slug, ''), 422, 'INVALID_PARAMS');
  refused(
    await h.app.inject({
      method: 'POST',
      url: `/share/${other.slug}/api/session`,
      payload: { password: PASSWORD },
      headers: { origin: 'https://evil.example' },
    }),
    403,
    'FORBIDDEN',
  );
});

test('a revoked or expired link is gone on the next request', async () => {
  const link = await shareLink(h, site);
  assert.equal((await share(link.slug, '/v1/reports/overview')).statusCode, 200);
  await h.container.embeds!.revokeShareLink(link.id, h.clock.now().toISOString());
  refused(await share(link.slug, '/v1/reports/overview'), 401, 'UNAUTHORIZED');
  assert.equal((await h.app.inject({ method: 'GET', url: `/share/${link.slug}` })).statusCode, 404);

  const soon = await shareLink(h, site, { expiresAt: new Date(h.clock.now().getTime() + 60_000).toISOString() });
  assert.equal((await share(soon.slug, '/v1/reports/overview')).statusCode, 200);
  h.clock.advance(60_000);
  refused(await share(soon.slug, '/v1/reports/overview'), 401, 'UNAUTHORIZED');
  assert.equal((await h.app.inject({ method: 'GET', url: `/share/${soon.slug}` })).statusCode, 404);
});

test("a link's reads follow the plan's dashboard: a free workspace's link reads its surfaces only", async () => {
  const free = await h.workspace('free');
  const s = (
    await h.catalog.createSite({ workspaceId: free.id, name: 'free', hostnames: ['free-share.example'], collectionProfile: 'strict' })
  ).id;
  const link = await shareLink(h, s);
  assert.equal((await share(link.slug, '/v1/reports/overview')).statusCode, 200);
  assert.equal((await share(link.slug, '/v1/reports/content')).statusCode, 200);
  refused(await share(link.slug, '/v1/reports/actions'), 403, 'FORBIDDEN');
  refused(await share(link.slug, '/v1/goals/conversions'), 403, 'FORBIDDEN');
});

test('reads through a link are rate-limited per link and viewer: 20 a second, 429 past it, another viewer unaffected', async () => {
  const link = await shareLink(h, site);
  for (let i = 0; i < 20; i++) assert.equal((await share(link.slug, '/v1/goals')).statusCode, 200, `request ${i + 1}`);
  refused(await share(link.slug, '/v1/goals'), 429, 'RATE_LIMITED');
  assert.equal((await share(link.slug, '/v1/goals', {}, {}, '198.51.100.77')).statusCode, 200);
});
