// Signing in and out of the management API: the cookie, unknown email vs wrong password, throttling,
// sign-out, password changes, the sliding expiry, CSRF and Origin checks, the per-session rate limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/app.js';
import type { PasswordHasher } from '../../src/ports/password-hasher.js';
import { harness, TEST_HASHER } from './helpers/harness.js';
import { call, checked, ORIGIN, PASSWORD, person, sessionCookieOf, signIn } from './helpers/app-api.js';

const DAY = 86_400_000;

test('signing in sets an HttpOnly, SameSite=Lax cookie on /app for 14 days, Secure when the request came over HTTPS', async () => {
  const h = await harness({ config: { trustProxy: 'true' } });
  try {
    const p = await person(h);
    const r = await signIn(h, p.email.toUpperCase());
    assert.equal(r.statusCode, 200);
    const c = r.cookies.find((x) => x.name === 'footfall_session')!;
    assert.match(c.value, /^[0-9A-Za-z]{43}$/);
    assert.deepEqual([c.httpOnly, c.sameSite, c.path, c.secure ?? false], [true, 'Lax', '/app', false]);
    assert.equal((c.expires as Date).getTime(), h.clock.now().getTime() + 14 * DAY);
    assert.deepEqual(r.json().user, { user_id: p.user.id, email: p.email, name: 'Test Person' });
    const tls = await h.app.inject({
      method: 'POST',
      url: '/app/api/session',
      payload: { email: p.email, password: PASSWORD },
      headers: { 'x-forwarded-proto': 'https' },
    });
    assert.equal(tls.cookies.find((x) => x.name === 'footfall_session')?.secure, true);
    const me = await checked(h, { ...p, cookie: c.value, csrf: r.json().csrf_token }, 'GET', '/app/api/session');
    assert.equal(me.json().csrf_token, r.json().csrf_token, 'one CSRF token per session');
  } finally {
    await h.close();
  }
});

test('an unknown email and a wrong password get the same answer, and each runs one password verification', async () => {
  let verifies = 0;
  const counting: PasswordHasher = { hash: (p) => TEST_HASHER.hash(p), verify: (hash, p) => (verifies++, TEST_HASHER.verify(hash, p)) };
  const h = await harness({ hasher: counting });
  try {
    const p = await person(h);
    await h.people.createUser({ email: 'linkonly@example.com' });
    const answers = [];
    for (const [email, password] of [
      [p.email, 'wrong password!'],
      ['nobody@example.com', PASSWORD],
      ['linkonly@example.com', PASSWORD],
    ]) {
      const before = verifies;
      const r = await checked(h, null, 'POST', '/app/api/session', { body: { email, password } });
      assert.equal(verifies - before, 1, `${email}: one verification`);
      assert.equal(r.statusCode, 401);
      answers.push({ ...r.json().error, request_id: undefined });
    }
    assert.deepEqual(answers[1], answers[0]);
    assert.deepEqual(answers[2], answers[0]);
    assert.deepEqual(answers[0], { code: 'INVALID_CREDENTIALS', message: 'Wrong email or password.', request_id: undefined });
  } finally {
    await h.close();
  }
});

test('wrong passwords sent at once meet the bound they meet one by one: of 15 at once, 10 are wrong (401) and 5 refused (429); a right one after is refused too', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    const burst = await Promise.all(Array.from({ length: 15 }, () => signIn(h, p.email, 'wrong password!')));
    const statuses = burst.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [...Array(10).fill(401), ...Array(5).fill(429)]);
    assert.equal((await signIn(h, p.email)).statusCode, 429, 'ten failures were counted, not fewer');
    assert.equal((await signIn(h, p.email, PASSWORD, '192.0.2.44')).statusCode, 200, 'the owner elsewhere');
  } finally {
    await h.close();
  }
});

test('past 10 failures for one email from one address: 429 there with Retry-After until the window frees a slot; a success does not reset the count', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    for (let i = 0; i < 9; i++) {
      assert.equal((await signIn(h, p.email, 'wrong password!')).statusCode, 401);
      h.clock.advance(1000);
    }
    assert.equal((await signIn(h, p.email)).statusCode, 200, 'a success');
    assert.equal((await signIn(h, p.email, 'wrong password!')).statusCode, 401, 'the tenth failure');
    h.clock.advance(1000);
    const refused = await signIn(h, p.email);
    assert.equal(refused.statusCode, 429, 'even the right password');
    // The first failure leaves the 15-minute window 900 s after it was made, 10 s ago.
    assert.equal(refused.headers['retry-after'], '890');
    assert.deepEqual(refused.json().error.details, { retry_after_seconds: 890 });
    // Another email from the same address is not held back, nor the owner from another address (ten
    // wrong passwords elsewhere do not lock a person out); another process of the same control plane is.
    const other = await person(h);
    assert.equal((await signIn(h, other.email)).statusCode, 200);
    assert.equal((await signIn(h, p.email, PASSWORD, '192.0.2.44')).statusCode, 200, 'the owner elsewhere');
    const second = await buildApp(h.container, { logger: false });
    try {
      const r = await second.inject({
        method: 'POST',
        url: '/app/api/session',
        payload: { email: p.email, password: PASSWORD },
        remoteAddress: '203.0.113.9',
      });
      assert.equal(r.statusCode, 429, 'the count lives in the control plane');
    } finally {
      await second.close();
    }
    h.clock.advance(890_000);
    assert.equal((await signIn(h, p.email)).statusCode, 200, 'the slot is free again');
  } finally {
    await h.close();
  }
});

test('past 100 failures for one email from any addresses: 429 for it from everywhere, until the window frees a slot', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    // ten addresses, each just under its own pair bound
    for (let a = 0; a < 10; a++)
      for (let i = 0; i < 10; i++)
        assert.equal((await signIn(h, p.email, 'wrong password!', `198.51.100.${a + 1}`)).statusCode, 401, `address ${a}, try ${i}`);
    const r = await signIn(h, p.email, PASSWORD, '192.0.2.200');
    assert.equal(r.statusCode, 429, 'a hundred failures hold the email back from a new address too');
    assert.equal(r.headers['retry-after'], '900');
    h.clock.advance(900_000);
    assert.equal((await signIn(h, p.email, PASSWORD, '192.0.2.200')).statusCode, 200);
  } finally {
    await h.close();
  }
});

test('past 50 failures from one client address: 429 for every email from it, not from another address', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    for (let i = 0; i < 50; i++)
      assert.equal((await signIn(h, `guess${i}@example.com`, 'wrong password!', '198.51.100.7')).statusCode, 401);
    const r = await signIn(h, p.email, PASSWORD, '198.51.100.7');
    assert.equal(r.statusCode, 429);
    assert.equal(r.headers['retry-after'], '900');
    assert.equal((await signIn(h, p.email, PASSWORD, '198.51.100.8')).statusCode, 200);
  } finally {
    await h.close();
  }
});

test('signing out ends the session at once and clears the cookie', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    const out = await checked(h, p, 'DELETE', '/app/api/session');
    assert.equal(out.statusCode, 204);
    assert.equal(sessionCookieOf(out), '');
    assert.equal((await checked(h, p, 'GET', '/app/api/session')).statusCode, 401);
    assert.equal((await checked(h, p, 'DELETE', '/app/api/session')).statusCode, 401);
  } finally {
    await h.close();
  }
});

test('a password change ends every session of the person; the answer starts a new one', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    const laptop = { ...p };
    const phoneRes = await signIn(h, p.email);
    const phone = { ...p, cookie: sessionCookieOf(phoneRes)!, csrf: phoneRes.json().csrf_token };
    const wrong = await checked(h, laptop, 'POST', '/app/api/session/password', {
      body: { current_password: 'not my password', new_password: 'a brand new password' },
    });
    assert.equal(wrong.statusCode, 401);
    const short = await checked(h, laptop, 'POST', '/app/api/session/password', {
      body: { current_password: PASSWORD, new_password: 'short' },
    });
    assert.equal(short.statusCode, 422);
    assert.deepEqual(short.json().error.details, { field: 'new_password' });
    const changed = await checked(h, laptop, 'POST', '/app/api/session/password', {
      body: { current_password: PASSWORD, new_password: 'a brand new password' },
    });
    assert.equal(changed.statusCode, 200);
    assert.equal((await checked(h, laptop, 'GET', '/app/api/session')).statusCode, 401, 'this session ended');
    assert.equal((await checked(h, phone, 'GET', '/app/api/session')).statusCode, 401, 'and the other one');
    const fresh = { ...p, cookie: sessionCookieOf(changed)!, csrf: changed.json().csrf_token };
    assert.equal((await checked(h, fresh, 'GET', '/app/api/session')).statusCode, 200);
    assert.equal((await signIn(h, p.email)).statusCode, 401);
    assert.equal((await signIn(h, p.email, 'a brand new password')).statusCode, 200);
  } finally {
    await h.close();
  }
});

test('a session lives 14 days from its last request', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    h.clock.advance(13 * DAY);
    const r = await checked(h, p, 'GET', '/app/api/session');
    assert.equal(r.statusCode, 200);
    const renewed = r.cookies.find((c) => c.name === 'footfall_session')!;
    assert.equal(renewed.value, p.cookie, 'the same session, sent again with its new expiry');
    assert.equal((renewed.expires as Date).getTime(), h.clock.now().getTime() + 14 * DAY);
    h.clock.advance(13 * DAY);
    assert.equal((await checked(h, p, 'GET', '/app/api/session')).statusCode, 200, '26 days after signing in');
    h.clock.advance(14 * DAY);
    const gone = await checked(h, p, 'GET', '/app/api/session');
    assert.equal(gone.statusCode, 401, '14 days without a request');
    assert.equal(sessionCookieOf(gone), '', 'the stale cookie is cleared');
  } finally {
    await h.close();
  }
});

test('without the CSRF token, with a wrong one, or from a foreign Origin a change is 403 and nothing changes', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    const create = (opts: Parameters<typeof call>[4]) =>
      checked(h, p, 'POST', '/app/api/workspaces', { body: { name: 'Side project' }, ...opts });
    const count = async () => (await checked(h, p, 'GET', '/app/api/workspaces')).json().workspaces.length;
    for (const [why, opts] of [
      ['no token', { csrf: false as const }],
      ['a wrong token', { csrf: 'x'.repeat(43) }],
      ["another session's token", { csrf: (await person(h)).csrf }],
      ['a foreign Origin', { origin: 'https://evil.example' }],
      ['an Origin on another port', { origin: 'http://127.0.0.1:8081' }],
    ] as const) {
      const r = await create(opts);
      assert.equal(r.statusCode, 403, why);
      assert.equal(r.json().error.code, 'FORBIDDEN');
    }
    assert.equal(await count(), 0, 'nothing was created');
    assert.equal((await create({ origin: ORIGIN })).statusCode, 201, 'the server’s own origin');
    assert.equal((await create({})).statusCode, 201, 'no Origin (not a browser)');
    assert.equal(await count(), 2);
    // Signing in from another site's page is refused too; reads need no token.
    const foreign = await h.app.inject({
      method: 'POST',
      url: '/app/api/session',
      payload: { email: p.email, password: PASSWORD },
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(foreign.statusCode, 403);
    assert.equal(sessionCookieOf(foreign), undefined);
    assert.equal((await checked(h, p, 'GET', '/app/api/workspaces', { origin: 'https://evil.example' })).statusCode, 200);
  } finally {
    await h.close();
  }
});

test('a session may make 100 requests in any 5 seconds, at once if it likes; the 101st is 429 with Retry-After until the 5 s are past; other sessions go on', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    for (let i = 0; i < 100; i++) assert.equal((await call(h, p, 'GET', '/app/api/session')).statusCode, 200, `request ${i + 1}`);
    const r = await checked(h, p, 'GET', '/app/api/session');
    assert.equal(r.statusCode, 429);
    assert.equal(r.headers['retry-after'], '5');
    assert.equal((await call(h, await person(h), 'GET', '/app/api/session')).statusCode, 200);
    h.clock.advance(4_999);
    assert.equal((await call(h, p, 'GET', '/app/api/session')).statusCode, 429, 'a millisecond short of the window');
    h.clock.advance(1);
    assert.equal((await call(h, p, 'GET', '/app/api/session')).statusCode, 200);
  } finally {
    await h.close();
  }
});
