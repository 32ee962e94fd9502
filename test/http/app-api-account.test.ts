// The signed-in person's own account: setting and clearing their name (trimmed, one line, at most 100
// characters; GET /session shows it), and signing out on every device (every session of the person
// ends, this one included; another person's sessions stay).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from './helpers/harness.js';
import { call, checked, person, sessionCookieOf, signIn, type Person } from './helpers/app-api.js';

test('a person renames themselves and clears the name; GET /session shows it', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    const r = await checked(h, p, 'PATCH', '/app/api/session/name', { body: { name: '  Ada Lovelace ' } });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json().user, { user_id: p.user.id, email: p.email, name: 'Ada Lovelace' });
    assert.equal(r.json().csrf_token, p.csrf, 'the same session, the same token');
    assert.deepEqual(r.json().workspaces, []);
    assert.equal((await checked(h, p, 'GET', '/app/api/session')).json().user.name, 'Ada Lovelace');

    for (const cleared of ['', '   ', null]) {
      await checked(h, p, 'PATCH', '/app/api/session/name', { body: { name: 'Someone' } });
      const c = await checked(h, p, 'PATCH', '/app/api/session/name', { body: { name: cleared } });
      assert.equal(c.statusCode, 200, JSON.stringify(cleared));
      assert.equal(c.json().user.name, null, JSON.stringify(cleared));
      assert.equal((await checked(h, p, 'GET', '/app/api/session')).json().user.name, null);
    }
    // 100 characters is the most
    const longest = 'x'.repeat(100);
    assert.equal((await checked(h, p, 'PATCH', '/app/api/session/name', { body: { name: longest } })).json().user.name, longest);
  } finally {
    await h.close();
  }
});

test('a name too long or with a control character is refused with 422 naming the field; nothing changes', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    for (const name of ['x'.repeat(101), 'Ada\nLovelace', 'Ada\tLovelace', 'Ada\u0085Lovelace', 'Ada\u2028Lovelace']) {
      const r = await checked(h, p, 'PATCH', '/app/api/session/name', { body: { name } });
      assert.equal(r.statusCode, 422, JSON.stringify(name));
      assert.equal(r.json().error.code, 'INVALID_PARAMS');
      assert.deepEqual(r.json().error.details, { field: 'name' }, JSON.stringify(name));
    }
    for (const body of [{}, { name: 7 }, { name: 'A', other: 1 }]) {
      const r = await checked(h, p, 'PATCH', '/app/api/session/name', { body });
      assert.equal(r.statusCode, 422, JSON.stringify(body));
    }
    assert.equal((await checked(h, p, 'GET', '/app/api/session')).json().user.name, 'Test Person');
  } finally {
    await h.close();
  }
});

test('without a session both routes answer 401; without the CSRF token 403, and nothing changes', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    assert.equal((await checked(h, null, 'PATCH', '/app/api/session/name', { body: { name: 'X' } })).statusCode, 401);
    assert.equal((await checked(h, null, 'POST', '/app/api/session/sign-out-everywhere')).statusCode, 401);
    const rename = await checked(h, p, 'PATCH', '/app/api/session/name', { body: { name: 'X' }, csrf: false });
    assert.equal(rename.statusCode, 403);
    assert.equal(rename.json().error.code, 'FORBIDDEN');
    assert.equal((await checked(h, p, 'POST', '/app/api/session/sign-out-everywhere', { csrf: false })).statusCode, 403);
    assert.equal((await checked(h, p, 'POST', '/app/api/session/sign-out-everywhere', { csrf: 'not-the-token' })).statusCode, 403);
    const me = await checked(h, p, 'GET', '/app/api/session');
    assert.equal(me.statusCode, 200, 'the session lives on');
    assert.equal(me.json().user.name, 'Test Person');
  } finally {
    await h.close();
  }
});

test("signing out everywhere ends every session of the person, this one included, and clears the cookie; another person's stay", async () => {
  const h = await harness();
  try {
    const p = await person(h);
    const again = await signIn(h, p.email);
    const second: Person = { ...p, cookie: sessionCookieOf(again)!, csrf: again.json().csrf_token };
    assert.notEqual(second.cookie, p.cookie);
    const other = await person(h);
    for (const who of [p, second, other]) assert.equal((await call(h, who, 'GET', '/app/api/session')).statusCode, 200);

    const r = await checked(h, second, 'POST', '/app/api/session/sign-out-everywhere');
    assert.equal(r.statusCode, 204);
    assert.equal(sessionCookieOf(r), '', 'the cookie is cleared');
    for (const who of [p, second]) {
      const after = await checked(h, who, 'GET', '/app/api/session');
      assert.equal(after.statusCode, 401);
      assert.equal(after.json().error.code, 'UNAUTHORIZED');
    }
    assert.equal((await checked(h, other, 'GET', '/app/api/session')).statusCode, 200, "another person's session stays");
    // signing in again works
    assert.equal((await signIn(h, p.email)).statusCode, 200);
  } finally {
    await h.close();
  }
});
