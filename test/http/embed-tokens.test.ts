// Embed tokens on /v1: JWTs a SaaS backend mints (here with jsonwebtoken) that read as their parent API
// token, sealed to a site and tenant: the same numbers as the parent naming that tenant, metered to the
// workspace, counted in the parent's rate window; every forged, stale or overreaching token refused in
// the envelope at no cost; revoking the key or the parent refuses the next request, rotating the parent
// the tokens minted before it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import jwt from 'jsonwebtoken';
import { createFootfallClient, mintEmbedToken } from 'footfall/client';
import { metricsHarness, pv, type MetricsHarness } from './metrics-harness.js';
import { randomBytes } from 'node:crypto';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { embedKey, mint, unsigned, type TestEmbedKey } from './helpers/embeds.js';

const FROM = '2025-06-10';
const TO = '2025-06-12';

let h: MetricsHarness;
let site: string;
let otherSite: string;
let tenantA: string;
let tenantB: string;
let parent: { id: string; secret: string };
let key: TestEmbedKey;

before(async () => {
  h = await metricsHarness();
  site = await h.site();
  otherSite = await h.site();
  tenantA = await h.tenant(site, 'acme');
  tenantB = await h.tenant(site, 'globex');
  const lines = [];
  for (let d = 10; d <= 12; d++) {
    for (let v = 0; v < 4; v++) lines.push(pv(site, `2025-06-${d}T0${v}:00:00Z`, '/a', `a${d}${v}`, { tenant_id: tenantA }));
    for (let v = 0; v < 7; v++) lines.push(pv(site, `2025-06-${d}T1${v}:00:00Z`, '/b', `b${d}${v}`, { tenant_id: tenantB }));
    lines.push(pv(site, `2025-06-${d}T20:00:00Z`, '/c', `c${d}`));
    lines.push(pv(otherSite, `2025-06-${d}T20:00:00Z`, '/o', `o${d}`));
  }
  await h.importEvents(lines);
  parent = await h.token(h.ws.id);
  key = await embedKey(h, h.ws.id, ['https://app.example.com']);
});
after(() => h.close());

const used = () => h.container.ledger.used(h.ws.id, '2025-06');

function read(path: string, query: Record<string, string>, token: string): Promise<LightMyRequestResponse> {
  const qs = new URLSearchParams(query).toString();
  return h.get(`${path}${qs ? `?${qs}` : ''}`, { token });
}

function refused(res: LightMyRequestResponse, status: number, code: string, what: string): string {
  assert.equal(res.statusCode, status, `${what}: ${res.body.slice(0, 300)}`);
  const body = res.json();
  assert.deepEqual(Object.keys(body), ['error'], what);
  assert.equal(body.error.code, code, what);
  assert.equal(body.error.request_id, res.headers['x-request-id'], what);
  return body.error.message;
}

const ANALYTICS: [string, Record<string, string>][] = [
  ['/v1/reports/overview', {}],
  ['/v1/reports/content', {}],
  ['/v1/reports/acquisition', {}],
  ['/v1/reports/actions', {}],
  ['/v1/goals/conversions', {}],
  ['/v1/metrics/timeseries', { metric: 'visitors' }],
  ['/v1/metrics/breakdown', { dimension: 'page' }],
];

test('an embed token for tenant A answers what its parent answers naming A, metered the same to the workspace', async () => {
  const embed = mint(h, key, { token_id: parent.id, site_id: site, tenant_id: tenantA });
  for (const [path, extra] of ANALYTICS) {
    const q = { from: FROM, to: TO, compare: 'prev_period', ...extra };
    const before = await used();
    const api = await read(path, { ...q, site_id: site, tenant_id: tenantA }, parent.secret);
    assert.equal(api.statusCode, 200, `${path}: ${api.body}`);
    const mid = await used();
    // naming neither the site nor the tenant: the token's are read
    const res = await read(path, q, embed);
    assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
    const [a, e] = [api.json(), res.json()];
    for (const member of ['current', 'compare', 'range', 'availability']) assert.deepEqual(e[member], a[member], `${path} ${member}`);
    assert.ok(e.meta.units_charged > 0, path);
    assert.equal(e.meta.units_charged, a.meta.units_charged, `${path}: the same units as the parent`);
    assert.equal(mid - before, a.meta.units_charged);
    assert.equal((await used()) - mid, e.meta.units_charged, `${path}: charged to the workspace`);
    // naming them explicitly is the same read
    const named = await read(path, { ...q, site_id: site, tenant_id: tenantA }, embed);
    assert.deepEqual(named.json().current, e.current, path);
  }
  const goals = await read('/v1/goals', {}, embed);
  assert.equal(goals.statusCode, 200, goals.body);
});

test('a tenant breakdown through an embed shows its own tenant only', async () => {
  const embed = mint(h, key, { token_id: parent.id, site_id: site, tenant_id: tenantA });
  const res = await read('/v1/metrics/breakdown', { from: FROM, to: TO, dimension: 'tenant', metric: 'visitors' }, embed);
  assert.equal(res.statusCode, 200, res.body);
  const rows = res.json().current.rows;
  assert.deepEqual(
    rows.map((r: { tenant_id: string }) => r.tenant_id),
    [tenantA],
  );
  assert.equal(rows[0].value, 12);
  // the parent sees both, and the visits of no tenant
  const all = await read(
    '/v1/metrics/breakdown',
    { site_id: site, from: FROM, to: TO, dimension: 'tenant', metric: 'visitors' },
    parent.secret,
  );
  assert.deepEqual(
    new Set(all.json().current.rows.map((r: { tenant_id?: string }) => r.tenant_id)),
    new Set([tenantA, tenantB, undefined]),
  );
});

test('a whole-site embed (no tenant_id) reads the site, any of its tenants, and no other site', async () => {
  const embed = mint(h, key, { token_id: parent.id, site_id: site });
  const q = { from: FROM, to: TO, metric: 'visitors' };
  const whole = await read('/v1/metrics/timeseries', q, embed);
  assert.equal(whole.statusCode, 200, whole.body);
  assert.equal(whole.json().current.total, 12 + 21 + 3);
  const b = await read('/v1/metrics/timeseries', { ...q, tenant_id: tenantB }, embed);
  assert.equal(b.json().current.total, 21);
  refused(await read('/v1/metrics/timeseries', { ...q, site_id: otherSite }, embed), 403, 'FORBIDDEN', 'another site');
});

test('a request naming another site or tenant than the token is 403 and charges nothing', async () => {
  const embed = mint(h, key, { token_id: parent.id, site_id: site, tenant_id: tenantA });
  const before = await used();
  const cases: [string, Record<string, string>][] = [
    ['another site', { site_id: otherSite }],
    ['another tenant', { tenant_id: tenantB }],
    ['an unknown tenant', { tenant_id: 'ten_unknown' }],
  ];
  for (const [what, q] of cases) refused(await read('/v1/reports/overview', { from: FROM, to: TO, ...q }, embed), 403, 'FORBIDDEN', what);
  assert.equal(await used(), before);
});

test('embed tokens read the analytics routes only: /v1/me, /v1/sites, /v1/usage/* and /v1/tenants refuse them', async () => {
  const embed = mint(h, key, { token_id: parent.id, site_id: site, tenant_id: tenantA });
  for (const path of ['/v1/me', '/v1/sites', '/v1/usage/current', '/v1/usage/history', '/v1/tenants']) {
    const msg = refused(await read(path, path === '/v1/tenants' ? { site_id: site } : {}, embed), 401, 'UNAUTHORIZED', path);
    assert.match(msg, /Embed tokens read/, path);
  }
});

test('the routes claim limits an embed to the routes it lists', async () => {
  const embed = mint(h, key, { token_id: parent.id, site_id: site, tenant_id: tenantA, routes: ['overview', 'timeseries'] });
  assert.equal((await read('/v1/reports/overview', { from: FROM, to: TO }, embed)).statusCode, 200);
  assert.equal((await read('/v1/metrics/timeseries', { from: FROM, to: TO }, embed)).statusCode, 200);
  const before = await used();
  for (const [path, extra] of ANALYTICS.filter(([p]) => !['/v1/reports/overview', '/v1/metrics/timeseries'].includes(p))) {
    const msg = refused(await read(path, { from: FROM, to: TO, ...extra }, embed), 403, 'FORBIDDEN', path);
    assert.match(msg, /overview, timeseries/, path);
  }
  refused(await read('/v1/goals', {}, embed), 403, 'FORBIDDEN', '/v1/goals');
  assert.equal(await used(), before);
});

test('forged, expired, over-long, unsigned, wrong-key, foreign-parent and cross-tenant tokens are refused in the envelope and cost nothing', async () => {
  const other = await embedKey(h, h.ws.id);
  const foreignWs = await h.workspace('pro');
  const foreignParent = await h.token(foreignWs.id);
  const foreignKey = await embedKey(h, foreignWs.id);
  const restricted = await h.token(h.ws.id, { tenantIds: [tenantA] });
  const now = Math.floor(h.clock.now().getTime() / 1000);
  const good = { token_id: parent.id, site_id: site, tenant_id: tenantA };
  const cases: [string, string, number, RegExp][] = [
    ['forged signature', mint(h, { id: key.id, secret: 'ff_embed_not-the-secret' }, good), 401, /not signed with the secret/],
    ['a tampered payload', tamper(mint(h, key, good), { tenant_id: tenantB }), 401, /not signed with the secret/],
    ['expired', mint(h, key, { ...good, iat: now - 7200, exp: now - 60 }), 401, /expired/],
    ['exp more than 24 h after iat', mint(h, key, { ...good, exp: now + 24 * 3600 + 1 }), 401, /24 hours/],
    ['no exp', mint(h, key, { ...good, exp: undefined }), 401, /exp claim/],
    ['no iat', mint(h, key, { ...good, iat: undefined }), 401, /iat claim/],
    ['iat in the future', mint(h, key, { ...good, iat: now + 3600, exp: now + 7200 }), 401, /future/],
    ['alg none', unsigned(key.id, { ...good, iat: now, exp: now + 60 }), 401, /HS256/],
    ['HS512', mint(h, key, good, { alg: 'HS512' }), 401, /HS256/],
    ['signed with another key of the workspace', mint(h, { id: key.id, secret: other.secret }, good), 401, /not signed with the secret/],
    ['an unknown kid', mint(h, { id: 'ek_unknown', secret: key.secret }, good), 401, /unknown or revoked/],
    ['no kid', stripKid(mint(h, key, good)), 401, /kid/],
    ['a parent of another workspace', mint(h, key, { ...good, token_id: foreignParent.id }), 401, /parent token/],
    ["a foreign key naming this workspace's parent", mint(h, foreignKey, good), 401, /parent token/],
    ['an unknown parent', mint(h, key, { ...good, token_id: 'tok_unknown' }), 401, /parent token/],
    ['no site_id', mint(h, key, { ...good, site_id: undefined }), 401, /site_id/],
    ['an unknown route name', mint(h, key, { ...good, routes: ['overview', 'usage'] }), 401, /routes claim/],
    ['a tenant the parent may not read', mint(h, key, { ...good, token_id: restricted.id, tenant_id: tenantB }), 403, /tenant/],
    ['no tenant under a tenant-restricted parent', mint(h, key, { token_id: restricted.id, site_id: site }), 403, /tenant_id claim/],
    ['not a JWT at all', 'abc.def', 401, /Missing, invalid or revoked token/],
  ];
  const before = await used();
  for (const [what, token, status, message] of cases) {
    const res = await read('/v1/reports/overview', { from: FROM, to: TO }, token);
    assert.match(refused(res, status, status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN', what), message, what);
    assert.equal(res.headers['x-ratelimit-limit'], undefined, `${what}: not counted in any rate window`);
  }
  assert.equal(await used(), before, 'nothing charged');
});

test('revoking the embed key, or the parent token, refuses the next request', async () => {
  const k = await embedKey(h, h.ws.id);
  const p = await h.token(h.ws.id);
  const embed = mint(h, k, { token_id: p.id, site_id: site, tenant_id: tenantA });
  assert.equal((await read('/v1/reports/overview', {}, embed)).statusCode, 200);
  await h.container.embeds!.revokeEmbedKey(k.id, h.clock.now().toISOString());
  assert.match(refused(await read('/v1/reports/overview', {}, embed), 401, 'UNAUTHORIZED', 'revoked key'), /unknown or revoked/);

  const k2 = await embedKey(h, h.ws.id);
  const embed2 = mint(h, k2, { token_id: p.id, site_id: site, tenant_id: tenantA });
  assert.equal((await read('/v1/reports/overview', {}, embed2)).statusCode, 200);
  await h.catalog.revokeToken(p.id, h.clock.now().toISOString());
  assert.match(refused(await read('/v1/reports/overview', {}, embed2), 401, 'UNAUTHORIZED', 'revoked parent'), /parent token/);
});

test('rotating the parent token refuses the embed tokens minted before it; those minted after read on', async () => {
  const k = await embedKey(h, h.ws.id);
  const p = await h.token(h.ws.id);
  const before = mint(h, k, { token_id: p.id, site_id: site, tenant_id: tenantA });
  assert.equal((await read('/v1/reports/overview', {}, before)).statusCode, 200);
  h.clock.advance(2000);
  const charged = await used();
  await h.catalog.rotateToken(p.id, hashSecret(generateSecret(randomBytes)));
  assert.match(
    refused(await read('/v1/reports/overview', {}, before), 401, 'UNAUTHORIZED', 'minted before the rotation'),
    /issued before its parent token \(token_id\) was rotated/,
  );
  assert.equal(await used(), charged, 'nothing charged');
  h.clock.advance(1000);
  const after = mint(h, k, { token_id: p.id, site_id: site, tenant_id: tenantA });
  assert.equal((await read('/v1/reports/overview', {}, after)).statusCode, 200);
});

test('a token read many times is still refused once it expires (its verified signature is remembered, never its validity)', async () => {
  const embed = mint(h, key, {
    token_id: parent.id,
    site_id: site,
    tenant_id: tenantA,
    exp: Math.floor(h.clock.now().getTime() / 1000) + 120,
  });
  for (let i = 0; i < 3; i++) assert.equal((await read('/v1/reports/overview', {}, embed)).statusCode, 200);
  const start = h.clock.now().getTime();
  try {
    h.clock.advance(121_000);
    assert.match(refused(await read('/v1/reports/overview', {}, embed), 401, 'UNAUTHORIZED', 'expired after use'), /expired/);
  } finally {
    h.clock.set(start);
  }
});

test('everything the parent may not do, the embed may not do: scopes, plan families, site allowlist, hard cap', async () => {
  const usageOnly = await h.token(h.ws.id, { scopes: ['usage:read'] });
  const e1 = mint(h, key, { token_id: usageOnly.id, site_id: site, tenant_id: tenantA });
  assert.match(refused(await read('/v1/reports/overview', {}, e1), 403, 'FORBIDDEN', 'scope'), /scope/);

  const starter = await h.workspace('starter');
  const sSite = (
    await h.catalog.createSite({ workspaceId: starter.id, name: 's', hostnames: ['starter-embed.example'], collectionProfile: 'strict' })
  ).id;
  const sParent = await h.token(starter.id);
  const sKey = await embedKey(h, starter.id);
  const e2 = mint(h, sKey, { token_id: sParent.id, site_id: sSite });
  assert.equal(
    refused(await read('/v1/reports/overview', {}, e2), 403, 'FORBIDDEN', 'family'),
    'The starter plan does not include the reports endpoints; upgrade to pro or ask for an enterprise policy with allow_reports.',
  );
  assert.equal((await read('/v1/metrics/timeseries', {}, e2)).statusCode, 200);

  const onlyOther = await h.token(h.ws.id, { siteIds: [otherSite] });
  const e3 = mint(h, key, { token_id: onlyOther.id, site_id: site });
  assert.match(refused(await read('/v1/metrics/timeseries', {}, e3), 403, 'FORBIDDEN', 'site allowlist'), /may not read the site/);

  const capped = await h.workspace('enterprise', { monthly_included_units: 2, hard_cap_units: 4 });
  const cSite = (
    await h.catalog.createSite({ workspaceId: capped.id, name: 'c', hostnames: ['capped-embed.example'], collectionProfile: 'strict' })
  ).id;
  const cParent = await h.token(capped.id);
  const cKey = await embedKey(h, capped.id);
  const e4 = mint(h, cKey, { token_id: cParent.id, site_id: cSite });
  assert.equal((await read('/v1/metrics/timeseries', {}, e4)).statusCode, 200);
  refused(await read('/v1/metrics/timeseries', { metric: 'visitors' }, e4), 402, 'HARD_CAP_REACHED', 'cap');
});

test("an embed counts in its parent's rate window: one window shared by the parent and all its embeds", async () => {
  const ws = await h.workspace('enterprise', { rate_limit_rps: 1 }); // 60 requests per 60 s
  const s = (await h.catalog.createSite({ workspaceId: ws.id, name: 'r', hostnames: ['rate-embed.example'], collectionProfile: 'strict' }))
    .id;
  const p = await h.token(ws.id);
  const k = await embedKey(h, ws.id);
  const embed = mint(h, k, { token_id: p.id, site_id: s });
  for (let i = 0; i < 30; i++) {
    const a = await read('/v1/metrics/timeseries', { site_id: s }, p.secret);
    assert.equal(a.headers['x-ratelimit-remaining'], String(59 - 2 * i));
    const e = await read('/v1/metrics/timeseries', {}, embed);
    assert.equal(e.headers['x-ratelimit-remaining'], String(58 - 2 * i), `request ${2 * i + 2}`);
    assert.equal(e.headers['x-ratelimit-limit'], '60');
  }
  refused(await read('/v1/metrics/timeseries', {}, embed), 429, 'RATE_LIMITED', 'embed past the shared window');
  refused(await read('/v1/me', {}, p.secret), 429, 'RATE_LIMITED', 'parent past the shared window');
});

/** The token with one claim changed and the signature kept. */
function tamper(token: string, change: Record<string, unknown>): string {
  const [head, body, sig] = token.split('.');
  const claims = { ...JSON.parse(Buffer.from(body, 'base64url').toString()), ...change };
  return `${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
}

/** The token with its header's kid removed (the signature no longer matters: the key is unknown). */
function stripKid(token: string): string {
  const [head, body, sig] = token.split('.');
  const { kid: _, ...rest } = JSON.parse(Buffer.from(head, 'base64url').toString());
  return `${Buffer.from(JSON.stringify(rest)).toString('base64url')}.${body}.${sig}`;
}

test("the typed client's mintEmbedToken makes a standard JWT that jsonwebtoken verifies and /v1 honours; its lifetime is bounded", async () => {
  const now = h.clock.now();
  const token = await mintEmbedToken(
    { keyId: key.id, secret: key.secret },
    { tokenId: parent.id, siteId: site, tenantId: tenantA, routes: ['timeseries'], ttlSeconds: 600, now },
  );
  const decoded = jwt.verify(token, key.secret, {
    algorithms: ['HS256'],
    clockTimestamp: Math.floor(now.getTime() / 1000),
    complete: true,
  });
  assert.deepEqual(decoded.header, { alg: 'HS256', typ: 'JWT', kid: key.id });
  const iat = Math.floor(now.getTime() / 1000);
  assert.deepEqual(decoded.payload, {
    token_id: parent.id,
    site_id: site,
    tenant_id: tenantA,
    routes: ['timeseries'],
    iat,
    exp: iat + 600,
  });
  const res = await read('/v1/metrics/timeseries', { from: FROM, to: TO, metric: 'visitors' }, token);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().current.total, 12);
  await assert.rejects(
    mintEmbedToken({ keyId: key.id, secret: key.secret }, { tokenId: parent.id, siteId: site, ttlSeconds: 86_401 }),
    RangeError,
  );
  // the client takes an embed token like an API token
  assert.equal(typeof createFootfallClient({ baseUrl: 'http://127.0.0.1:1', token }).GET, 'function');
});

test('POST /api/v2/query with an embed token: its site and tenant only, whatever the body names; routes without query refused', async () => {
  const embed = mint(h, key, { token_id: parent.id, site_id: site, tenant_id: tenantA });
  const body = { date_range: [FROM, TO], metrics: ['visitors', 'pageviews'], dimensions: ['event:page'] };
  const post = (b: Record<string, unknown>, token: string) => h.post('/api/v2/query', b, { token });
  // naming nothing: the token's site and tenant; the parent naming them gets the same rows
  const sealed = await post(body, embed);
  assert.equal(sealed.statusCode, 200, sealed.body);
  const parentAnswer = await post({ ...body, site_id: site, tenant_id: tenantA }, parent.secret);
  assert.deepEqual(sealed.json().results, parentAnswer.json().results);
  assert.deepEqual(
    sealed.json().results.map((r: { dimensions: string[] }) => r.dimensions[0]),
    ['/a'],
    "tenant A's pages only",
  );
  // naming another tenant or another site is refused as on /v1
  refused(await post({ ...body, tenant_id: tenantB }, embed), 403, 'FORBIDDEN', 'other tenant');
  refused(await post({ ...body, site_id: otherSite }, embed), 403, 'FORBIDDEN', 'other site');
  // a token whose routes claim leaves out the query API
  const narrow = mint(h, key, { token_id: parent.id, site_id: site, tenant_id: tenantA, routes: ['overview'] });
  refused(await post(body, narrow), 403, 'FORBIDDEN', 'routes without query');
});
