// Values no store can hold as sent: a NUL character (PostgreSQL refuses it in text, which was a 500) and a
// lone UTF-16 surrogate (both drivers write it as U+FFFD, so the stored value differs from the answer).
// Each way in refuses them with 422 INVALID_PARAMS naming the parameter, in the place its order of
// checks gives parameters, or treats them as the unknown value they are; nothing reaches a store. Runs on
// the stack FOOTFALL_TEST_STACK names: the scale stack's PostgreSQL is where the 500s were.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { harness, type Harness } from './helpers/harness.js';
import { call, person, type Person } from './helpers/app-api.js';
import { embedKey, mint, shareLink } from './helpers/embeds.js';
import { CHROME } from './helpers/collect.js';

let h: Harness;
let ws: string;
let site: string;
let token: { id: string; secret: string };
let owner: Person;
let share: { slug: string };

before(async () => {
  h = await harness({ collect: true });
  ws = (await h.workspace('enterprise', { rate_limit_rps: null })).id;
  site = (await h.catalog.createSite({ workspaceId: ws, name: 'Bytes', hostnames: ['bytes.example'], collectionProfile: 'extended' })).id;
  token = await h.token(ws);
  owner = await person(h, { workspaceId: ws, role: 'owner' });
  share = await shareLink(h, site);
});
after(() => h.close());

/** The 422 that names `parameter` and says what to send instead. */
function refused(res: LightMyRequestResponse, parameter: string, key: 'parameter' | 'field', what: string): void {
  assert.equal(res.statusCode, 422, `${what}: ${res.body.slice(0, 300)}`);
  const { error } = res.json();
  assert.equal(error.code, 'INVALID_PARAMS', what);
  assert.equal(error.details?.[key], parameter, `${what}: ${res.body}`);
  assert.match(error.message, new RegExp(`${parameter.replace('.', '\\.')}.*(remove it|valid UTF-8)`), what);
  assert.equal(error.request_id, res.headers['x-request-id'], what);
}

// a query string cannot carry a lone surrogate: %ED%A0%80 is not UTF-8, and is kept as those characters
const NULS_IN_QUERIES = ['%00', 'a%00b', 'site_%00'];

test('/v1: a NUL in site_id or any other query parameter is 422 naming it, after the token, scope and rate gates', async () => {
  for (const v of NULS_IN_QUERIES) {
    refused(await h.get(`/v1/tenants?site_id=${v}`, { token: token.secret }), 'site_id', 'parameter', `/v1/tenants site_id=${v}`);
    refused(await h.get(`/v1/goals?site_id=${v}`, { token: token.secret }), 'site_id', 'parameter', `/v1/goals site_id=${v}`);
    refused(
      await h.get(`/v1/reports/overview?site_id=${site}&tenant_id=${v}`, { token: token.secret }),
      'tenant_id',
      'parameter',
      `tenant_id=${v}`,
    );
    refused(
      await h.get(`/v1/reports/actions?site_id=${site}&action_key=${v}`, { token: token.secret }),
      'action_key',
      'parameter',
      `action_key=${v}`,
    );
    refused(
      await h.get(`/v1/metrics/timeseries?site_id=${site}&filters=${v}`, { token: token.secret }),
      'filters',
      'parameter',
      `filters=${v}`,
    );
  }
  // the gates before parameters still answer first (docs/product.md §7.2)
  assert.equal((await h.get('/v1/tenants?site_id=%00')).statusCode, 401);
  const usageOnly = await h.token(ws, { scopes: ['usage:read'] });
  assert.equal((await h.get('/v1/tenants?site_id=%00', { token: usageOnly.secret })).statusCode, 403);
  const slow = await h.token((await h.workspace('enterprise', { rate_limit_rps: 1 })).id);
  for (let i = 0; i < 60; i++) await h.get('/v1/me', { token: slow.secret });
  assert.equal((await h.get('/v1/tenants?site_id=%00', { token: slow.secret })).statusCode, 429);
});

test("the dashboard's reads, a share link's reads and the read batches refuse them the same way", async () => {
  refused(await call(h, owner, 'GET', '/app/api/v1/goals?site_id=a%00b'), 'site_id', 'parameter', 'dashboard read');
  refused(
    await call(h, owner, 'GET', `/app/api/v1/reports/overview?site_id=${site}&tenant_id=%00`),
    'tenant_id',
    'parameter',
    'dashboard read tenant',
  );
  refused(await h.app.inject({ url: `/share/${share.slug}/api/v1/goals?site_id=%00` }), 'site_id', 'parameter', 'share read');
  const batch = await call(h, owner, 'GET', `/app/api/reads?r=${encodeURIComponent('/v1/goals?site_id=%00')}`);
  assert.equal(batch.statusCode, 200, batch.body);
  const line = JSON.parse(batch.body.trim());
  assert.equal(line.status, 422, batch.body);
  assert.equal(line.body.error.details.parameter, 'site_id');
});

test('the management API: a path parameter, a query parameter or a JSON member no store can hold is 422 naming it; nothing is written', async () => {
  refused(await call(h, owner, 'GET', '/app/api/sites/a%00b'), 'site_id', 'field', 'path site_id');
  refused(await call(h, owner, 'GET', '/app/api/workspaces/%00/sites'), 'workspace_id', 'field', 'path workspace_id');
  refused(await call(h, owner, 'DELETE', `/app/api/goals/goal_%00`), 'goal_id', 'field', 'path goal_id');
  refused(await call(h, owner, 'GET', `/app/api/workspaces/${ws}/tenants?site_id=%00`), 'site_id', 'field', 'query site_id');
  const before = (await call(h, owner, 'GET', '/app/api/workspaces')).json();
  // JSON lets a lone surrogate through as an escape; the body is sent as those bytes
  const raw = (body: string) => ({ headers: { 'content-type': 'application/json' }, body });
  refused(await call(h, owner, 'POST', '/app/api/workspaces', raw('{"name":"a\\ud800b"}')), 'name', 'field', 'body name surrogate');
  refused(await call(h, owner, 'POST', '/app/api/workspaces', raw('{"name":"a\\u0000b"}')), 'name', 'field', 'body name NUL');
  refused(
    await call(h, owner, 'POST', `/app/api/workspaces/${ws}/goals`, {
      body: { site_id: site, name: 'G', type: 'EVENT_MATCH', intent: 'signup', pattern: 'x', filters: { action_id: 'a\udc00' } },
    }),
    'filters.action_id',
    'field',
    'nested member',
  );
  refused(
    await call(h, owner, 'POST', `/app/api/workspaces/${ws}/tenants`, { body: { site_id: 'site_\u0000', slug: 'north', name: 'North' } }),
    'site_id',
    'field',
    'body site_id',
  );
  assert.deepEqual((await call(h, owner, 'GET', '/app/api/workspaces')).json(), before, 'no workspace was made');
  // before a session exists: signing in with such an email is refused, not looked up
  refused(
    await h.app.inject({ method: 'POST', url: '/app/api/session', payload: { email: 'a\u0000@example.com', password: 'whatever it is' } }),
    'email',
    'field',
    'sign-in email',
  );
});

test('an embed token whose kid or claims hold a NUL is 401, as an unknown key or a malformed claim is', async () => {
  const key = await embedKey(h, ws);
  const unknownKid = await h.get('/v1/goals', {
    token: mint(h, { id: 'ek_unknown', secret: key.secret }, { token_id: token.id, site_id: site }),
  });
  const nulKid = await h.get('/v1/goals', {
    token: mint(h, { id: 'ek_\u0000', secret: key.secret }, { token_id: token.id, site_id: site }),
  });
  assert.equal(nulKid.statusCode, 401, nulKid.body);
  assert.equal(nulKid.json().error.message, unknownKid.json().error.message, 'the answer of any unknown key');
  for (const claims of [
    { token_id: token.id, site_id: 'site_\u0000' },
    { token_id: 'tok_\u0000', site_id: site },
    { token_id: token.id, site_id: site, tenant_id: '\ud800' },
  ]) {
    const res = await h.get('/v1/goals', { token: mint(h, key, claims) });
    assert.equal(res.statusCode, 401, `${JSON.stringify(claims)}: ${res.body}`);
    assert.match(res.json().error.message, /claim/);
  }
});

test('collection: a domain that holds a NUL or a lone surrogate is refused like any bad field (422 naming it), before the site is looked up', async () => {
  const post = (body: string) =>
    h.app.inject({ method: 'POST', url: '/api/event', headers: { 'content-type': 'text/plain', 'user-agent': CHROME }, payload: body });
  for (const domain of ['bytes.example\\u0000', 'a\\u0000b', '\\ud800.example']) {
    const res = await post(`{"n":"pageview","u":"https://bytes.example/","d":"${domain}"}`);
    assert.equal(res.statusCode, 422, `${domain}: ${res.body}`);
    assert.equal(res.json().error.details.field, 'domain');
  }
  // a stored field (an action's id from props) is refused as the import refuses it
  const action = await post('{"n":"signup","u":"https://bytes.example/","d":"bytes.example","p":{"action_id":"a\\u0000"}}');
  assert.equal(action.statusCode, 422, action.body);
  assert.equal((await post('{"n":"pageview","u":"https://bytes.example/","d":"bytes.example"}')).statusCode, 202);
});

test('the catalog refuses names, goal patterns and filters it cannot hold, whoever writes them (the CLI writes through it)', async () => {
  await assert.rejects(h.catalog.createWorkspace({ name: 'a\ud800', plan: 'pro' }), /workspace name is not valid Unicode text/);
  await assert.rejects(
    h.catalog.createSite({ workspaceId: ws, name: 'x\udfff', hostnames: ['u.example'], collectionProfile: 'strict' }),
    /site name is not valid Unicode/,
  );
  await assert.rejects(
    h.catalog.createGoal({ siteId: site, name: 'G', type: 'PAGEVIEW_MATCH', intent: 'content', pattern: '/a\u0000', filters: {} }),
    /goal pattern contains a NUL/,
  );
  await assert.rejects(
    h.catalog.createGoal({ siteId: site, name: 'G', type: 'EVENT_MATCH', intent: 'content', pattern: 'x', filters: { form_id: '\ud800' } }),
    /goal filter form_id is not valid Unicode/,
  );
});
