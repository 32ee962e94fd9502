// Guessing the secret of a link (an invitation, a password reset, a sign-in) is a guess like a wrong
// password: each made-up link counts against the client address in the one throttle sign-in uses, and a
// made-up reset link costs a look-up, never an argon2 hash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PasswordHasher } from '../../src/ports/password-hasher.js';
import { issueLink } from '../../src/services/people/links.js';
import { harness, TEST_HASHER } from './helpers/harness.js';
import { PASSWORD, person, signIn } from './helpers/app-api.js';

const MADE_UP = 'A'.repeat(32);
const made = (i: number) => `${String(i).padStart(4, '0')}${'x'.repeat(28)}`;

/** A hasher that counts what it is asked to do, then does it. */
function counting(): PasswordHasher & { hashes: number; verifies: number } {
  const c = {
    hashes: 0,
    verifies: 0,
    hash: (p: string) => (c.hashes++, TEST_HASHER.hash(p)),
    verify: (h: string, p: string) => (c.verifies++, TEST_HASHER.verify(h, p)),
  };
  return c;
}

test('a made-up reset link is answered 404 after one look-up, without hashing the password it came with', async () => {
  const hasher = counting();
  const h = await harness({ hasher });
  try {
    const p = await person(h);
    const before = { hashes: hasher.hashes, verifies: hasher.verifies };
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        h.app.inject({
          method: 'POST',
          url: '/app/api/password-reset/accept',
          payload: { reset: made(i), password: 'a long new password' },
          remoteAddress: `198.51.100.${i + 1}`,
        }),
      ),
    );
    assert.deepEqual(
      answers.map((r) => r.statusCode),
      Array(16).fill(404),
    );
    assert.deepEqual({ hashes: hasher.hashes, verifies: hasher.verifies }, before, 'no argon2 work for a link that does not exist');
    // A real link: one hash, the password set.
    const link = await issueLink({ people: h.people, clock: h.clock, publicUrl: h.container.config.publicUrl }, p.user, 'reset');
    const ok = await h.app.inject({
      method: 'POST',
      url: '/app/api/password-reset/accept',
      payload: { reset: link.url.slice(-32), password: 'a long new password' },
    });
    assert.equal(ok.statusCode, 200);
    assert.equal(hasher.hashes, before.hashes + 1);
  } finally {
    await h.close();
  }
});

test('made-up links count against the client address with wrong passwords: past 50 in 15 minutes, 429 for every link and sign-in from it', async () => {
  const h = await harness();
  try {
    const p = await person(h);
    const ws = (await h.workspace('pro')).id;
    const from = '198.51.100.77';
    const post = (url: string, payload: object, address = from) =>
      h.app.inject({ method: 'POST', url: `/app/api${url}`, payload, remoteAddress: address });
    // 20 wrong passwords, then 10 made-up links of each kind: 50 failures from one address
    for (let i = 0; i < 20; i++) assert.equal((await signIn(h, `guess${i}@example.com`, 'wrong password!', from)).statusCode, 401);
    for (let i = 0; i < 10; i++) {
      assert.equal((await post('/password-reset/accept', { reset: made(i), password: PASSWORD })).statusCode, 404);
      assert.equal((await post('/invitations/accept', { invitation: made(i), password: PASSWORD })).statusCode, 404);
      assert.equal((await post('/sign-in-links/accept', { sign_in: made(i) })).statusCode, 404);
    }
    // Now even real secrets and the right password are refused from that address, each with Retry-After.
    const { people, clock } = h;
    const publicUrl = h.container.config.publicUrl;
    const reset = (await issueLink({ people, clock, publicUrl }, p.user, 'reset')).url.slice(-32);
    const invite = await h.app.inject({
      method: 'POST',
      url: `/app/api/workspaces/${ws}/invitations`,
      headers: await ownerHeaders(h, ws),
      payload: { email: 'new@example.com', role: 'viewer' },
    });
    const invitation = invite.json().invitation_url.slice(-32);
    const refused = [
      await post('/password-reset/accept', { reset, password: PASSWORD }),
      await post('/invitations/preview', { invitation }),
      await post('/invitations/accept', { invitation, password: PASSWORD }),
      await post('/sign-in-links/accept', { sign_in: MADE_UP }),
      await signIn(h, p.email, PASSWORD, from),
    ];
    for (const r of refused) {
      assert.equal(r.statusCode, 429, r.body);
      assert.equal(r.json().error.code, 'RATE_LIMITED');
      assert.ok(Number(r.headers['retry-after']) >= 1);
    }
    // Another address is not held back, and the real secrets still work from it.
    assert.equal((await post('/invitations/preview', { invitation }, '198.51.100.78')).statusCode, 200);
    assert.equal((await post('/password-reset/accept', { reset, password: PASSWORD }, '198.51.100.78')).statusCode, 200);
  } finally {
    await h.close();
  }
});

async function ownerHeaders(h: Awaited<ReturnType<typeof harness>>, ws: string): Promise<Record<string, string>> {
  const owner = await person(h, { workspaceId: ws, role: 'owner' });
  return { cookie: `footfall_session=${owner.cookie}`, 'x-csrf-token': owner.csrf };
}
