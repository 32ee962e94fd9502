// Two-factor sign-in in the PeopleStore (migration 012): every implementation must pass it unchanged
// (SQLite in people-store.test.ts, PostgreSQL in people-store.postgres.test.ts). The store sees only a
// sealed secret and hashes; what it must hold is that each single use is used once, even at once.
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/domain/clock.js';
import { hashSecret } from '../../src/domain/tokens.js';
import { skippable } from '../helpers/services.js';
import { isCatalogError } from './catalog-store.contract.js';
import type { PeopleFactory, PeopleUnderTest } from './people-store.contract.js';

const T0 = '2025-03-01T10:00:00.000Z';
const MINUTE = 60_000;
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const H = (s: string) => hashSecret(s);
const CODES = Array.from({ length: 10 }, (_, i) => H(`code-${i}`));

export function runPeopleTwoFactorContract(name: string, factory: PeopleFactory, opts: { skip?: string | false } = {}): void {
  const test = skippable(opts.skip);
  const withPeople = (fn: (s: PeopleUnderTest) => Promise<void>) => async () => {
    const sut = await factory(new FakeClock(Date.parse(T0)));
    try {
      await fn(sut);
    } finally {
      await sut.close();
    }
  };

  test(
    `${name}: two-factor is begun, replaced while unconfirmed, switched on once with its codes; other sessions end`,
    withPeople(async ({ people }) => {
      const u = await people.createUser({ email: 'a@example.com', passwordHash: 'p' });
      const other = await people.createUser({ email: 'b@example.com', passwordHash: 'p' });
      assert.equal(await people.getTwoFactor(u.id), null);
      await people.beginTwoFactor({ userId: u.id, secretSealed: 'sealed-1', now: T0 });
      assert.deepEqual(await people.getTwoFactor(u.id), {
        secretSealed: 'sealed-1',
        enabledAt: null,
        lastStep: null,
        recoveryCodesLeft: 0,
      });
      await people.beginTwoFactor({ userId: u.id, secretSealed: 'sealed-2', now: T0 });
      assert.equal((await people.getTwoFactor(u.id))?.secretSealed, 'sealed-2', 'a new secret replaces one not confirmed');
      for (const id of ['here', 'there']) await people.createSession({ idHash: H(id), userId: u.id, now: T0, expiresAt: at(60 * MINUTE) });
      await people.createSession({ idHash: H('theirs'), userId: other.id, now: T0, expiresAt: at(60 * MINUTE) });
      const enable = { userId: u.id, step: 100, recoveryCodeHashes: CODES, keepSession: H('here'), now: at(MINUTE) };
      assert.equal(await people.enableTwoFactor({ ...enable, secretSealed: 'sealed-1' }), false, 'the replaced secret');
      assert.equal(await people.enableTwoFactor({ ...enable, secretSealed: 'sealed-2' }), true);
      assert.equal(await people.enableTwoFactor({ ...enable, secretSealed: 'sealed-2' }), false, 'on once');
      assert.deepEqual(await people.getTwoFactor(u.id), {
        secretSealed: 'sealed-2',
        enabledAt: at(MINUTE),
        lastStep: 100,
        recoveryCodesLeft: 10,
      });
      assert.ok(await people.findSession(H('here'), T0), 'the session that switched it on stays');
      assert.equal(await people.findSession(H('there'), T0), null, 'every other session of the person ends');
      assert.ok(await people.findSession(H('theirs'), T0), "another person's stays");
      await assert.rejects(people.beginTwoFactor({ userId: u.id, secretSealed: 'sealed-3', now: T0 }), isCatalogError('CONFLICT'));
      assert.equal((await people.getTwoFactor(u.id))?.secretSealed, 'sealed-2', 'a begin refused changes nothing');
    }),
  );

  test(
    `${name}: a step is used once and only forward; recovery codes once each; replacing them kills the old ones`,
    withPeople(async ({ people }) => {
      const u = await people.createUser({ email: 'a@example.com', passwordHash: 'p' });
      assert.equal(await people.useTwoFactorStep(u.id, 5), false, 'off: nothing to use');
      await people.beginTwoFactor({ userId: u.id, secretSealed: 's', now: T0 });
      assert.equal(await people.useTwoFactorStep(u.id, 5), false, 'not confirmed yet');
      await people.enableTwoFactor({ userId: u.id, secretSealed: 's', step: 100, recoveryCodeHashes: CODES, keepSession: H('x'), now: T0 });
      assert.equal(await people.useTwoFactorStep(u.id, 100), false, 'the step that switched it on');
      assert.equal(await people.useTwoFactorStep(u.id, 99), false, 'an earlier step');
      const both = await Promise.all([people.useTwoFactorStep(u.id, 101), people.useTwoFactorStep(u.id, 101)]);
      assert.deepEqual(both.sort(), [false, true], 'of two uses at once, one wins');
      assert.equal((await people.getTwoFactor(u.id))?.lastStep, 101);
      assert.equal(await people.useTwoFactorStep(u.id, 103), true, 'a later step');

      assert.deepEqual((await people.unusedRecoveryCodes(u.id)).sort(), [...CODES].sort());
      const use = (codeHash: string) => people.useRecoveryCode({ userId: u.id, codeHash, now: at(MINUTE) });
      const twice = await Promise.all([use(CODES[3]), use(CODES[3])]);
      assert.deepEqual(twice.sort(), [false, true], 'a code once, even at once');
      assert.equal(await use(H('unknown')), false);
      assert.equal(await people.useRecoveryCode({ userId: 'usr_other', codeHash: CODES[4], now: T0 }), false, "another person's code");
      assert.equal((await people.getTwoFactor(u.id))?.recoveryCodesLeft, 9);
      assert.ok(!(await people.unusedRecoveryCodes(u.id)).includes(CODES[3]));

      const fresh = [H('new-1'), H('new-2')];
      assert.equal(await people.replaceRecoveryCodes({ userId: u.id, codeHashes: fresh, now: T0 }), true);
      assert.deepEqual((await people.unusedRecoveryCodes(u.id)).sort(), [...fresh].sort());
      assert.equal(await use(CODES[5]), false, 'the old codes stop working');
      assert.equal(await use(fresh[0]), true);
      const nobody = await people.createUser({ email: 'b@example.com' });
      assert.equal(await people.replaceRecoveryCodes({ userId: nobody.id, codeHashes: fresh, now: T0 }), false, 'off: no codes');
    }),
  );

  test(
    `${name}: second steps are open five minutes, used once; a new password, signing out everywhere and turning it off end them`,
    withPeople(async ({ people }) => {
      const u = await people.createUser({ email: 'a@example.com', passwordHash: 'p' });
      const challenge = (id: string) =>
        people.createTwoFactorChallenge({ challengeHash: H(id), userId: u.id, now: T0, expiresAt: at(5 * MINUTE) });
      await challenge('c1');
      assert.equal(await people.findTwoFactorChallenge(H('c1'), at(5 * MINUTE - 1)), u.id);
      assert.equal(await people.findTwoFactorChallenge(H('c1'), at(5 * MINUTE)), null, 'expired');
      assert.equal(await people.useTwoFactorChallenge(H('c1'), at(5 * MINUTE)), false, 'expired');
      assert.equal(await people.findTwoFactorChallenge(H('unknown'), T0), null);
      const both = await Promise.all([people.useTwoFactorChallenge(H('c1'), T0), people.useTwoFactorChallenge(H('c1'), T0)]);
      assert.deepEqual(both.sort(), [false, true], 'used once, even at once');
      assert.equal(await people.findTwoFactorChallenge(H('c1'), T0), null, 'used');

      await challenge('c2');
      await people.setPassword(u.id, 'p2');
      assert.equal(await people.findTwoFactorChallenge(H('c2'), T0), null, 'a new password ends it');
      await challenge('c3');
      await people.deleteUserSessions(u.id);
      assert.equal(await people.findTwoFactorChallenge(H('c3'), T0), null, 'signing out everywhere ends it');
      await people.createLink({ secretHash: H('r'), userId: u.id, purpose: 'reset', expiresAt: at(60 * MINUTE), now: T0 });
      await challenge('c4');
      await people.redeemLink({ secretHash: H('r'), purpose: 'reset', now: T0, newPasswordHash: 'p3' });
      assert.equal(await people.findTwoFactorChallenge(H('c4'), T0), null, 'a reset ends it');

      await people.beginTwoFactor({ userId: u.id, secretSealed: 's', now: T0 });
      await people.enableTwoFactor({ userId: u.id, secretSealed: 's', step: 1, recoveryCodeHashes: CODES, keepSession: H('x'), now: T0 });
      await challenge('c5');
      assert.equal(await people.disableTwoFactor(u.id), true);
      assert.equal(await people.getTwoFactor(u.id), null);
      assert.deepEqual(await people.unusedRecoveryCodes(u.id), []);
      assert.equal(await people.findTwoFactorChallenge(H('c5'), T0), null, 'turning it off ends it');
      assert.equal(await people.disableTwoFactor(u.id), false, 'off already');
      await people.beginTwoFactor({ userId: u.id, secretSealed: 's2', now: T0 });
      assert.equal(await people.disableTwoFactor(u.id), false, 'begun but never on');
      assert.equal(await people.getTwoFactor(u.id), null, 'and the unconfirmed secret is gone');
    }),
  );
}
