// The management API's mailed-report routes (/app/api/sites/{site_id}/reports, /app/api/reports/{id}),
// with a real SMTP server on loopback: a viewer subscribes themselves (confirmed, and sees only their
// own), may not add an outside address; an admin adds one (a confirmation mail arrives) and sees every
// subscription; another workspace's person finds neither the site nor a subscription; a viewer cannot
// end another's; a change without the CSRF token is refused; a server without mail says so. Every
// answer is checked against /app/api/openapi.json.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { harness, type Harness } from './helpers/harness.js';
import { call, checked, person, type Person } from './helpers/app-api.js';
import { startSmtpServer, TEST_CA_FILE, type SmtpTestServer } from './helpers/smtp-test-server.js';

let smtp: SmtpTestServer;
let h: Harness;
let site: string;
let tenant: string;
let otherTenant: string;
let admin: Person;
let viewer: Person;
let viewer2: Person;
let outsider: Person;

before(async () => {
  smtp = await startSmtpServer();
  h = await harness({ config: { smtpUrl: smtp.url, mailFrom: 'Footfall <reports@example.com>', smtpCa: TEST_CA_FILE } });
  const ws = await h.catalog.createWorkspace({ name: 'Acme', plan: 'pro' });
  const s = await h.catalog.createSite({ workspaceId: ws.id, name: 'Acme shop', hostnames: ['shop.example'], collectionProfile: 'strict' });
  site = s.id;
  tenant = (await h.catalog.createTenant({ siteId: site, slug: 'north', name: 'North' })).id;
  const other = await h.catalog.createWorkspace({ name: 'Other', plan: 'pro' });
  const otherSite = await h.catalog.createSite({
    workspaceId: other.id,
    name: 'Other shop',
    hostnames: ['other.example'],
    collectionProfile: 'strict',
  });
  otherTenant = (await h.catalog.createTenant({ siteId: otherSite.id, slug: 'south', name: 'South' })).id;
  admin = await person(h, { workspaceId: ws.id, role: 'admin' });
  viewer = await person(h, { workspaceId: ws.id, role: 'viewer' });
  viewer2 = await person(h, { workspaceId: ws.id, role: 'viewer' });
  outsider = await person(h, { workspaceId: other.id, role: 'owner' });
});
after(async () => {
  await h.close();
  await smtp.close();
});

const reports = () => `/app/api/sites/${site}/reports`;

test('a viewer subscribes themselves: confirmed at once, no mail, and GET shows only their own', async () => {
  const r = await checked(h, viewer, 'POST', reports(), { body: { period: 'week' } });
  assert.equal(r.statusCode, 201, r.body);
  const sub = r.json();
  assert.equal(sub.email, viewer.email.toLowerCase());
  assert.equal(sub.period, 'week');
  assert.equal(sub.confirmed, true);
  assert.equal(sub.member, true);
  assert.equal(sub.created, true);
  assert.equal(sub.tenant_id, null);
  assert.equal(sub.confirmation_mailed, undefined);

  const again = await checked(h, viewer, 'POST', reports(), { body: { period: 'week' } });
  assert.equal(again.statusCode, 201);
  assert.equal(again.json().created, false);
  assert.equal(again.json().subscription_id, sub.subscription_id);

  const mine = await checked(h, viewer2, 'POST', reports(), { body: { period: 'month', tenant_id: tenant } });
  assert.equal(mine.statusCode, 201, mine.body);
  assert.equal(mine.json().tenant_id, tenant);

  const list = await checked(h, viewer, 'GET', reports());
  assert.equal(list.statusCode, 200);
  assert.equal(list.json().mail, true);
  assert.deepEqual(
    list.json().subscriptions.map((s: { subscription_id: string }) => s.subscription_id),
    [sub.subscription_id],
  );
  assert.equal(smtp.received.length, 0, 'a member’s own address gets no confirmation');
});

test('a viewer cannot add an outside address (403); an admin can, and its confirmation link is mailed', async () => {
  const refused = await checked(h, viewer, 'POST', reports(), { body: { period: 'week', email: 'boss@example.org' } });
  assert.equal(refused.statusCode, 403, refused.body);
  assert.equal(refused.json().error.code, 'FORBIDDEN');

  const before = smtp.received.length;
  const r = await checked(h, admin, 'POST', reports(), { body: { period: 'month', email: 'Boss@Example.org', tenant_id: tenant } });
  assert.equal(r.statusCode, 201, r.body);
  const sub = r.json();
  assert.equal(sub.email, 'boss@example.org');
  assert.equal(sub.confirmed, false);
  assert.equal(sub.member, false);
  assert.equal(sub.confirmation_mailed, true);
  const mail = await smtp.nth(before + 1);
  assert.deepEqual(mail.to, ['boss@example.org']);
  assert.match(mail.body, /\/app\/reports\/confirm\//);

  const all = await checked(h, admin, 'GET', reports());
  const emails = all.json().subscriptions.map((s: { email: string }) => s.email);
  for (const e of ['boss@example.org', viewer.email.toLowerCase(), viewer2.email.toLowerCase()]) assert.ok(emails.includes(e), e);
});

test('a tenant of another site is an unknown tenant (404); a bad period or email names the field (422)', async () => {
  const r = await checked(h, admin, 'POST', reports(), { body: { period: 'week', tenant_id: otherTenant } });
  assert.equal(r.statusCode, 404, r.body);
  assert.match(r.json().error.message, /tenant/);
  const period = await checked(h, admin, 'POST', reports(), { body: { period: 'day' } });
  assert.equal(period.statusCode, 422);
  const email = await checked(h, admin, 'POST', reports(), { body: { period: 'week', email: 'not an address' } });
  assert.equal(email.statusCode, 422, email.body);
});

test('another workspace’s person finds neither the site (404) nor a subscription to delete (404)', async () => {
  const subs = (await checked(h, admin, 'GET', reports())).json().subscriptions as { subscription_id: string }[];
  const id = subs[0].subscription_id;
  assert.equal((await checked(h, outsider, 'GET', reports())).statusCode, 404);
  assert.equal((await checked(h, outsider, 'POST', reports(), { body: { period: 'week' } })).statusCode, 404);
  const del = await checked(h, outsider, 'DELETE', `/app/api/reports/${id}`);
  assert.equal(del.statusCode, 404);
  const unknown = await checked(h, outsider, 'DELETE', '/app/api/reports/no-such-subscription');
  assert.equal(unknown.statusCode, 404);
  assert.equal(del.json().error.message.replace(id, 'X'), unknown.json().error.message.replace('no-such-subscription', 'X'));
  assert.equal((await checked(h, admin, 'GET', reports())).json().subscriptions.length, subs.length, 'nothing was removed');
});

test('a viewer cannot end another’s subscription (404) but ends their own (204); an admin ends any', async () => {
  const all = (await checked(h, admin, 'GET', reports())).json().subscriptions as { subscription_id: string; email: string }[];
  const theirs = all.find((s) => s.email === viewer2.email.toLowerCase())!;
  const mine = all.find((s) => s.email === viewer.email.toLowerCase())!;
  const outside = all.find((s) => s.email === 'boss@example.org')!;
  assert.equal((await checked(h, viewer, 'DELETE', `/app/api/reports/${theirs.subscription_id}`)).statusCode, 404);
  assert.equal((await checked(h, viewer, 'DELETE', `/app/api/reports/${mine.subscription_id}`)).statusCode, 204);
  assert.equal((await checked(h, viewer, 'DELETE', `/app/api/reports/${mine.subscription_id}`)).statusCode, 404, 'gone');
  assert.equal((await checked(h, admin, 'DELETE', `/app/api/reports/${outside.subscription_id}`)).statusCode, 204);
  const left = (await checked(h, admin, 'GET', reports())).json().subscriptions as { subscription_id: string }[];
  assert.deepEqual(
    left.map((s) => s.subscription_id),
    [theirs.subscription_id],
  );
});

test('without the CSRF token a change is refused (403) and nothing changes; without a session, 401', async () => {
  const before = (await checked(h, admin, 'GET', reports())).json().subscriptions.length;
  const post = await checked(h, admin, 'POST', reports(), { body: { period: 'week' }, csrf: false });
  assert.equal(post.statusCode, 403);
  assert.match(post.json().error.message, /X-CSRF-Token/);
  const id = (await checked(h, admin, 'GET', reports())).json().subscriptions[0].subscription_id;
  const del = await checked(h, admin, 'DELETE', `/app/api/reports/${id}`, { csrf: 'wrong' });
  assert.equal(del.statusCode, 403);
  const foreign = await checked(h, admin, 'POST', reports(), { body: { period: 'week' }, origin: 'https://evil.example' });
  assert.equal(foreign.statusCode, 403);
  assert.equal((await checked(h, admin, 'GET', reports())).json().subscriptions.length, before);
  assert.equal((await checked(h, null, 'GET', reports())).statusCode, 401);
  assert.equal((await call(h, null, 'DELETE', `/app/api/reports/${id}`)).statusCode, 401);
});

test('a server without mail: GET says mail false, POST is 409 naming FOOTFALL_SMTP_URL', async () => {
  const bare = await harness();
  try {
    const ws = await bare.catalog.createWorkspace({ name: 'Quiet', plan: 'pro' });
    const s = await bare.catalog.createSite({
      workspaceId: ws.id,
      name: 'Quiet',
      hostnames: ['quiet.example'],
      collectionProfile: 'strict',
    });
    const owner = await person(bare, { workspaceId: ws.id, role: 'owner' });
    const list = await checked(bare, owner, 'GET', `/app/api/sites/${s.id}/reports`);
    assert.equal(list.statusCode, 200);
    assert.deepEqual(list.json(), { mail: false, subscriptions: [] });
    for (const body of [{ period: 'week' }, { period: 'month', email: 'someone@example.org' }]) {
      const r = await checked(bare, owner, 'POST', `/app/api/sites/${s.id}/reports`, { body });
      assert.equal(r.statusCode, 409, r.body);
      assert.equal(r.json().error.code, 'CONFLICT');
      assert.match(r.json().error.message, /FOOTFALL_SMTP_URL/);
    }
  } finally {
    await bare.close();
  }
});
