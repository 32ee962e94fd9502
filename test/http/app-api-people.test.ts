// People through the management API: seats per plan, invitations (single use, 48 hours, nothing
// half-made), who may invite whom, members and the last owner, reset and sign-in links.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/app.js';
import type { PlanId } from '../../src/domain/plans.js';
import { issueLink } from '../../src/services/people/links.js';
import { CapturingMailer, linkIn } from './helpers/capturing-mailer.js';
import { harness, type Harness } from './helpers/harness.js';
import { checked, PASSWORD, person, sessionCookieOf, signIn, type Person } from './helpers/app-api.js';

const HOUR = 3_600_000;
const secretOf = (url: string) => /\/app\/(?:invite|reset|sign-in)\/([0-9A-Za-z]{32})$/.exec(url)![1];

async function ownerOf(h: Harness, plan: PlanId, apiPolicy?: Record<string, unknown>): Promise<{ ws: string; owner: Person }> {
  const ws = (await h.workspace(plan, apiPolicy)).id;
  return { ws, owner: await person(h, { workspaceId: ws, role: 'owner' }) };
}
const inviteAs = (h: Harness, who: Person, ws: string, email: string, role = 'viewer') =>
  checked(h, who, 'POST', `/app/api/workspaces/${ws}/invitations`, { body: { email, role } });

test('seats per plan: members plus open invitations; past the plan 409 SEAT_LIMIT_REACHED and no invitation is made', async () => {
  const h = await harness();
  try {
    for (const [plan, policy, limit] of [
      ['free', undefined, 1],
      ['starter', undefined, 3],
      ['pro', undefined, 10],
      ['enterprise', { max_users: 2 }, 2],
    ] as const) {
      const { ws, owner } = await ownerOf(h, plan, policy);
      for (let i = 1; i < limit; i++)
        assert.equal((await inviteAs(h, owner, ws, `${plan}${i}@example.com`)).statusCode, 201, `${plan} seat ${i + 1}`);
      const r = await inviteAs(h, owner, ws, `${plan}-over@example.com`);
      assert.equal(r.statusCode, 409, plan);
      assert.equal(r.json().error.code, 'SEAT_LIMIT_REACHED');
      assert.deepEqual(r.json().error.details, { limit, used: limit });
      const members = (await checked(h, owner, 'GET', `/app/api/workspaces/${ws}/members`)).json();
      assert.deepEqual(members.seats, { used: limit, limit });
      const open = (await checked(h, owner, 'GET', `/app/api/workspaces/${ws}/invitations`)).json().invitations;
      assert.equal(open.length, limit - 1);
      assert.ok(!open.some((i: { email: string }) => i.email === `${plan}-over@example.com`));
    }
    const { ws, owner } = await ownerOf(h, 'enterprise');
    for (let i = 0; i < 12; i++) assert.equal((await inviteAs(h, owner, ws, `e${i}@example.com`)).statusCode, 201);
    assert.deepEqual((await checked(h, owner, 'GET', `/app/api/workspaces/${ws}/members`)).json().seats, { used: 13, limit: null });
  } finally {
    await h.close();
  }
});

test('an invitation works once and for 48 hours; an expired one frees its seat', async () => {
  const h = await harness();
  try {
    const { ws, owner } = await ownerOf(h, 'starter');
    const a = (await inviteAs(h, owner, ws, 'ann@example.com', 'admin')).json();
    assert.equal(a.expires_at, new Date(h.clock.now().getTime() + 48 * HOUR).toISOString());
    const b = (await inviteAs(h, owner, ws, 'bob@example.com')).json();
    assert.equal((await inviteAs(h, owner, ws, 'cid@example.com')).statusCode, 409, 'three seats taken');

    const short = await checked(h, null, 'POST', '/app/api/invitations/accept', {
      body: { invitation: secretOf(a.invitation_url), password: 'too short' },
    });
    assert.equal(short.statusCode, 422);
    assert.deepEqual(short.json().error.details, { field: 'password' });
    h.clock.advance(48 * HOUR - 1);
    const joined = await checked(h, null, 'POST', '/app/api/invitations/accept', {
      body: { invitation: secretOf(a.invitation_url), password: PASSWORD, name: 'Ann' },
    });
    assert.equal(joined.statusCode, 200);
    assert.deepEqual(joined.json().user, { user_id: joined.json().user.user_id, email: 'ann@example.com', name: 'Ann' });
    const ann = {
      user: null as never,
      email: 'ann@example.com',
      password: PASSWORD,
      cookie: sessionCookieOf(joined)!,
      csrf: joined.json().csrf_token,
    };
    const mine = (await checked(h, ann, 'GET', '/app/api/session')).json().workspaces;
    assert.deepEqual(
      mine.map((w: { workspace_id: string; role: string }) => [w.workspace_id, w.role]),
      [[ws, 'admin']],
    );
    const again = await checked(h, null, 'POST', '/app/api/invitations/accept', {
      body: { invitation: secretOf(a.invitation_url), password: PASSWORD },
    });
    assert.equal(again.statusCode, 404, 'used once');

    h.clock.advance(1);
    const late = await checked(h, null, 'POST', '/app/api/invitations/accept', {
      body: { invitation: secretOf(b.invitation_url), password: PASSWORD },
    });
    assert.equal(late.statusCode, 404, 'expired at 48 hours');
    assert.equal((await signIn(h, 'bob@example.com')).statusCode, 401, 'no account was made');
    assert.equal((await inviteAs(h, owner, ws, 'cid@example.com')).statusCode, 201, 'the expired invitation freed its seat');
  } finally {
    await h.close();
  }
});

test('admins invite admins and viewers, owners anyone; owners alone change roles; a workspace keeps an owner', async () => {
  const h = await harness();
  try {
    const { ws, owner } = await ownerOf(h, 'pro');
    const admin = await person(h, { workspaceId: ws, role: 'admin' });
    assert.equal((await inviteAs(h, admin, ws, 'o@example.com', 'owner')).statusCode, 403);
    assert.equal((await inviteAs(h, admin, ws, 'a@example.com', 'admin')).statusCode, 201);
    assert.equal((await inviteAs(h, owner, ws, 'o@example.com', 'owner')).statusCode, 201);
    const open = (await checked(h, admin, 'GET', `/app/api/workspaces/${ws}/invitations`)).json().invitations as {
      invitation_id: string;
      role: string;
    }[];
    const ownerInvite = open.find((i) => i.role === 'owner')!;
    assert.equal((await checked(h, admin, 'DELETE', `/app/api/workspaces/${ws}/invitations/${ownerInvite.invitation_id}`)).statusCode, 403);
    assert.equal((await checked(h, owner, 'DELETE', `/app/api/workspaces/${ws}/invitations/${ownerInvite.invitation_id}`)).statusCode, 204);
    assert.equal((await checked(h, owner, 'DELETE', `/app/api/workspaces/${ws}/invitations/${ownerInvite.invitation_id}`)).statusCode, 404);

    const last = await checked(h, owner, 'PATCH', `/app/api/workspaces/${ws}/members/${owner.user.id}`, { body: { role: 'viewer' } });
    assert.equal(last.statusCode, 409);
    assert.match(last.json().error.message, /must keep an owner/);
    assert.equal((await checked(h, owner, 'DELETE', `/app/api/workspaces/${ws}/members/${owner.user.id}`)).statusCode, 409);
    const promoted = await checked(h, owner, 'PATCH', `/app/api/workspaces/${ws}/members/${admin.user.id}`, { body: { role: 'owner' } });
    assert.equal(promoted.json().role, 'owner');
    assert.equal(
      (await checked(h, admin, 'DELETE', `/app/api/workspaces/${ws}/members/${owner.user.id}`)).statusCode,
      204,
      'the new owner removes the old one',
    );
    assert.equal((await checked(h, owner, 'GET', `/app/api/workspaces/${ws}/sites`)).statusCode, 404, 'no longer a member');
    const bad = await checked(h, admin, 'PATCH', `/app/api/workspaces/${ws}/members/${admin.user.id}`, { body: { role: 'boss' } });
    assert.equal(bad.statusCode, 422);
    assert.match(bad.json().error.message, /role: it must be one of owner, admin, viewer/);
  } finally {
    await h.close();
  }
});

test('a reset asked for by email is mailed; its link sets a new password once and ends every session', async () => {
  const h = await harness();
  const mailer = new CapturingMailer();
  const app = await buildApp({ ...h.container, mailer }, { logger: false });
  try {
    const p = await person(h);
    const ask = (email: string) => app.inject({ method: 'POST', url: '/app/api/password-reset', payload: { email } });
    const unknown = await ask('nobody@example.com');
    const known = await ask(p.email.toUpperCase());
    assert.deepEqual([known.statusCode, known.body], [unknown.statusCode, unknown.body]);
    assert.equal(known.json().mail_configured, true);
    await mailer.settled();
    const mail = mailer.sent[0];
    assert.deepEqual(
      mailer.sent.map((s) => s.to),
      [p.email],
    );
    const accept = (password: string) =>
      app.inject({ method: 'POST', url: '/app/api/password-reset/accept', payload: { reset: secretOf(linkIn(mail)), password } });
    assert.equal((await accept('short')).statusCode, 422);
    const done = await accept('my new long password');
    assert.equal(done.statusCode, 200);
    assert.ok(sessionCookieOf(done));
    assert.equal((await checked(h, p, 'GET', '/app/api/session')).statusCode, 401, 'the old session ended');
    assert.equal((await accept('yet another password')).statusCode, 404, 'used once');
    assert.equal((await signIn(h, p.email, 'my new long password')).statusCode, 200);
    // Without mail the answer says so, and nothing is made.
    const unmailed = await checked(h, null, 'POST', '/app/api/password-reset', { body: { email: p.email } });
    assert.deepEqual([unmailed.statusCode, unmailed.json().mail_configured], [200, false]);
  } finally {
    await app.close();
    await h.close();
  }
});

test('reset mails are throttled: 10 requests from an address, 3 mails to an email, in 15 minutes; the answers alike', async () => {
  const h = await harness();
  const mailer = new CapturingMailer();
  const app = await buildApp({ ...h.container, mailer }, { logger: false });
  try {
    const p = await person(h);
    const ask = (email: string, remoteAddress: string) =>
      app.inject({ method: 'POST', url: '/app/api/password-reset', payload: { email }, remoteAddress });
    // one email asked for from four addresses: four answers alike, three mails
    const answers = [];
    for (const address of ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4']) answers.push(await ask(p.email, address));
    assert.deepEqual(new Set(answers.map((r) => `${r.statusCode} ${r.body}`)).size, 1, 'the fourth is answered as the others');
    assert.equal(answers[0].statusCode, 200);
    await mailer.settled();
    assert.deepEqual(
      mailer.sent.map((m) => m.to),
      [p.email, p.email, p.email],
    );
    // one address: ten requests, whatever the email, then 429 with Retry-After; another address goes on
    for (let i = 0; i < 9; i++) assert.equal((await ask(`nobody${i}@example.com`, '192.0.2.1')).statusCode, 200, `request ${i + 2}`);
    const refused = await ask('nobody@example.com', '192.0.2.1');
    assert.equal(refused.statusCode, 429, refused.body);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal((await ask('nobody@example.com', '198.51.100.7')).statusCode, 200);
    await mailer.settled();
    assert.equal(mailer.sent.length, 3, 'no more mail');
  } finally {
    await app.close();
    await h.close();
  }
});

test('a one-time sign-in link signs in once, within the hour', async () => {
  const h = await harness();
  try {
    const u = await h.people.createUser({ email: 'demo@example.com' });
    const deps = { people: h.people, clock: h.clock, publicUrl: h.container.config.publicUrl };
    const link = await issueLink(deps, u, 'sign_in');
    assert.match(link.url, /^http:\/\/127\.0\.0\.1:8080\/app\/sign-in\/[0-9A-Za-z]{32}$/);
    const use = (url: string) => checked(h, null, 'POST', '/app/api/sign-in-links/accept', { body: { sign_in: secretOf(url) } });
    const r = await use(link.url);
    assert.equal(r.statusCode, 200);
    assert.equal(r.json().user.email, 'demo@example.com');
    assert.equal((await use(link.url)).statusCode, 404);
    const late = await issueLink(deps, u, 'sign_in');
    h.clock.advance(HOUR);
    assert.equal((await use(late.url)).statusCode, 404);
    const garbage = await checked(h, null, 'POST', '/app/api/sign-in-links/accept', { body: { sign_in: 'not-a-secret' } });
    assert.equal(garbage.statusCode, 404);
  } finally {
    await h.close();
  }
});
