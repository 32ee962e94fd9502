// An invitation never opens an account that exists: whoever holds the link (the inviter, when no mail
// carries it) cannot set the account's first password, guess its password, or get its session through
// the invitation. The account joins from a session of its own; a new email chooses a password.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashSecret } from '../../src/domain/tokens.js';
import { issueLink } from '../../src/services/people/links.js';
import { harness, TEST_HASHER, type Harness } from './helpers/harness.js';
import { call, checked, PASSWORD, person, sessionCookieOf, signIn, type Person } from './helpers/app-api.js';

const secretOf = (url: string) => /\/app\/invite\/([0-9A-Za-z]{32})$/.exec(url)![1];

/** An admin of a workspace of their own, and the link of their invitation of `email` to it. */
async function inviter(h: Harness, email: string): Promise<{ ws: string; admin: Person; secret: string }> {
  const ws = (await h.workspace('pro')).id;
  const admin = await person(h, { workspaceId: ws, role: 'admin' });
  const r = await checked(h, admin, 'POST', `/app/api/workspaces/${ws}/invitations`, { body: { email, role: 'viewer' } });
  assert.equal(r.statusCode, 201, r.body);
  return { ws, admin, secret: secretOf(r.json().invitation_url) };
}

const accept = (h: Harness, secret: string, password: string, address = '198.51.100.7') =>
  h.app.inject({ method: 'POST', url: '/app/api/invitations/accept', payload: { invitation: secret, password }, remoteAddress: address });

test('an account with no password yet is not taken over: the inviter cannot choose its first password through the invitation', async () => {
  const h = await harness();
  try {
    // The victim signs in by link (like the demo's owner) and owns a workspace with a site.
    const victim = await h.people.createUser({ email: 'owner@victim.example' });
    const theirs = (await h.workspace('pro')).id;
    await h.people.addMember({ workspaceId: theirs, userId: victim.id, role: 'owner' });

    const { secret } = await inviter(h, 'owner@victim.example');
    const r = await accept(h, secret, 'chosen by the attacker');
    assert.equal(r.statusCode, 409, r.body);
    assert.equal(r.json().error.code, 'CONFLICT');
    assert.equal(r.json().error.details.reason, 'account_exists');
    assert.match(r.json().error.message, /sign in as owner@victim\.example, then open this invitation link again/);
    assert.equal(sessionCookieOf(r), undefined, 'no session');
    assert.equal((await h.people.findUserByEmail('owner@victim.example'))!.passwordHash, null, 'no password was set');
    assert.equal((await signIn(h, 'owner@victim.example', 'chosen by the attacker')).statusCode, 401);
    assert.equal(await h.people.getRole(theirs, victim.id), 'owner');
    assert.ok(
      await h.people.findOpenInvitation(hashSecret(secret), h.clock.now().toISOString()),
      'the invitation stays open for the account itself',
    );
  } finally {
    await h.close();
  }
});

test("an account's password is never checked through an invitation: thirty guesses and the right one all get the same 409, and no session", async () => {
  const h = await harness();
  try {
    const victim = await person(h, { email: 'victim@example.com' });
    const { secret } = await inviter(h, 'victim@example.com');
    const answers = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const r = await accept(h, secret, `wrong guess ${i} of many`);
      answers.add(`${r.statusCode} ${JSON.stringify({ ...r.json().error, request_id: null })}`);
      assert.equal(sessionCookieOf(r), undefined);
    }
    const right = await accept(h, secret, PASSWORD);
    const short = await accept(h, secret, 'short');
    for (const r of [right, short]) {
      answers.add(`${r.statusCode} ${JSON.stringify({ ...r.json().error, request_id: null })}`);
      assert.equal(sessionCookieOf(r), undefined);
    }
    assert.equal(answers.size, 1, [...answers].join('\n'));
    assert.match([...answers][0], /^409 /);
    // the victim's own sign-in was never throttled by those tries: no password was looked at
    assert.equal((await signIn(h, victim.email, PASSWORD, '198.51.100.7')).statusCode, 200);
  } finally {
    await h.close();
  }
});

test('the account joins from a session of its own: its password and its other sessions stay, and nobody else can join with the link', async () => {
  const h = await harness();
  try {
    const invitee = await person(h, { email: 'invitee@example.com' });
    const second = await person(h, { email: 'invitee@example.com'.replace('invitee', 'someone-else') });
    const otherSession = (await signIn(h, invitee.email)).json() as { csrf_token: string };
    const hashBefore = (await h.people.findUserByEmail(invitee.email))!.passwordHash;
    const { ws, secret } = await inviter(h, 'INVITEE@example.com');

    const preview = await checked(h, null, 'POST', '/app/api/invitations/preview', { body: { invitation: secret } });
    assert.equal(preview.statusCode, 200);
    const shown = preview.json() as { invited_by: { name: string } };
    assert.deepEqual(
      { ...shown, invited_by: shown.invited_by.name, expires_at: undefined },
      {
        email: 'invitee@example.com',
        role: 'viewer',
        workspace_name: 'ws pro',
        invited_by: 'Test Person',
        expires_at: undefined,
        account_exists: true,
      },
    );

    const noCsrf = await call(h, invitee, 'POST', '/app/api/invitations/join', { body: { invitation: secret }, csrf: false });
    assert.equal(noCsrf.statusCode, 403, 'a change needs the CSRF token');
    const wrongPerson = await checked(h, second, 'POST', '/app/api/invitations/join', { body: { invitation: secret } });
    assert.equal(wrongPerson.statusCode, 403);
    assert.match(
      wrongPerson.json().error.message,
      /This invitation is for invitee@example\.com, and you are signed in as someone-else@example\.com/,
    );
    assert.equal(await h.people.getRole(ws, second.user.id), null);
    assert.equal((await checked(h, null, 'POST', '/app/api/invitations/join', { body: { invitation: secret } })).statusCode, 401);

    const joined = await checked(h, invitee, 'POST', '/app/api/invitations/join', { body: { invitation: secret } });
    assert.equal(joined.statusCode, 200, joined.body);
    assert.deepEqual(joined.json(), { workspace_id: ws });
    assert.equal(sessionCookieOf(joined), undefined, 'the session goes on; no new one');
    assert.equal(await h.people.getRole(ws, invitee.user.id), 'viewer');
    assert.equal((await h.people.findUserByEmail(invitee.email))!.passwordHash, hashBefore);
    assert.equal((await checked(h, invitee, 'GET', '/app/api/session')).statusCode, 200);
    assert.ok(otherSession.csrf_token);
    assert.equal(
      (await checked(h, invitee, 'POST', '/app/api/invitations/join', { body: { invitation: secret } })).statusCode,
      404,
      'used once',
    );
  } finally {
    await h.close();
  }
});

test('a new email chooses a password; the preview says there is no account; a short password is 422 and nothing is made', async () => {
  const h = await harness();
  try {
    const { ws, secret } = await inviter(h, 'fresh@example.com');
    const preview = await checked(h, null, 'POST', '/app/api/invitations/preview', { body: { invitation: secret } });
    assert.equal(preview.json().account_exists, false);
    const short = await accept(h, secret, 'short');
    assert.equal(short.statusCode, 422);
    assert.deepEqual(short.json().error.details, { field: 'password' });
    assert.equal(await h.people.findUserByEmail('fresh@example.com'), null);
    const ok = await accept(h, secret, PASSWORD);
    assert.equal(ok.statusCode, 200);
    assert.ok(sessionCookieOf(ok));
    const user = await h.people.findUserByEmail('fresh@example.com');
    assert.ok(user && (await TEST_HASHER.verify(user.passwordHash!, PASSWORD)));
    assert.equal(await h.people.getRole(ws, user.user.id), 'viewer');
    const unknown = await checked(h, null, 'POST', '/app/api/invitations/preview', { body: { invitation: secret } });
    assert.equal(unknown.statusCode, 404, 'used');
  } finally {
    await h.close();
  }
});

test('a first password chosen by a person who signed in by link ends every other session of theirs', async () => {
  const h = await harness();
  try {
    const u = await h.people.createUser({ email: 'linked@example.com' });
    const deps = { people: h.people, clock: h.clock, publicUrl: h.container.config.publicUrl };
    const sessions: Person[] = [];
    for (let i = 0; i < 2; i++) {
      const link = await issueLink(deps, u, 'sign_in');
      const r = await checked(h, null, 'POST', '/app/api/sign-in-links/accept', { body: { sign_in: link.url.slice(-32) } });
      assert.equal(r.statusCode, 200);
      sessions.push({ user: u, email: u.email, password: '', cookie: sessionCookieOf(r)!, csrf: r.json().csrf_token });
    }
    const set = await checked(h, sessions[0], 'POST', '/app/api/session/password', { body: { new_password: PASSWORD } });
    assert.equal(set.statusCode, 200);
    assert.equal((await checked(h, sessions[1], 'GET', '/app/api/session')).statusCode, 401, 'the other session ended');
    assert.equal(
      (await checked(h, sessions[0], 'GET', '/app/api/session')).statusCode,
      401,
      'the session that chose it too: its answer started a new one',
    );
    const fresh = { ...sessions[0], cookie: sessionCookieOf(set)!, csrf: set.json().csrf_token };
    assert.equal((await checked(h, fresh, 'GET', '/app/api/session')).statusCode, 200);
  } finally {
    await h.close();
  }
});
