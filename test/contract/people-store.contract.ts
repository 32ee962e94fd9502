// The PeopleStore conformance suite: every implementation must pass it unchanged.
import { skippable } from '../helpers/services.js';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/domain/clock.js';
import { hashSecret } from '../../src/domain/tokens.js';
import type { CatalogStore } from '../../src/ports/catalog-store.js';
import type { PeopleStore } from '../../src/ports/people-store.js';
import { isCatalogError } from './catalog-store.contract.js';

export interface PeopleUnderTest {
  people: PeopleStore;
  catalog: CatalogStore;
  close(): Promise<void>;
}
export type PeopleFactory = (clock: FakeClock) => Promise<PeopleUnderTest>;

const T0 = '2025-03-01T10:00:00.000Z';
const HOUR = 3_600_000;
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const H = (s: string) => hashSecret(s);

export function runPeopleStoreContract(name: string, factory: PeopleFactory, opts: { skip?: string | false } = {}): void {
  // a suite that cannot run here lists each of its tests as skipped, with the reason
  const test = skippable(opts.skip);
  const withPeople = (fn: (s: PeopleUnderTest, clock: FakeClock) => Promise<void>) => async () => {
    const clock = new FakeClock(Date.parse(T0));
    const sut = await factory(clock);
    try {
      await fn(sut, clock);
    } finally {
      await sut.close();
    }
  };
  const invite = (
    p: PeopleStore,
    workspaceId: string,
    email: string,
    extra: Partial<Parameters<PeopleStore['createInvitation']>[0]> = {},
  ) =>
    p.createInvitation({
      workspaceId,
      email,
      role: 'viewer',
      secretHash: H(`inv-${workspaceId}-${email}-${Math.random()}`),
      invitedBy: null,
      expiresAt: at(48 * HOUR),
      now: T0,
      seatLimit: null,
      ...extra,
    });

  test(
    `${name}: users are unique by email, compared case-insensitively`,
    withPeople(async ({ people }) => {
      const u = await people.createUser({ email: '  Ada@Example.COM ', name: 'Ada', passwordHash: 'h1' });
      assert.match(u.id, /^usr_[0-9A-Za-z]{22}$/);
      assert.deepEqual(u, { id: u.id, email: 'ada@example.com', name: 'Ada', hasPassword: true, createdAt: T0 });
      await assert.rejects(people.createUser({ email: 'ADA@example.com' }), isCatalogError('CONFLICT'));
      await assert.rejects(people.createUser({ email: 'not an email' }), isCatalogError('INVALID', /email/));
      assert.deepEqual(await people.findUserByEmail('ada@EXAMPLE.com'), { user: u, passwordHash: 'h1' });
      assert.equal(await people.findUserByEmail('nobody@example.com'), null);
      assert.equal(await people.findUserByEmail('garbage'), null);
      const link = await people.createUser({ email: 'demo@example.com' });
      assert.equal(link.hasPassword, false);
      assert.deepEqual(await people.getUser(link.id), link);
    }),
  );

  test(
    `${name}: members keep one owner at least; roles change and members leave`,
    withPeople(async ({ people, catalog }) => {
      const ws = await catalog.createWorkspace({ name: 'W', plan: 'pro' });
      const a = await people.createUser({ email: 'a@example.com' });
      const b = await people.createUser({ email: 'b@example.com' });
      await people.addMember({ workspaceId: ws.id, userId: b.id, role: 'viewer' });
      await people.addMember({ workspaceId: ws.id, userId: a.id, role: 'owner' });
      await assert.rejects(people.addMember({ workspaceId: ws.id, userId: a.id, role: 'admin' }), isCatalogError('CONFLICT'));
      await assert.rejects(people.addMember({ workspaceId: 'ws_missing', userId: a.id, role: 'admin' }), isCatalogError('NOT_FOUND'));
      await assert.rejects(people.addMember({ workspaceId: ws.id, userId: 'usr_missing', role: 'admin' }), isCatalogError('NOT_FOUND'));
      assert.deepEqual(
        (await people.listMembers(ws.id)).map((m) => [m.user.email, m.role]),
        [
          ['a@example.com', 'owner'],
          ['b@example.com', 'viewer'],
        ],
      );
      assert.equal(await people.getRole(ws.id, a.id), 'owner');
      assert.equal(await people.getRole(ws.id, 'usr_missing'), null);
      assert.deepEqual(
        (await people.listMemberships(a.id)).map((m) => [m.workspaceId, m.role]),
        [[ws.id, 'owner']],
      );

      await assert.rejects(people.changeRole(ws.id, a.id, 'admin'), isCatalogError('CONFLICT', /owner/));
      await assert.rejects(people.removeMember(ws.id, a.id), isCatalogError('CONFLICT', /owner/));
      await people.changeRole(ws.id, b.id, 'owner');
      await people.changeRole(ws.id, a.id, 'admin');
      await people.removeMember(ws.id, a.id);
      assert.deepEqual(
        (await people.listMembers(ws.id)).map((m) => [m.user.email, m.role]),
        [['b@example.com', 'owner']],
      );
      await assert.rejects(people.removeMember(ws.id, a.id), isCatalogError('NOT_FOUND'));
      await assert.rejects(people.changeRole(ws.id, b.id, 'boss' as 'owner'), isCatalogError('INVALID', /role/));
    }),
  );

  test(
    `${name}: seats are members plus open invitations; past the limit nothing is written`,
    withPeople(async ({ people, catalog }) => {
      const ws = await catalog.createWorkspace({ name: 'W', plan: 'starter' });
      const owner = await people.createUser({ email: 'o@example.com' });
      await people.addMember({ workspaceId: ws.id, userId: owner.id, role: 'owner' });
      const first = await invite(people, ws.id, 'One@Example.com', { seatLimit: 3, role: 'admin', invitedBy: owner.id });
      assert.match(first.id, /^inv_/);
      assert.deepEqual(
        { ...first, id: '' },
        {
          id: '',
          workspaceId: ws.id,
          email: 'one@example.com',
          role: 'admin',
          invitedBy: owner.id,
          createdAt: T0,
          expiresAt: at(48 * HOUR),
          acceptedAt: null,
          revokedAt: null,
        },
      );
      await invite(people, ws.id, 'two@example.com', { seatLimit: 3 });
      assert.equal(await people.seatsUsed(ws.id, T0), 3);
      await assert.rejects(invite(people, ws.id, 'three@example.com', { seatLimit: 3 }), (err: any) => {
        isCatalogError('SEAT_LIMIT_REACHED')(err);
        assert.deepEqual(err.details, { limit: 3, used: 3 });
        return true;
      });
      assert.deepEqual((await people.listInvitations(ws.id, T0)).map((i) => i.email).sort(), ['one@example.com', 'two@example.com']);
      // Inviting the same person again replaces the open invitation: no extra seat.
      const again = await invite(people, ws.id, 'two@example.com', { seatLimit: 3 });
      assert.deepEqual((await people.listInvitations(ws.id, T0)).map((i) => i.id).sort(), [first.id, again.id].sort());
      await assert.rejects(invite(people, ws.id, 'O@example.com'), isCatalogError('CONFLICT', /member/));
      await assert.rejects(invite(people, 'ws_missing', 'x@example.com'), isCatalogError('NOT_FOUND'));
      // An expired invitation frees its seat.
      assert.equal(await people.seatsUsed(ws.id, at(48 * HOUR)), 1);
      assert.deepEqual(await people.listInvitations(ws.id, at(48 * HOUR)), []);
      assert.equal(await people.revokeInvitation(first.id, T0), true);
      assert.equal(await people.revokeInvitation(first.id, T0), false);
      assert.equal((await people.getInvitation(first.id))?.revokedAt, T0);
      assert.equal(await people.seatsUsed(ws.id, T0), 2);
    }),
  );

  test(
    `${name}: concurrent invitations never pass the seat limit`,
    withPeople(async ({ people, catalog }) => {
      const ws = await catalog.createWorkspace({ name: 'W', plan: 'pro' });
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => invite(people, ws.id, `p${i}@example.com`, { seatLimit: 3 })),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 3);
      for (const r of results) if (r.status === 'rejected') isCatalogError('SEAT_LIMIT_REACHED')(r.reason);
      assert.equal(await people.seatsUsed(ws.id, T0), 3);
    }),
  );

  test(
    `${name}: an invitation is accepted once, before it expires, by a new or an existing account`,
    withPeople(async ({ people, catalog }) => {
      const ws = await catalog.createWorkspace({ name: 'W', plan: 'pro' });
      await invite(people, ws.id, 'new@example.com', { secretHash: H('s-new'), role: 'admin' });
      const joined = await people.acceptInvitation(H('s-new'), at(HOUR), {
        kind: 'new',
        email: 'new@example.com',
        name: 'New',
        passwordHash: 'hn',
      });
      assert.equal(joined?.workspaceId, ws.id);
      assert.deepEqual([joined?.user.email, joined?.user.hasPassword], ['new@example.com', true]);
      assert.equal(await people.getRole(ws.id, joined!.user.id), 'admin');
      assert.equal(await people.acceptInvitation(H('s-new'), at(HOUR), { kind: 'existing', userId: joined!.user.id }), null, 'used once');
      assert.equal(await people.findOpenInvitation(H('s-new'), at(HOUR)), null);

      const old = await people.createUser({ email: 'old@example.com', passwordHash: 'ho' });
      await invite(people, ws.id, 'old@example.com', { secretHash: H('s-old') });
      assert.equal((await people.findOpenInvitation(H('s-old'), at(HOUR)))?.email, 'old@example.com');
      const j2 = await people.acceptInvitation(H('s-old'), at(HOUR), { kind: 'existing', userId: old.id });
      assert.equal(j2?.user.id, old.id);
      assert.equal((await people.findUserByEmail('old@example.com'))?.passwordHash, 'ho', 'an existing password stays');

      const demo = await people.createUser({ email: 'demo@example.com' });
      await invite(people, ws.id, 'demo@example.com', { secretHash: H('s-demo') });
      // Another account than the invited email's: refused, nothing written, the invitation stays open.
      await assert.rejects(people.acceptInvitation(H('s-demo'), at(HOUR), { kind: 'existing', userId: old.id }), isCatalogError('INVALID'));
      assert.equal(await people.getRole(ws.id, old.id), 'viewer', 'the earlier membership only');
      assert.ok(await people.findOpenInvitation(H('s-demo'), at(HOUR)));
      await people.acceptInvitation(H('s-demo'), at(HOUR), { kind: 'existing', userId: demo.id });
      assert.equal((await people.findUserByEmail('demo@example.com'))?.passwordHash, null, 'an invitation never sets a password');
      assert.equal(await people.getRole(ws.id, demo.id), 'viewer');

      await invite(people, ws.id, 'late@example.com', { secretHash: H('s-late') });
      assert.equal(
        await people.acceptInvitation(H('s-late'), at(48 * HOUR), {
          kind: 'new',
          email: 'late@example.com',
          name: null,
          passwordHash: 'h',
        }),
        null,
        'expired',
      );
      assert.equal(await people.findUserByEmail('late@example.com'), null, 'no account made');
      assert.equal(
        await people.acceptInvitation(H('s-unknown'), T0, { kind: 'new', email: 'x@example.com', name: null, passwordHash: 'h' }),
        null,
      );

      // A clash rolls the whole acceptance back: the invitation stays open.
      await invite(people, ws.id, 'clash@example.com', { secretHash: H('s-clash') });
      await people.createUser({ email: 'clash@example.com' });
      await assert.rejects(
        people.acceptInvitation(H('s-clash'), T0, { kind: 'new', email: 'clash@example.com', name: null, passwordHash: 'h' }),
        isCatalogError('CONFLICT'),
      );
      assert.ok(await people.findOpenInvitation(H('s-clash'), T0));
    }),
  );

  test(
    `${name}: links are single-use, of one purpose, and expire; a reset ends every session`,
    withPeople(async ({ people }) => {
      const u = await people.createUser({ email: 'a@example.com', passwordHash: 'old' });
      await people.createLink({ secretHash: H('r1'), userId: u.id, purpose: 'reset', expiresAt: at(HOUR), now: T0 });
      await people.createLink({ secretHash: H('l1'), userId: u.id, purpose: 'sign_in', expiresAt: at(HOUR), now: T0 });
      await people.createSession({ idHash: H('sess1'), userId: u.id, now: T0, expiresAt: at(24 * HOUR) });
      assert.equal(await people.findOpenLink({ secretHash: H('r1'), purpose: 'sign_in', now: T0 }), false, 'wrong purpose');
      assert.equal(await people.findOpenLink({ secretHash: H('r1'), purpose: 'reset', now: T0 }), true);
      assert.equal(await people.findOpenLink({ secretHash: H('r1'), purpose: 'reset', now: at(HOUR) }), false, 'expired');
      assert.equal(await people.findOpenLink({ secretHash: H('unknown'), purpose: 'reset', now: T0 }), false);
      assert.equal(await people.redeemLink({ secretHash: H('r1'), purpose: 'sign_in', now: T0 }), null, 'wrong purpose');
      assert.equal(await people.redeemLink({ secretHash: H('l1'), purpose: 'sign_in', now: at(HOUR) }), null, 'expired');
      const reset = await people.redeemLink({ secretHash: H('r1'), purpose: 'reset', now: T0, newPasswordHash: 'new' });
      assert.equal(reset?.id, u.id);
      assert.equal((await people.findUserByEmail(u.email))?.passwordHash, 'new');
      assert.equal(await people.findSession(H('sess1'), T0), null, 'sessions ended');
      assert.equal(
        await people.redeemLink({ secretHash: H('r1'), purpose: 'reset', now: T0, newPasswordHash: 'again' }),
        null,
        'used once',
      );
      assert.equal(await people.findOpenLink({ secretHash: H('r1'), purpose: 'reset', now: T0 }), false, 'used');
      assert.equal((await people.findUserByEmail(u.email))?.passwordHash, 'new');
    }),
  );

  test(
    `${name}: sessions live until they expire, slide, end alone or with a password change`,
    withPeople(async ({ people }) => {
      const u = await people.createUser({ email: 'a@example.com', passwordHash: 'p' });
      await people.createSession({ idHash: H('s1'), userId: u.id, now: T0, expiresAt: at(HOUR) });
      await people.createSession({ idHash: H('s2'), userId: u.id, now: T0, expiresAt: at(HOUR) });
      assert.deepEqual(await people.findSession(H('s1'), T0), { user: u, expiresAt: at(HOUR), lastSeenAt: T0 });
      assert.equal(await people.findSession(H('s1'), at(HOUR)), null, 'expired at expiresAt');
      await people.touchSession(H('s1'), at(HOUR / 2), at(2 * HOUR));
      assert.deepEqual(await people.findSession(H('s1'), at(HOUR)), { user: u, expiresAt: at(2 * HOUR), lastSeenAt: at(HOUR / 2) });
      await people.deleteSession(H('s1'));
      assert.equal(await people.findSession(H('s1'), T0), null);
      assert.ok(await people.findSession(H('s2'), T0));
      await people.setPassword(u.id, 'p2');
      assert.equal(await people.findSession(H('s2'), T0), null);
      await assert.rejects(people.setPassword('usr_missing', 'x'), isCatalogError('NOT_FOUND'));
    }),
  );

  test(
    `${name}: a sign-in claim sees each key's failures inside the window, records one under each key when admitted, and can take it back`,
    withPeople(async ({ people }) => {
      const t = Date.parse(T0);
      const claim = (keys: string[], atMs: number, sinceMs = t, admit = (_: Map<string, number[]>) => true) =>
        people.claimSignInAttempt({ keyHashes: keys.map(H), sinceMs, atMs, admit });
      assert.equal((await claim(['email', 'addr'], t))?.length, 2);
      await claim(['addr'], t + 1000);
      const third = await claim(['email'], t + 2000);
      let seen = new Map<string, number[]>();
      const refused = await claim(['email', 'addr', 'other'], t + 3000, t, (s) => ((seen = s), false));
      assert.equal(refused, null);
      assert.deepEqual(Object.fromEntries(seen), { [H('email')]: [t, t + 2000], [H('addr')]: [t, t + 1000], [H('other')]: [] });
      await people.forgetSignInFailures(third!);
      await claim(['email', 'addr'], t + 3000, t + 1500, (s) => ((seen = s), false));
      assert.deepEqual(
        Object.fromEntries(seen),
        { [H('email')]: [], [H('addr')]: [] },
        'the third was taken back; the refused claim recorded nothing',
      );
      await claim(['addr'], t + 4000, t, (s) => ((seen = s), false));
      assert.deepEqual(seen.get(H('addr')), [], 'older rows were pruned');
    }),
  );

  test(
    `${name}: claims made at once are admitted one after another: 25 claims on a key that admits 3 give 3`,
    withPeople(async ({ people }) => {
      const t = Date.parse(T0);
      const admitted = await Promise.all(
        Array.from({ length: 25 }, () =>
          people.claimSignInAttempt({
            keyHashes: [H('burst'), H('addr')],
            sinceMs: t,
            atMs: t,
            admit: (s) => s.get(H('burst'))!.length < 3,
          }),
        ),
      );
      assert.equal(admitted.filter((ids) => ids !== null).length, 3);
    }),
  );
}
