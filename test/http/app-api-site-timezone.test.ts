// A site's time zone through the management API (docs/decisions/site-timezone.md): set at creation or
// later by admins and owners, returned in every site record, refused with the field named and what to
// send, and absent from /v1, whose contract does not change. Runs on both control planes (the scale
// stack runs this file on PostgreSQL: test/stack/http-suite.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './helpers/harness.js';
import { checked, person } from './helpers/app-api.js';

const HINT = /an IANA time zone name such as Europe\/Berlin or Asia\/Kathmandu/;

test('a site is made with a time zone or UTC, changes it by PATCH in one spelling, and every site record shows it', async () => {
  const h = await harness();
  try {
    const ws = (await h.workspace('pro')).id;
    const admin = await person(h, { workspaceId: ws, role: 'admin' });
    const create = (host: string, extra: object = {}) =>
      checked(h, admin, 'POST', `/app/api/workspaces/${ws}/sites`, {
        body: { name: host, hostnames: [host], collection_profile: 'strict', ...extra },
      });
    const nepal = await create('np.example.com', { timezone: 'Asia/Kathmandu' });
    assert.equal(nepal.statusCode, 201, nepal.body);
    assert.equal(nepal.json().timezone, 'Asia/Kathmandu');
    const plain = (await create('plain.example.com')).json();
    assert.equal(plain.timezone, 'UTC', 'UTC unless told');

    const patched = await checked(h, admin, 'PATCH', `/app/api/sites/${plain.site_id}`, { body: { timezone: 'america/new_york' } });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().timezone, 'America/New_York', 'the spelling of the IANA name');
    const utc = await checked(h, admin, 'PATCH', `/app/api/sites/${nepal.json().site_id}`, { body: { timezone: 'Etc/UTC' } });
    assert.equal(utc.json().timezone, 'UTC', "UTC's other names are UTC");

    const listed = (await checked(h, admin, 'GET', `/app/api/workspaces/${ws}/sites`)).json().sites;
    assert.deepEqual(listed.map((s: { name: string; timezone: string }) => [s.name, s.timezone]).sort(), [
      ['np.example.com', 'UTC'],
      ['plain.example.com', 'America/New_York'],
    ]);
    const facts = (await checked(h, admin, 'GET', `/app/api/sites/${plain.site_id}`)).json();
    assert.equal(facts.site.timezone, 'America/New_York');
    assert.equal((await h.catalog.getSite(plain.site_id))!.timezone, 'America/New_York', 'stored, not only answered');
  } finally {
    await h.close();
  }
});

test('an unknown zone, an offset, empty, over-long or NUL is 422 INVALID_PARAMS naming timezone, and nothing is written', async () => {
  const h = await harness();
  try {
    const ws = (await h.workspace('pro')).id;
    const owner = await person(h, { workspaceId: ws, role: 'owner' });
    const site = await h.catalog.createSite({
      workspaceId: ws,
      name: 'S',
      hostnames: ['s.example.com'],
      collectionProfile: 'strict',
      timezone: 'Europe/Berlin',
    });
    const refusals: [unknown, RegExp][] = [
      ['+05:45', HINT],
      ['Mars/Base', HINT],
      ['UTC+1', HINT],
      ['', HINT],
      [`Europe/${'B'.repeat(300)}`, HINT],
      ['Europe/Berlin ', HINT],
      ['Europe/Berlin\u0000', /timezone: it contains a NUL character/],
      [5, /timezone: it must be a string/],
      [null, /timezone: it must be a string/],
    ];
    for (const [timezone, message] of refusals) {
      const why = JSON.stringify(timezone);
      const up = await checked(h, owner, 'PATCH', `/app/api/sites/${site.id}`, { body: { timezone } });
      assert.equal(up.statusCode, 422, `${why}: ${up.body}`);
      assert.equal(up.json().error.code, 'INVALID_PARAMS', why);
      assert.deepEqual(up.json().error.details, { field: 'timezone' }, why);
      assert.match(up.json().error.message, message, why);
      const made = await checked(h, owner, 'POST', `/app/api/workspaces/${ws}/sites`, {
        body: { name: 'X', hostnames: ['x.example.com'], collection_profile: 'strict', timezone },
      });
      assert.deepEqual([made.statusCode, made.json().error.details], [422, { field: 'timezone' }], why);
    }
    assert.equal((await h.catalog.getSite(site.id))!.timezone, 'Europe/Berlin', 'unchanged');
    assert.equal(await h.catalog.findSiteByHostname('x.example.com'), null, 'no site made');
  } finally {
    await h.close();
  }
});

test('only admins and owners change the zone (viewers 403), with the CSRF token as every change', async () => {
  const h = await harness();
  try {
    const ws = (await h.workspace('pro')).id;
    const site = await h.catalog.createSite({ workspaceId: ws, name: 'S', hostnames: ['s.example.com'], collectionProfile: 'strict' });
    const viewer = await person(h, { workspaceId: ws, role: 'viewer' });
    const owner = await person(h, { workspaceId: ws, role: 'owner' });
    const refused = await checked(h, viewer, 'PATCH', `/app/api/sites/${site.id}`, { body: { timezone: 'Asia/Tokyo' } });
    assert.deepEqual([refused.statusCode, refused.json().error.code], [403, 'FORBIDDEN']);
    const madeByViewer = await checked(h, viewer, 'POST', `/app/api/workspaces/${ws}/sites`, {
      body: { name: 'V', hostnames: ['v.example.com'], collection_profile: 'strict', timezone: 'Asia/Tokyo' },
    });
    assert.equal(madeByViewer.statusCode, 403);
    const noCsrf = await checked(h, owner, 'PATCH', `/app/api/sites/${site.id}`, { body: { timezone: 'Asia/Tokyo' }, csrf: false });
    assert.equal(noCsrf.statusCode, 403);
    assert.equal((await h.catalog.getSite(site.id))!.timezone, 'UTC');
    // and the viewer reads it, as every member reads the site
    const ok = await checked(h, owner, 'PATCH', `/app/api/sites/${site.id}`, { body: { timezone: 'Asia/Tokyo' } });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal((await checked(h, viewer, 'GET', `/app/api/sites/${site.id}`)).json().site.timezone, 'Asia/Tokyo');
  } finally {
    await h.close();
  }
});

test('/v1 answers as its contract says: no timezone in /v1/sites, whatever the site has', async () => {
  const h = await harness();
  try {
    const ws = (await h.workspace('pro')).id;
    await h.catalog.createSite({
      workspaceId: ws,
      name: 'S',
      hostnames: ['s.example.com'],
      collectionProfile: 'strict',
      timezone: 'Asia/Kathmandu',
    });
    const r = await h.get('/v1/sites', { token: (await h.token(ws)).secret });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(Object.keys(r.json().items[0]), ['siteId', 'name', 'hostnames', 'status', 'product_configuration']);
    assert.doesNotMatch(r.body, /timezone|Kathmandu/i);
  } finally {
    await h.close();
  }
});
