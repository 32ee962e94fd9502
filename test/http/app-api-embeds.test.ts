// Embed keys and share links through the management API: a key's secret, shown once, signs tokens the
// read API honours at once and refuses once the key is revoked; origins are checked and named; a share
// link's url, shown once, opens its page and is gone once revoked; lists show neither secret nor slug.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { harness, type Harness } from './helpers/harness.js';
import { checked, person, type Person } from './helpers/app-api.js';
import { mint } from './helpers/embeds.js';

let h: Harness;
let ws: string;
let site: string;
let admin: Person;

before(async () => {
  h = await harness();
  ws = (await h.workspace('pro')).id;
  site = (await h.catalog.createSite({ workspaceId: ws, name: 'S', hostnames: ['embeds-api.example'], collectionProfile: 'strict' })).id;
  admin = await person(h, { workspaceId: ws, role: 'admin' });
});
after(() => h.close());

test("an embed key's secret signs tokens /v1 honours at once; revoked, they are refused on the next request", async () => {
  const made = await checked(h, admin, 'POST', `/app/api/workspaces/${ws}/embed-keys`, {
    body: { origins: ['https://App.Example.com', 'http://localhost:3000', 'https://app.example.com/'] },
  });
  assert.equal(made.statusCode, 201, made.body);
  const { key_id, secret, origins } = made.json();
  assert.match(secret, /^ff_embed_[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(origins, ['https://app.example.com', 'http://localhost:3000']);
  const parent = await h.token(ws);
  const token = mint(h, { id: key_id, secret }, { token_id: parent.id, site_id: site });
  assert.equal((await h.get('/v1/reports/overview', { token })).statusCode, 200);

  const list = await checked(h, admin, 'GET', `/app/api/workspaces/${ws}/embed-keys`);
  assert.deepEqual(
    list.json().embed_keys.map((k: Record<string, unknown>) => Object.keys(k).sort()),
    [['created_at', 'key_id', 'origins', 'revoked_at', 'workspace_id']],
  );
  assert.ok(!list.body.includes(secret));

  const revoked = await checked(h, admin, 'POST', `/app/api/workspaces/${ws}/embed-keys/${key_id}/revoke`);
  assert.equal(revoked.statusCode, 200);
  assert.ok(revoked.json().revoked_at);
  assert.equal((await h.get('/v1/reports/overview', { token })).statusCode, 401);
  // a key of another workspace is as unknown as a missing one
  const other = (await h.workspace('pro')).id;
  const foreign = await h.container.embeds!.createEmbedKey({ workspaceId: other, origins: [] });
  assert.equal((await checked(h, admin, 'POST', `/app/api/workspaces/${ws}/embed-keys/${foreign.id}/revoke`)).statusCode, 404);
});

test('origins that are not https origins (http only on loopback), or that have a path or a wildcard, are refused naming the field', async () => {
  for (const bad of [
    'http://app.example.com',
    'https://app.example.com/embed',
    'https://*.example.com',
    'app.example.com',
    'javascript:alert(1)',
  ]) {
    const r = await checked(h, admin, 'POST', `/app/api/workspaces/${ws}/embed-keys`, { body: { origins: [bad] } });
    assert.equal(r.statusCode, 422, bad);
    assert.equal(r.json().error.details.field, 'origins', bad);
  }
});

test("a share link's url is shown once and opens its page; revoked, the page is gone; a password and an expiry are checked", async () => {
  const tenant = (await h.catalog.createTenant({ siteId: site, slug: 'acme', name: 'Acme' })).id;
  const made = await checked(h, admin, 'POST', `/app/api/sites/${site}/shares`, {
    body: { tenant_id: tenant, password: 'a good long password', expires_at: '2099-01-01T00:00:00Z' },
  });
  assert.equal(made.statusCode, 201, made.body);
  const { share_id, url } = made.json();
  assert.deepEqual(
    { ...(made.json() as Record<string, unknown>), share_id: 'x', url: 'x', created_at: 'x' },
    {
      share_id: 'x',
      url: 'x',
      created_at: 'x',
      site_id: site,
      tenant_id: tenant,
      password: true,
      expires_at: '2099-01-01T00:00:00.000Z',
      revoked_at: null,
      state: 'active',
    },
  );
  const path = new URL(url).pathname;
  assert.equal((await h.app.inject({ method: 'GET', url: path })).statusCode, 200);
  const list = await checked(h, admin, 'GET', `/app/api/sites/${site}/shares`);
  assert.ok(!list.body.includes(path.split('/')[2]), 'no slug in lists');
  assert.equal((await checked(h, admin, 'POST', `/app/api/sites/${site}/shares/${share_id}/revoke`)).json().state, 'revoked');
  assert.equal((await h.app.inject({ method: 'GET', url: path })).statusCode, 404);

  const cases: [Record<string, unknown>, number, string][] = [
    [{ password: 'short' }, 422, 'password'],
    [{ expires_at: '2020-01-01T00:00:00Z' }, 422, 'expires_at'],
    [{ expires_at: 'tomorrow' }, 422, 'expires_at'],
    // a time without its zone would be read in the server's: refused, as the message says
    [{ expires_at: '2099-01-01T00:00:00' }, 422, 'expires_at'],
    [{ expires_at: '2099-01-01T00:00' }, 422, 'expires_at'],
  ];
  for (const [body, status, field] of cases) {
    const r = await checked(h, admin, 'POST', `/app/api/sites/${site}/shares`, { body });
    assert.equal(r.statusCode, status, JSON.stringify(body));
    assert.equal(r.json().error.details.field, field);
  }
  const offset = await checked(h, admin, 'POST', `/app/api/sites/${site}/shares`, { body: { expires_at: '2099-01-01T00:00:00.5+05:45' } });
  assert.equal(offset.statusCode, 201, offset.body);
  assert.equal(offset.json().expires_at, '2098-12-31T18:15:00.500Z');
  const otherSite = (
    await h.catalog.createSite({ workspaceId: ws, name: 'T', hostnames: ['embeds-api-2.example'], collectionProfile: 'strict' })
  ).id;
  const elsewhere = (await h.catalog.createTenant({ siteId: otherSite, slug: 'else', name: 'Else' })).id;
  assert.equal((await checked(h, admin, 'POST', `/app/api/sites/${site}/shares`, { body: { tenant_id: elsewhere } })).statusCode, 404);
});
