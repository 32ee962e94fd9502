// Two-factor sign-in through the management API: turning it on (a secret of 160 bits, confirmed by the
// password and a current code; ten recovery codes once), signing in in two steps (no session before the
// code; the challenge lives five minutes and is used once), codes used once, wrong codes throttled with
// passwords' throttle, recovery codes, new codes, turning it off; and a reset leaves it on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { issueLink } from '../../src/services/people/links.js';
import { harness } from './helpers/harness.js';
import { checked, person, sessionCookieOf, signIn, type Person } from './helpers/app-api.js';
import { codeAt, secondStep, turnOn } from './helpers/two-factor.js';

const MINUTE = 60_000;
const status = async (h: Awaited<ReturnType<typeof harness>>, p: Person) =>
  (await checked(h, p, 'GET', '/app/api/session/two-factor')).json();

test('turning it on: a 160-bit secret as text and QR code, confirmed by the password and a current code; ten codes once; other sessions end', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    const elsewhere = sessionCookieOf(await signIn(h, p.email))!;
    assert.deepEqual(await status(h, p), { enabled: false, recovery_codes_left: 0 });
    const setup = await checked(h, p, 'POST', '/app/api/session/two-factor/setup');
    assert.equal(setup.statusCode, 200);
    const { secret, otpauth_uri, qr } = setup.json();
    assert.match(secret, /^[A-Z2-7]{32}$/, '160 bits in base32');
    assert.equal(
      otpauth_uri,
      `otpauth://totp/footfall:${encodeURIComponent(p.email)}?issuer=footfall&secret=${secret}&algorithm=SHA1&digits=6&period=30`,
    );
    assert.ok(qr.size >= 29 && /^(M\d+ \d+h\d+v1h-\d+z)+$/.test(qr.path), 'a QR code as one SVG path');
    assert.deepEqual(await status(h, p), { enabled: false, recovery_codes_left: 0 }, 'not on before a code is confirmed');
    assert.equal((await signIn(h, p.email)).json().two_factor_required, undefined, 'signing in is unchanged meanwhile');

    const enable = (body: object) => checked(h, p, 'POST', '/app/api/session/two-factor/enable', { body });
    const wrongPassword = await enable({ password: 'not the password', code: codeAt(h, secret) });
    assert.deepEqual([wrongPassword.statusCode, wrongPassword.json().error.code], [401, 'INVALID_CREDENTIALS']);
    const wrongCode = await enable({ password: p.password, code: codeAt(h, secret, 5) });
    assert.deepEqual([wrongCode.statusCode, wrongCode.json().error.code], [401, 'INVALID_CODE']);
    assert.deepEqual(await status(h, p), { enabled: false, recovery_codes_left: 0 });

    const on = await enable({ password: p.password, code: codeAt(h, secret, -1) });
    assert.equal(on.statusCode, 200, 'a code of the step before is accepted');
    const codes: string[] = on.json().recovery_codes;
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const c of codes) assert.match(c, /^[0-9a-hjkmnp-tv-z]{4}(-[0-9a-hjkmnp-tv-z]{4}){3}$/);
    assert.deepEqual(await status(h, p), { enabled: true, recovery_codes_left: 10 });
    assert.equal((await checked(h, p, 'GET', '/app/api/session')).statusCode, 200, 'this session goes on');
    const other = await h.app.inject({ url: '/app/api/session', headers: { cookie: `footfall_session=${elsewhere}` } });
    assert.equal(other.statusCode, 401, 'the other session ended');
    const again = await checked(h, p, 'POST', '/app/api/session/two-factor/setup');
    assert.deepEqual([again.statusCode, again.json().error.code], [409, 'CONFLICT'], 'on already');
  } finally {
    await h.close();
  }
});

test('signing in: the password makes no session but a five-minute challenge; the code makes it; the challenge is used once', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    const { secret } = await turnOn(h, p);
    h.clock.advance(MINUTE);
    const first = await checked(h, null, 'POST', '/app/api/session', { body: { email: p.email, password: p.password } });
    assert.equal(first.statusCode, 200);
    assert.equal(sessionCookieOf(first), undefined, 'no session cookie before the code');
    const { two_factor_required, challenge, expires_at } = first.json();
    assert.equal(two_factor_required, true);
    assert.match(challenge, /^[0-9A-Za-z]{43}$/);
    assert.equal(expires_at, new Date(h.clock.now().getTime() + 5 * MINUTE).toISOString());
    assert.equal(first.json().csrf_token, undefined);

    const done = await secondStep(h, challenge, codeAt(h, secret));
    assert.equal(done.statusCode, 200, done.body);
    const cookie = sessionCookieOf(done)!;
    assert.match(cookie, /^[0-9A-Za-z]{43}$/);
    assert.equal(done.json().user.email, p.email);
    const me = await h.app.inject({ url: '/app/api/session', headers: { cookie: `footfall_session=${cookie}` } });
    assert.equal(me.statusCode, 200);

    h.clock.advance(MINUTE);
    const reused = await secondStep(h, challenge, codeAt(h, secret));
    assert.deepEqual([reused.statusCode, reused.json().error.code], [401, 'UNAUTHORIZED'], 'a challenge is used once');
    const late = (await signIn(h, p.email)).json().challenge;
    h.clock.advance(5 * MINUTE);
    const expired = await secondStep(h, late, codeAt(h, secret));
    assert.deepEqual([expired.statusCode, expired.json().error.code], [401, 'UNAUTHORIZED'], 'five minutes, no more');
    const madeUp = await secondStep(h, 'x'.repeat(43), codeAt(h, secret));
    assert.equal(madeUp.statusCode, 401);
  } finally {
    await h.close();
  }
});

test('a code is accepted once: the same code (its step) again is refused, also the one that turned it on; a later step passes', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    const { secret } = await turnOn(h, p);
    const code = codeAt(h, secret);
    const r1 = await secondStep(h, (await signIn(h, p.email)).json().challenge, code);
    assert.deepEqual([r1.statusCode, r1.json().error?.code], [401, 'INVALID_CODE'], 'the code that turned it on is spent');
    h.clock.advance(30_000);
    const next = codeAt(h, secret);
    const challenge = (await signIn(h, p.email)).json().challenge;
    assert.equal((await secondStep(h, challenge, next)).statusCode, 200);
    const replay = await secondStep(h, (await signIn(h, p.email)).json().challenge, next);
    assert.deepEqual([replay.statusCode, replay.json().error.code], [401, 'INVALID_CODE'], 'replayed');
    const older = await secondStep(h, (await signIn(h, p.email)).json().challenge, codeAt(h, secret, -1));
    assert.equal(older.statusCode, 401, 'an earlier step than the last used');
    h.clock.advance(30_000);
    assert.equal((await secondStep(h, (await signIn(h, p.email)).json().challenge, codeAt(h, secret))).statusCode, 200);
  } finally {
    await h.close();
  }
});

test('wrong codes count in the sign-in throttle: 429 past 10 from one address (even a right code), past 20 for the account from anywhere', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    const { secret } = await turnOn(h, p);
    h.clock.advance(30_000);
    const challenge = (await signIn(h, p.email)).json().challenge;
    for (let i = 0; i < 10; i++) {
      const r = await secondStep(h, challenge, String(100000 + i));
      assert.deepEqual([r.statusCode, r.json().error.code], [401, 'INVALID_CODE'], `wrong code ${i}`);
    }
    const refused = await secondStep(h, challenge, codeAt(h, secret));
    assert.equal(refused.statusCode, 429, 'even the right code');
    assert.equal(refused.headers['retry-after'], '900');
    // another address: the account's own bound (20) still has room, then holds everywhere
    const elsewhere = (await signIn(h, p.email, p.password, '192.0.2.7')).json().challenge;
    for (let i = 0; i < 10; i++) assert.equal((await secondStep(h, elsewhere, `${200000 + i}`, '192.0.2.7')).statusCode, 401);
    const third = (await signIn(h, p.email, p.password, '198.51.100.3')).json().challenge;
    assert.equal((await secondStep(h, third, codeAt(h, secret), '198.51.100.3')).statusCode, 429, 'twenty wrong codes hold the account');
    // the account page's checks are the same guesses
    const signedIn = await checked(h, p, 'POST', '/app/api/session/two-factor/disable', {
      body: { password: p.password, code: codeAt(h, secret) },
    });
    assert.equal(signedIn.statusCode, 429);
    h.clock.advance(15 * MINUTE);
    assert.equal(
      (await secondStep(h, third, codeAt(h, secret), '198.51.100.3')).statusCode,
      401,
      'the window passed, the challenge did too',
    );
    const fresh = (await signIn(h, p.email, p.password, '198.51.100.3')).json().challenge;
    assert.equal((await secondStep(h, fresh, codeAt(h, secret), '198.51.100.3')).statusCode, 200);
  } finally {
    await h.close();
  }
});

test('a recovery code signs in once, typed in any case with spaces; new codes replace the old; turning it off needs the password and a code', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    const { secret, codes } = await turnOn(h, p);
    const typed = ` ${codes[0].toUpperCase().replaceAll('-', ' ')} `;
    const ok = await secondStep(h, (await signIn(h, p.email)).json().challenge, typed);
    assert.equal(ok.statusCode, 200, ok.body);
    const again = await secondStep(h, (await signIn(h, p.email)).json().challenge, codes[0]);
    assert.deepEqual([again.statusCode, again.json().error.code], [401, 'INVALID_CODE'], 'each works once');
    assert.deepEqual(await status(h, p), { enabled: true, recovery_codes_left: 9 });

    h.clock.advance(30_000);
    const badRegen = await checked(h, p, 'POST', '/app/api/session/two-factor/recovery-codes', {
      body: { password: 'wrong password!', code: codeAt(h, secret) },
    });
    assert.equal(badRegen.statusCode, 401);
    const regen = await checked(h, p, 'POST', '/app/api/session/two-factor/recovery-codes', {
      body: { password: p.password, code: codeAt(h, secret) },
    });
    assert.equal(regen.statusCode, 200);
    const fresh: string[] = regen.json().recovery_codes;
    assert.equal(fresh.length, 10);
    assert.deepEqual(await status(h, p), { enabled: true, recovery_codes_left: 10 });
    assert.equal((await secondStep(h, (await signIn(h, p.email)).json().challenge, codes[1])).statusCode, 401, 'the old codes stop');

    const off = (body: object) => checked(h, p, 'POST', '/app/api/session/two-factor/disable', { body });
    assert.equal((await off({ password: 'wrong password!', code: fresh[0] })).statusCode, 401);
    assert.equal((await off({ password: p.password, code: 'not-a-code' })).json().error.code, 'INVALID_CODE');
    assert.deepEqual(await status(h, p), { enabled: true, recovery_codes_left: 10 });
    assert.equal((await off({ password: p.password, code: fresh[0] })).statusCode, 204, 'a recovery code turns it off');
    assert.deepEqual(await status(h, p), { enabled: false, recovery_codes_left: 0 });
    const plain = await signIn(h, p.email);
    assert.ok(sessionCookieOf(plain), 'a password alone signs in again');
    assert.equal((await off({ password: p.password, code: '123456' })).statusCode, 409, 'off already');
  } finally {
    await h.close();
  }
});

test('a reset link and a sign-in link leave two-factor on: the new password, then the second step; changing the password keeps it on', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    const { secret } = await turnOn(h, p);
    const deps = { people: h.people, clock: h.clock, publicUrl: h.container.config.publicUrl };
    const reset = /\/([0-9A-Za-z]{32})$/.exec((await issueLink(deps, p.user, 'reset')).url)![1];
    const r = await checked(h, null, 'POST', '/app/api/password-reset/accept', { body: { reset, password: 'a new password 42' } });
    assert.equal(r.statusCode, 200);
    assert.equal(sessionCookieOf(r), undefined, 'no session from the link alone');
    assert.equal(r.json().two_factor_required, true);
    h.clock.advance(30_000);
    assert.equal((await secondStep(h, r.json().challenge, codeAt(h, secret))).statusCode, 200);
    assert.equal((await signIn(h, p.email, 'a new password 42')).json().two_factor_required, true, 'the new password, still two steps');

    const link = /\/([0-9A-Za-z]{32})$/.exec((await issueLink(deps, p.user, 'sign_in')).url)![1];
    const byLink = await checked(h, null, 'POST', '/app/api/sign-in-links/accept', { body: { sign_in: link } });
    assert.deepEqual([byLink.statusCode, byLink.json().two_factor_required, sessionCookieOf(byLink)], [200, true, undefined]);

    const pending = (await signIn(h, p.email, 'a new password 42')).json().challenge;
    const q = { ...p, password: 'a new password 42' };
    const me = { ...q, cookie: sessionCookieOf(await secondStepWith(h, q, secret))!, csrf: '' };
    me.csrf = (await checked(h, me, 'GET', '/app/api/session')).json().csrf_token;
    const pw = await checked(h, me, 'POST', '/app/api/session/password', {
      body: { current_password: q.password, new_password: 'another password 7' },
    });
    assert.equal(pw.statusCode, 200);
    assert.equal(
      (await secondStep(h, pending, codeAt(h, secret, 2))).statusCode,
      401,
      'a second step begun before a new password ends with it',
    );
    assert.equal((await signIn(h, p.email, 'another password 7')).json().two_factor_required, true);
  } finally {
    await h.close();
  }
});

/** Signs `p` in through both steps with the code `offset` steps ahead (each code once). */
async function secondStepWith(h: Awaited<ReturnType<typeof harness>>, p: Person, secret: string, offset = 1) {
  h.clock.advance(30_000 * offset);
  const r = await secondStep(h, (await signIn(h, p.email, p.password)).json().challenge, codeAt(h, secret));
  assert.equal(r.statusCode, 200, r.body);
  return r;
}
