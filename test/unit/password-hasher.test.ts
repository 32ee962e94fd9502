// The production password hash: argon2id at or above OWASP's parameters, stated in the hash string, so
// older hashes keep verifying after the parameters are raised.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Argon2PasswordHasher, PASSWORD_HASH_PARAMS } from '../../src/control/password-hasher.js';

test('passwords are argon2id hashes at or above OWASP (19 MiB, t=2, p=1), with the parameters in the string', async () => {
  assert.ok(PASSWORD_HASH_PARAMS.memoryCost >= 19 * 1024 && PASSWORD_HASH_PARAMS.timeCost >= 2 && PASSWORD_HASH_PARAMS.parallelism >= 1);
  const hasher = new Argon2PasswordHasher();
  const h = await hasher.hash('correct horse battery');
  const { memoryCost: m, timeCost: t, parallelism: p } = PASSWORD_HASH_PARAMS;
  assert.match(h, new RegExp(`^\\$argon2id\\$v=19\\$m=${m},t=${t},p=${p}\\$[A-Za-z0-9+/]{22}\\$[A-Za-z0-9+/]{43}$`));
  assert.notEqual(await hasher.hash('correct horse battery'), h, 'a fresh salt each time');
  assert.equal(await hasher.verify(h, 'correct horse battery'), true);
  assert.equal(await hasher.verify(h, 'correct horse batterY'), false);
  assert.equal(await hasher.verify('not a hash', 'x'), false, 'a malformed hash is a failed verification');
});

test('a hash made with other parameters still verifies', async () => {
  const older = await new Argon2PasswordHasher({ memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 }).hash('an older password');
  assert.equal(await new Argon2PasswordHasher().verify(older, 'an older password'), true);
});
