// `footfall user invite|list|remove|reset-password` as an operator runs them: real processes on a real
// data dir, JSON on stdout; the links they print work once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';
import { hashSecret } from '../../src/domain/tokens.js';
import { cliRunner } from './fixtures/cli-run.js';

let dataDir: string;
const { cli, ok, refused } = cliRunner(() => dataDir);

before(() => {
  dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-users-')), 'data');
});
after(() => fs.rmSync(path.dirname(dataDir), { recursive: true, force: true }));

const secretOf = (url: string, page: string) => {
  const m = new RegExp(`^https://dash\\.example\\.com/app/${page}/([0-9A-Za-z]{32})$`).exec(url);
  assert.ok(m, url);
  return m[1];
};

async function control<T>(fn: (cp: Awaited<ReturnType<typeof openSqliteControlPlane>>) => Promise<T>): Promise<T> {
  const cp = await openSqliteControlPlane(path.join(dataDir, 'control.sqlite'));
  try {
    return await fn(cp);
  } finally {
    await cp.close();
  }
}

test('invite prints a single-use link valid 48 hours; list shows the invitation and the seats; the plan caps seats', async () => {
  const ws = (await ok('workspace', 'create', '--name', 'Solo', '--plan', 'free')).workspace_id as string;
  const before = Date.now();
  const inv = await ok(
    'user',
    'invite',
    '--workspace',
    ws,
    '--email',
    'Owner@Example.com',
    '--role',
    'owner',
    '--public-url',
    'https://dash.example.com',
  );
  assert.deepEqual(Object.keys(inv).sort(), ['expires_at', 'invitation_id', 'invitation_url', 'mail_error', 'mailed']);
  assert.deepEqual([inv.mailed, inv.mail_error.code], [false, 'MAIL_NOT_CONFIGURED'], 'without FOOTFALL_SMTP_URL no mail is sent');
  const secret = secretOf(inv.invitation_url, 'invite');
  const ttl = Date.parse(inv.expires_at) - before;
  assert.ok(ttl >= 48 * 3600_000 - 60_000 && ttl <= 48 * 3600_000 + 60_000, `${ttl} ms`);

  const listed = await ok('user', 'list', '--workspace', ws);
  assert.deepEqual(listed.users, []);
  assert.deepEqual(
    listed.invitations.map((i: any) => [i.email, i.role, i.invited_by]),
    [['owner@example.com', 'owner', null]],
  );
  assert.deepEqual(listed.seats, { used: 1, limit: 1 });

  // Free has one seat: a second person does not fit, and nothing is written.
  const r = await cli('user', 'invite', '--workspace', ws, '--email', 'second@example.com', '--role', 'viewer', '--json');
  assert.equal(r.code, 2, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).error.details, { limit: 1, used: 1 });
  assert.equal(JSON.parse(r.stdout).error.code, 'SEAT_LIMIT_REACHED');
  assert.equal((await ok('user', 'list', '--workspace', ws)).invitations.length, 1);

  // The link joins the workspace once.
  const joined = await control(async (cp) => {
    const now = new Date().toISOString();
    const first = await cp.people.acceptInvitation(hashSecret(secret), now, {
      kind: 'new',
      email: 'owner@example.com',
      name: 'Olga',
      passwordHash: 'x',
    });
    const again = await cp.people.acceptInvitation(hashSecret(secret), now, {
      kind: 'new',
      email: 'owner@example.com',
      name: 'Olga',
      passwordHash: 'x',
    });
    return { first, again };
  });
  assert.equal(joined.first?.workspaceId, ws);
  assert.equal(joined.again, null);
  const after = await ok('user', 'list', '--workspace', ws);
  assert.deepEqual(
    after.users.map((u: any) => [u.email, u.role, u.name]),
    [['owner@example.com', 'owner', 'Olga']],
  );
  assert.deepEqual(after.invitations, []);
});

test('remove takes a member out, or revokes an open invitation; a workspace keeps its last owner', async () => {
  const ws = (await ok('workspace', 'create', '--name', 'Team', '--plan', 'starter')).workspace_id as string;
  const inv = await ok(
    'user',
    'invite',
    '--workspace',
    ws,
    '--email',
    'viewer@example.com',
    '--role',
    'viewer',
    '--public-url',
    'https://dash.example.com',
  );
  assert.deepEqual(await ok('user', 'remove', '--workspace', ws, '--email', 'Viewer@example.com'), {
    workspace_id: ws,
    email: 'viewer@example.com',
    removed: 'invitation',
  });
  await control(async (cp) => {
    assert.equal(await cp.people.findOpenInvitation(hashSecret(secretOf(inv.invitation_url, 'invite')), new Date().toISOString()), null);
    const u = await cp.people.createUser({ email: 'boss@example.com' });
    await cp.people.addMember({ workspaceId: ws, userId: u.id, role: 'owner' });
  });
  await refused(['user', 'remove', '--workspace', ws, '--email', 'boss@example.com'], 'CONFLICT', /must keep an owner/);
  await refused(['user', 'remove', '--workspace', ws, '--email', 'nobody@example.com'], 'NOT_FOUND', /nobody@example\.com/);
  await refused(
    ['user', 'invite', '--workspace', ws, '--email', 'x@example.com', '--role', 'boss'],
    'INVALID_ARGUMENTS',
    /--role must be one of owner, admin, viewer/,
  );
  await refused(
    ['user', 'invite', '--workspace', 'ws_missing', '--email', 'x@example.com', '--role', 'admin'],
    'NOT_FOUND',
    /unknown workspace "ws_missing"/,
  );
});

test('reset-password prints a new single-use link valid an hour; an unknown email is NOT_FOUND', async () => {
  await control((cp) => cp.people.createUser({ email: 'ada@example.com', passwordHash: 'old' }));
  const link = await ok('user', 'reset-password', '--email', 'ADA@example.com', '--public-url', 'https://dash.example.com');
  assert.deepEqual(Object.keys(link).sort(), ['expires_at', 'reset_url']);
  const secret = secretOf(link.reset_url, 'reset');
  const now = new Date().toISOString();
  const used = await control(async (cp) => [
    await cp.people.redeemLink({ secretHash: hashSecret(secret), purpose: 'reset', now, newPasswordHash: 'new' }),
    await cp.people.redeemLink({ secretHash: hashSecret(secret), purpose: 'reset', now, newPasswordHash: 'again' }),
  ]);
  assert.equal(used[0]?.email, 'ada@example.com');
  assert.equal(used[1], null);
  await refused(['user', 'reset-password', '--email', 'ghost@example.com'], 'NOT_FOUND', /ghost@example\.com/);
  const text = await cli('user', 'reset-password', '--email', 'ada@example.com');
  assert.equal(text.code, 0);
  assert.match(
    text.stdout,
    /^Password reset link for ada@example\.com, single use, shown only now, valid until .+:\nhttp:\/\/127\.0\.0\.1:8080\/app\/reset\/[0-9A-Za-z]{32}\n$/,
  );
});

test('disable-2fa turns off the two-factor sign-in of a person who lost their app: the secret, codes and second steps go; an unknown email is NOT_FOUND', async () => {
  const userId = await control(async (cp) => {
    const u = await cp.people.createUser({ email: 'locked@example.com', passwordHash: 'h' });
    const now = new Date().toISOString();
    await cp.people.beginTwoFactor({ userId: u.id, secretSealed: 'sealed', now });
    await cp.people.enableTwoFactor({
      userId: u.id,
      secretSealed: 'sealed',
      step: 1,
      recoveryCodeHashes: [hashSecret('code')],
      keepSession: '',
      now,
    });
    await cp.people.createTwoFactorChallenge({ challengeHash: hashSecret('c'), userId: u.id, now, expiresAt: '2099-01-01T00:00:00.000Z' });
    return u.id;
  });
  assert.deepEqual(await ok('user', 'disable-2fa', 'Locked@Example.com'), { email: 'locked@example.com', two_factor_was_on: true });
  const after = await control(async (cp) => ({
    record: await cp.people.getTwoFactor(userId),
    codes: await cp.people.unusedRecoveryCodes(userId),
    challenge: await cp.people.findTwoFactorChallenge(hashSecret('c'), new Date().toISOString()),
  }));
  assert.deepEqual(after, { record: null, codes: [], challenge: null });
  const again = await cli('user', 'disable-2fa', '--email', 'locked@example.com');
  assert.equal(again.code, 0);
  assert.equal(again.stdout, 'Two-factor sign-in of locked@example.com was off already; nothing changed.\n');
  await refused(['user', 'disable-2fa', 'ghost@example.com'], 'NOT_FOUND', /ghost@example\.com/);
});
