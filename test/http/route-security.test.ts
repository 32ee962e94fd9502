// One suite over the routes the app really registers (read from Fastify as they are added, not listed
// here): token, scope, plan, method and rate limit on every /v1 route; session, CSRF token, Origin,
// method and rate limit on every management route (/app/api), whose roles app-api-roles.test.ts
// checks from the same table; the dashboard's reads (/app/api/v1/..., the /v1 routes that name a site
// under the session strategy) with the same session rules and their own roles; and the exact set of
// public ones. A route added tomorrow is covered
// the day it lands, or fails here until someone decides.
// No query string or body is sent: each of these refusals comes before the parameters are read.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { Harness } from './helpers/harness.js';
import { harnessWithRoutes } from './helpers/registered-routes.js';
import type { RouteFamily } from '../../src/domain/access.js';
import type { ErrorCode } from '../../src/domain/errors.js';
import { generateSecret } from '../../src/domain/tokens.js';
import { analyticsRoutes, platformRoutes } from '../../src/http/v1/index.js';
import { funnelRoute } from '../../src/http/v2/funnel-route.js';
import { funnelsRoute } from '../../src/http/v2/funnels-route.js';
import { queryRoute } from '../../src/http/v2/query-route.js';
import { APP_API_PREFIX } from '../../src/http/app-api/app-api-prefix.js';
import { appApiRoutes } from '../../src/http/app-api/routes/index.js';
import type { ManageErrorCode } from '../../src/domain/manage-errors.js';
import { call, ORIGIN, person } from './helpers/app-api.js';
import { CALLERS, DASHBOARD_READ_ROLES, ROLE_TABLE, type World } from './helpers/app-api-roles.js';
import { embedKey, mint, shareLink } from './helpers/embeds.js';
import {
  FAMILIES,
  ALL_SCOPES,
  SURFACES,
  EMBEDS,
  PUBLIC_ROUTES,
  READ_BATCHES,
  V1_ROUTES_TODAY,
  OTHER_METHODS,
  type Registered,
} from './helpers/route-rules.js';

const definitions = new Map([...platformRoutes, ...analyticsRoutes].map((d) => [d.url, d]));
/** The query API's reads at Plausible's paths (a JSON body instead of a query string), and its list of saved funnels, entered as /v1's are. */
const QUERY_READS = new Map([
  [queryRoute.url, { def: queryRoute, embed: 'query', surface: 'overview', method: 'POST' }],
  [funnelRoute.url, { def: funnelRoute, embed: 'funnel', surface: 'goals', method: 'POST' }],
  [funnelsRoute.url, { def: funnelsRoute, embed: 'funnel', surface: 'goals', method: 'GET' }],
]);
const methodOf = (url: string) => QUERY_READS.get(url)?.method ?? 'GET';
/** the management routes by `METHOD /app/api/…`, as registered */
const management = new Map(appApiRoutes.map((d) => [`${d.method} ${APP_API_PREFIX}${d.url}`, d]));
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Where the dashboard's reads live: /app/api followed by the /v1 path, or by the query API's (/api/v2/...). */
const READS_PREFIX = `${APP_API_PREFIX}/v1/`;
const isDashboardRead = (url: string) => url.startsWith(READS_PREFIX) || QUERY_READS.has(url.slice(APP_API_PREFIX.length));

let h: Harness;
let registered: Registered[];
/** the /v1 routes with the family their definition declares */
let routes: { url: string; family: RouteFamily }[];
/** the management routes and the dashboard's reads, which need a session, with their path parameters filled in */
let sessionRoutes: { method: string; url: string; path: string }[];
/** the read routes of share links, by the /v1 url they serve again */
let shareRoutes: string[];
const SHARE_API = '/share/:slug/api';

before(async () => {
  ({ h, registered } = await harnessWithRoutes({ collect: true })); // collection adds POST /api/event and the tracker script
  routes = registered
    .filter((r) => r.authenticated && r.url.startsWith('/v1/'))
    .map((r) => ({ url: r.url, family: definitions.get(r.url)?.family as RouteFamily }));
  shareRoutes = registered
    .filter((r) => r.authenticated && r.url.startsWith(`${SHARE_API}/`) && !(r.url in READ_BATCHES))
    .map((r) => r.url.slice(SHARE_API.length));
  sessionRoutes = registered
    .filter((r) => r.authenticated && r.url.startsWith(`${APP_API_PREFIX}/`))
    .map((r) => ({ method: r.method, url: r.url, path: r.url.replace(/:([a-z_]+)/g, '$1_unknown') }));
});

after(() => h.close());

/** The spec's envelope, with the request id of the X-Request-Id header (the management API's codes are its own). */
function assertError(res: LightMyRequestResponse, status: number, code: ErrorCode | ManageErrorCode, what: string): void {
  assert.equal(res.statusCode, status, `${what}: ${res.body.slice(0, 300)}`);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['error'], what);
  assert.equal(body.error.code, code, what);
  assert.ok(typeof body.error.message === 'string' && body.error.message.length > 0, what);
  assert.equal(body.error.request_id, res.headers['x-request-id'], what);
}

/** Past the gates: the route answered, or refused the (absent) parameters. */
function assertAdmitted(res: LightMyRequestResponse, what: string): void {
  assert.ok([200, 422].includes(res.statusCode), `${what}: ${res.statusCode} ${res.body.slice(0, 300)}`);
}

test('every registered route is an authenticated GET under /v1 with a known family, a session route of the management API or a dashboard read in its role table, or a known public route', () => {
  assert.ok(routes.length >= V1_ROUTES_TODAY, `only ${routes.length} authenticated /v1 routes found`);
  for (const r of registered.filter((x) => x.authenticated)) {
    if (r.url in READ_BATCHES) {
      // a page's reads in one request (read-batch-route.ts), admitted as its reads are, hidden
      assert.equal(r.method, 'GET', r.url);
      assert.equal(r.strategy, READ_BATCHES[r.url].strategy, `${r.url}: registered with the ${r.strategy} strategy`);
      assert.deepEqual(r.security, READ_BATCHES[r.url].security, `${r.url}: security`);
      assert.equal(r.hidden, true, `${r.url} is listed in /openapi.json`);
      continue;
    }
    if (isDashboardRead(r.url)) {
      const v1 = r.url.slice(APP_API_PREFIX.length);
      const def = definitions.get(v1) ?? QUERY_READS.get(v1)?.def;
      assert.ok(def, `${r.url} is not the twin of a route definition of src/http/v1/index.ts or of the query API`);
      assert.equal(r.method, methodOf(v1), r.url);
      assert.ok(def.site, `${r.url}: the dashboard reads only the routes that name a site (its frame comes from the management routes)`);
      assert.equal(r.strategy, 'session', `${r.url}: registered with the ${r.strategy} strategy`);
      assert.deepEqual(r.security, [{ sessionCookie: [] }], `${r.url}: security`);
      assert.equal(r.hidden, true, `${r.url} is listed in /openapi.json`);
      assert.ok(
        DASHBOARD_READ_ROLES[`${r.method} ${v1}`],
        `${r.url} has no entry in the dashboard reads' role table (test/http/helpers/app-api-roles.ts)`,
      );
      continue;
    }
    if (r.url.startsWith(`${APP_API_PREFIX}/`)) {
      const def = management.get(`${r.method} ${r.url}`);
      assert.ok(def, `${r.method} ${r.url} is not one of the management route definitions of src/http/app-api/routes/index.ts`);
      assert.equal(def.auth, 'session', `${r.method} ${r.url}`);
      const entry = ROLE_TABLE[`${def.method} ${def.url}`];
      assert.ok(entry, `${r.method} ${r.url} has no entry in the management role table (test/http/helpers/app-api-roles.ts)`);
      assert.equal(entry.expect[4], 401, `${r.method} ${r.url}: the role table lets a caller without a session in`);
      continue;
    }
    if (r.url.startsWith(`${SHARE_API}/`)) {
      // a share link's reads: the /v1 definitions an embed may read, and the query API's two, again behind the share strategy
      const url = r.url.slice(SHARE_API.length);
      const def = QUERY_READS.get(url)?.def ?? definitions.get(url);
      assert.ok(def?.embed, `${r.url} is not a read an embed makes`);
      assert.equal(r.method, methodOf(url), r.url);
      assert.equal(r.strategy, 'share', `${r.url}: registered with the ${r.strategy} strategy`);
      continue;
    }
    const post = QUERY_READS.get(r.url);
    if (post) {
      assert.equal(r.method, post.method, r.url);
      assert.deepEqual([...post.def.scopes], ['metrics:read'], `${r.url}: scopes`);
      assert.equal(post.def.embed, post.embed, `${r.url}: embed name`);
      assert.equal(r.strategy, 'token+embed', `${r.url}: registered with the ${r.strategy} strategy`);
      assert.deepEqual(r.security, [{ bearerAuth: [] }, { embedToken: [] }], `${r.url}: security`);
      assert.equal(post.def.surface, post.surface, `${r.url}: dashboard surface`);
      continue;
    }
    assert.equal(r.method, 'GET', `${r.method} ${r.url}`);
    assert.ok(r.url.startsWith('/v1/'), `${r.url} is authenticated but outside /v1`);
    const def = definitions.get(r.url);
    assert.ok(def, `${r.url} is not one of the route definitions of src/http/v1/index.ts`);
    assert.ok(def.family in FAMILIES, `${r.url}: family ${def.family} has no rules in this suite`);
    assert.deepEqual([...def.scopes].sort(), [...FAMILIES[def.family].scopes].sort(), `${r.url}: scopes`);
    // /v1 is entered with a token (or an embed token where embeds read), and the document says so;
    // another way in gets a prefix of its own
    assert.ok(r.url in EMBEDS, `${r.url}: whether embeds read it is not decided in this suite`);
    assert.equal(def.embed ?? null, EMBEDS[r.url], `${r.url}: embed name`);
    assert.equal(r.strategy, def.embed ? 'token+embed' : 'token', `${r.url}: registered with the ${r.strategy} strategy`);
    assert.deepEqual(r.security, def.embed ? [{ bearerAuth: [] }, { embedToken: [] }] : [{ bearerAuth: [] }], `${r.url}: security`);
    assert.ok(r.url in SURFACES, `${r.url}: which dashboard surface it draws is not decided in this suite`);
    assert.equal(def.surface, SURFACES[r.url], `${r.url}: dashboard surface`);
  }
  const unauthenticated = registered.filter((r) => !r.authenticated);
  for (const r of unauthenticated) assert.ok(!r.url.startsWith('/v1'), `${r.method} ${r.url} is under /v1 without authentication`);
  assert.deepEqual(unauthenticated.map((r) => `${r.method} ${r.url}`).sort(), PUBLIC_ROUTES);
  // The other way round: every definition that asks for a session is registered as needing one.
  const sessionDefs = appApiRoutes
    .filter((d) => d.auth === 'session')
    .map((d) => `${d.method} ${APP_API_PREFIX}${d.url}`)
    .sort();
  assert.deepEqual(
    sessionRoutes
      .filter((r) => !isDashboardRead(r.url))
      .map((r) => `${r.method} ${r.url}`)
      .sort(),
    sessionDefs,
  );
  assert.ok(sessionDefs.length > 20, `only ${sessionDefs.length} session routes found`);
  // Every read batch decided here is registered.
  assert.deepEqual(
    registered
      .filter((r) => r.url in READ_BATCHES)
      .map((r) => r.url)
      .sort(),
    Object.keys(READ_BATCHES).sort(),
  );
  // Every route an embed reads is a share link's read too (the query API's two included), and no other.
  assert.deepEqual(
    [...shareRoutes].sort(),
    [
      ...Object.entries(EMBEDS)
        .filter(([, e]) => e !== null)
        .map(([u]) => u),
      ...QUERY_READS.keys(),
    ].sort(),
  );
  // Every /v1 route that names a site is a dashboard read, and every entry of its role table is served.
  const reads = sessionRoutes
    .filter((r) => isDashboardRead(r.url))
    .map((r) => `${r.method} ${r.url.slice(APP_API_PREFIX.length)}`)
    .sort();
  assert.deepEqual(
    reads,
    [
      ...[...definitions.values()].filter((d) => d.site).map((d) => `GET ${d.url}`),
      ...[...QUERY_READS].map(([u, q]) => `${q.method} ${u}`),
    ].sort(),
  );
  assert.deepEqual(reads, Object.keys(DASHBOARD_READ_ROLES).sort());
});

test("the dashboard's reads: every member of the site's workspace reads it, a person of another workspace gets /v1's 403 for a site it may not read, no session 401", async () => {
  const ws = (await h.workspace('enterprise')).id;
  const other = (await h.workspace('pro')).id;
  let n = 0;
  const w: World = { h, ws, other, seq: () => ++n };
  const failures: string[] = [];
  for (const { method, url } of sessionRoutes.filter((r) => isDashboardRead(r.url))) {
    const entry = DASHBOARD_READ_ROLES[`${method} ${url.slice(APP_API_PREFIX.length)}`];
    for (const [i, who] of CALLERS.entries()) {
      const c = (await entry.setup?.(w)) ?? {};
      const caller =
        who === 'anonymous'
          ? null
          : await person(h, who === 'stranger' ? { workspaceId: other, role: 'owner' } : { workspaceId: ws, role: who });
      const res = await call(h, caller, method, `${url}${c.query ?? ''}`, c.body === undefined ? {} : { body: c.body });
      if (res.statusCode !== entry.expect[i])
        failures.push(`${who} ${method} ${url}: ${res.statusCode}, expected ${entry.expect[i]} ${res.body.slice(0, 200)}`);
      else if (res.statusCode >= 400)
        assertError(res, res.statusCode, res.statusCode === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN', `${who} ${method} ${url}`);
    }
  }
  assert.deepEqual(failures, []);
});

test('without a session, with an unknown or a malformed session cookie, every session route is 401 UNAUTHORIZED', async () => {
  const cookies: Record<string, Record<string, string>> = {
    'no cookie': {},
    'an unknown session': { cookie: `footfall_session=${'A'.repeat(43)}` },
    'a malformed cookie': { cookie: 'footfall_session=%%%' },
  };
  for (const { method, url, path } of sessionRoutes) {
    for (const [what, headers] of Object.entries(cookies)) {
      const res = await h.app.inject({ method: method as 'GET', url: path, headers });
      assertError(res, 401, 'UNAUTHORIZED', `${method} ${url} with ${what}`);
    }
  }
});

test('a change without the CSRF token, with a wrong one, or from a foreign Origin is 403 FORBIDDEN on every unsafe management route', async () => {
  const p = await person(h);
  for (const { method, url, path } of sessionRoutes.filter((r) => UNSAFE.has(r.method))) {
    assertError(await call(h, p, method, path, { csrf: false }), 403, 'FORBIDDEN', `${method} ${url} without the token`);
    assertError(await call(h, p, method, path, { csrf: 'x'.repeat(43) }), 403, 'FORBIDDEN', `${method} ${url} with a wrong token`);
    assertError(
      await call(h, p, method, path, { origin: 'https://evil.example' }),
      403,
      'FORBIDDEN',
      `${method} ${url} from a foreign Origin`,
    );
  }
  // The public changes need no token, but a browser's cross-site request is refused all the same.
  for (const r of registered.filter((x) => !x.authenticated && x.url.startsWith(`${APP_API_PREFIX}/`) && UNSAFE.has(x.method))) {
    const res = await h.app.inject({ method: r.method as 'POST', url: r.url, headers: { origin: 'https://evil.example' }, payload: {} });
    assertError(res, 403, 'FORBIDDEN', `${r.method} ${r.url} from a foreign Origin`);
  }
  // The server's own origin passes these gates (what follows is the route's own answer).
  const own = await call(h, p, 'POST', `${APP_API_PREFIX}/workspaces`, { origin: ORIGIN, body: { name: 'Own origin' } });
  assert.equal(own.statusCode, 201, own.body);
});

test('every other method on a management path is 405 INVALID_METHOD with the Allow of that path', async () => {
  const byPath = new Map<string, Set<string>>();
  for (const r of registered.filter((x) => x.url.startsWith(`${APP_API_PREFIX}/`))) {
    const path = r.url.replace(/:([a-z_]+)/g, '$1_unknown');
    (byPath.get(path) ?? byPath.set(path, new Set()).get(path)!).add(r.method);
  }
  for (const [path, methods] of byPath) {
    const allow = [...methods].sort().join(', ');
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'].filter((m) => !methods.has(m))) {
      const res = await h.app.inject({ method: method as 'GET', url: path });
      assert.equal(res.statusCode, 405, `${method} ${path}: ${res.body.slice(0, 200)}`);
      assert.equal(res.headers.allow, allow, `${method} ${path}`);
      if (method !== 'HEAD') assertError(res, 405, 'INVALID_METHOD', `${method} ${path}`);
    }
  }
});

test("once a session's window is full, every session route is 429 RATE_LIMITED with Retry-After, before its resource is looked up", async () => {
  const p = await person(h);
  // the session's window: 100 requests in any 5 seconds (src/services/people/session-rate.ts)
  for (let i = 0; i < 100; i++) assert.equal((await call(h, p, 'GET', `${APP_API_PREFIX}/session`)).statusCode, 200, `request ${i + 1}`);
  for (const { method, url, path } of sessionRoutes) {
    const res = await call(h, p, method, path);
    assertError(res, 429, 'RATE_LIMITED', `${method} ${url}`);
    const retry = Number(res.headers['retry-after']);
    assert.ok(Number.isInteger(retry) && retry >= 1, `${method} ${url}: Retry-After ${res.headers['retry-after']}`);
    assert.deepEqual(res.json().error.details, { retry_after_seconds: retry }, `${method} ${url}`);
  }
});

test('no token, an unknown token and a broken Authorization header are 401 UNAUTHORIZED on every route, and not counted', async () => {
  const headers: Record<string, Record<string, string>> = {
    'no token': {},
    'an unknown token': { authorization: `Bearer ${generateSecret(randomBytes)}` },
    'a scheme other than Bearer': { authorization: `Basic ${generateSecret(randomBytes)}` },
  };
  for (const { url } of routes) {
    for (const [what, hd] of Object.entries(headers)) {
      const res = await h.get(url, { headers: hd });
      assertError(res, 401, 'UNAUTHORIZED', `${url} with ${what}`);
      assert.equal(res.headers['x-ratelimit-limit'], undefined, `${url} with ${what}: not rate counted`);
    }
  }
});

test("a token without the route's scope is 403 FORBIDDEN; a token with any one of them is admitted", async () => {
  const ws = await h.workspace('pro');
  for (const scope of ALL_SCOPES) {
    const t = await h.token(ws.id, { scopes: [scope] });
    for (const { url, family } of routes) {
      const res = await h.get(url, { token: t.secret });
      if (FAMILIES[family].scopes.includes(scope)) assertAdmitted(res, `${url} with ${scope}`);
      else {
        assertError(res, 403, 'FORBIDDEN', `${url} with ${scope}`);
        assert.match(res.json().error.message, /scope/, url);
      }
    }
  }
});

test('a free workspace is 403 FORBIDDEN on every route; a starter one on reports, goals and tenants only', async () => {
  const scopes = [...ALL_SCOPES];
  const free = await h.workspace('starter');
  const freeToken = await h.token(free.id, { scopes });
  h.setPlan(free.id, 'free'); // a free workspace cannot be issued a token: it is downgraded after
  const starter = await h.workspace('starter');
  const starterToken = await h.token(starter.id, { scopes });
  for (const { url, family } of routes) {
    const res = await h.get(url, { token: freeToken.secret });
    assertError(res, 403, 'FORBIDDEN', `${url} on free`);
    assert.equal(
      res.json().error.message,
      'The free plan does not include API access; upgrade to starter or pro, or ask for an enterprise policy.',
      url,
    );

    const st = await h.get(url, { token: starterToken.secret });
    if (FAMILIES[family].starter) assertAdmitted(st, `${url} on starter`);
    else {
      assertError(st, 403, 'FORBIDDEN', `${url} on starter`);
      // the plan decided, and the message says which plan and what opens it
      assert.equal(
        st.json().error.message,
        `The starter plan does not include the ${family} endpoints; upgrade to pro or ask for an enterprise policy with allow_${family}.`,
        url,
      );
    }
  }
});

test('POST, PUT, PATCH, DELETE and HEAD are 405 INVALID_METHOD with Allow: GET on every route, and not counted', async () => {
  const ws = await h.workspace('pro');
  const t = await h.token(ws.id);
  for (const { url } of routes) {
    for (const method of OTHER_METHODS) {
      const what = `${method} ${url}`;
      const res = await h.get(url, { method, token: t.secret });
      assert.equal(res.statusCode, 405, what);
      assert.equal(res.headers.allow, 'GET', what);
      assert.equal(res.headers['x-ratelimit-limit'], undefined, `${what}: not rate counted`);
      if (method === 'HEAD') assert.equal(res.body, '', what);
      else assertError(res, 405, 'INVALID_METHOD', what);
    }
  }
});

test("once a token's window is full, every route is 429 RATE_LIMITED with Retry-After and X-RateLimit-*", async () => {
  const ws = await h.workspace('enterprise', { rate_limit_rps: 1 }); // 60 requests per 60 s window
  const t = await h.token(ws.id);
  const fill = 60;
  for (let i = 0; i < fill; i++) assert.equal((await h.get('/v1/me', { token: t.secret })).statusCode, 200);
  for (const { url } of routes) {
    const res = await h.get(url, { token: t.secret });
    assertError(res, 429, 'RATE_LIMITED', url);
    const retry = Number(res.headers['retry-after']);
    assert.ok(Number.isInteger(retry) && retry >= 1, `${url}: Retry-After ${res.headers['retry-after']}`);
    assert.deepEqual(res.json().error.details, { retry_after_seconds: retry }, url);
    assert.equal(res.headers['x-ratelimit-limit'], String(fill), url);
    assert.equal(res.headers['x-ratelimit-remaining'], '0', url);
    assert.match(String(res.headers['x-ratelimit-reset']), /^\d+$/, url);
  }
});

test('an embed token is admitted on every route embeds read, 401 on every other; a forged one is 401 everywhere, not counted', async () => {
  const ws = await h.workspace('pro');
  const site = (
    await h.catalog.createSite({ workspaceId: ws.id, name: 'E', hostnames: ['embed-security.example'], collectionProfile: 'extended' })
  ).id;
  const parent = await h.token(ws.id);
  const key = await embedKey(h, ws.id);
  const good = mint(h, key, { token_id: parent.id, site_id: site });
  const forged = mint(h, { id: key.id, secret: `${key.secret}x` }, { token_id: parent.id, site_id: site });
  for (const { url } of routes) {
    const res = await h.get(url, { token: good });
    if (EMBEDS[url]) assertAdmitted(res, `${url} with an embed token`);
    else assertError(res, 401, 'UNAUTHORIZED', `${url} with an embed token`);
    const bad = await h.get(url, { token: forged });
    assertError(bad, 401, 'UNAUTHORIZED', `${url} with a forged embed token`);
    assert.equal(bad.headers['x-ratelimit-limit'], undefined, `${url}: a forged token is not counted`);
  }
});

test("a share link's reads: 401 for an unknown or revoked link and for a locked one without its cookie; admitted for an open one; 429 past its viewer's window", async () => {
  assert.ok(shareRoutes.length >= 10, `only ${shareRoutes.length} share routes found`);
  const ws = await h.workspace('pro');
  const site = (
    await h.catalog.createSite({ workspaceId: ws.id, name: 'S', hostnames: ['share-security.example'], collectionProfile: 'extended' })
  ).id;
  const open = await shareLink(h, site);
  const locked = await shareLink(h, site, { password: 'a long enough password' });
  const revoked = await shareLink(h, site);
  await h.container.embeds!.revokeShareLink(revoked.id, h.clock.now().toISOString());
  // a query API read is a POST of its body (the link's site; a funnel with two steps)
  const bodyOf = (url: string) =>
    url === funnelRoute.url
      ? { site_id: site, date_range: '7d', steps: [{ page: '/' }, { page: '/b' }] }
      : { site_id: site, date_range: '7d', metrics: ['visitors'] };
  const at = (slug: string, url: string, address = '192.0.2.50') =>
    methodOf(url) === 'POST'
      ? h.app.inject({ method: 'POST', url: `/share/${slug}/api${url}`, remoteAddress: address, payload: bodyOf(url) })
      : h.app.inject({ method: 'GET', url: `/share/${slug}/api${url}`, remoteAddress: address });
  for (const url of shareRoutes) {
    for (const [what, slug] of [
      ['an unknown link', 'Z'.repeat(40)],
      ['a revoked link', revoked.slug],
      ['a locked link', locked.slug],
      ['a malformed slug', 'x'],
    ]) {
      const res = await at(slug, url);
      assertError(res, 401, 'UNAUTHORIZED', `${url} through ${what}`);
      assert.equal(res.headers['x-ratelimit-limit'], undefined, `${url} through ${what}: not counted`);
    }
    assertAdmitted(await at(open.slug, url), `${url} through an open link`);
  }
  const viewer = '192.0.2.51';
  for (let i = 0; i < 20; i++) assert.equal((await at(open.slug, '/v1/goals', viewer)).statusCode, 200, `request ${i + 1}`);
  for (const url of shareRoutes) assertError(await at(open.slug, url, viewer), 429, 'RATE_LIMITED', `${url} past the window`);
});
