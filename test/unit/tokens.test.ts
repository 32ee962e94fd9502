import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { generateSecret, hashSecret, isSecretHash, looksLikeSecret, newId, randomBase62 } from '../../src/domain/tokens.js';

/** A deterministic byte source: 0, 1, 2, … wrapping at 256. */
function counting(): (n: number) => Buffer {
  let next = 0;
  return (n) => Buffer.from(Array.from({ length: n }, () => next++ % 256));
}

test('a secret is ff_live_ + 32 base62 characters + a 6-character checksum', () => {
  const s = generateSecret(randomBytes);
  assert.match(s, /^ff_live_[0-9A-Za-z]{38}$/);
  assert.equal(s.length, 46);
  const body = s.slice(8, 40);
  const digest = createHash('sha256')
    .update('ff_live_' + body)
    .digest();
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  assert.equal(s.slice(40), Array.from(digest.subarray(0, 6), (b) => alphabet[b % 62]).join(''));
});

test('secrets come from the random source, so two are different and a fixed source repeats', () => {
  assert.notEqual(generateSecret(randomBytes), generateSecret(randomBytes));
  assert.equal(generateSecret(counting()), generateSecret(counting()));
});

test('random bytes of 248 and above are skipped, so every character is equally likely', () => {
  const only = (b: number) => (n: number) => Buffer.alloc(n, b);
  let calls = 0;
  const highThenLow = (n: number) => (calls++ === 0 ? Buffer.alloc(n, 250) : Buffer.alloc(n, 61));
  assert.equal(randomBase62(only(0), 4), '0000');
  assert.equal(randomBase62(only(247), 3), 'zzz'); // 247 % 62 = 61
  assert.equal(randomBase62(highThenLow, 5), 'zzzzz');
  assert.ok(calls >= 2);
  assert.throws(() => randomBase62(() => Buffer.alloc(0), 1));
});

test('looksLikeSecret accepts generated secrets and refuses altered ones', () => {
  for (let i = 0; i < 50; i++) assert.equal(looksLikeSecret(generateSecret(randomBytes)), true);
  const s = generateSecret(counting());
  const flip = (i: number) => s.slice(0, i) + (s[i] === 'a' ? 'b' : 'a') + s.slice(i + 1);
  for (const i of [8, 20, 39, 40, 45]) assert.equal(looksLikeSecret(flip(i)), false, `changed at ${i}`);
  for (const bad of [
    '',
    'ff_live_',
    s.slice(0, -1),
    s + 'a',
    s.replace('ff_live_', 'ff_test_'),
    s.replace('A', '-'),
    ` ${s}`,
    42,
    null,
    undefined,
  ])
    assert.equal(looksLikeSecret(bad), false, String(bad));
});

test('hashSecret is the hex sha256 of the whole secret', () => {
  const s = generateSecret(randomBytes);
  const h = hashSecret(s);
  assert.equal(h, createHash('sha256').update(s).digest('hex'));
  assert.equal(isSecretHash(h), true);
  assert.equal(isSecretHash(h.toUpperCase()), false);
  assert.equal(isSecretHash(s), false);
  assert.notEqual(hashSecret(s + 'x'), h);
  // stored for every token, share link, session and link secret: printf %s "$S" | sha256sum
  assert.equal(hashSecret('ff_live_0123456789ABCDEFGHIJKLMNOPQRSTUV'), '2ce5d37342a01498770ec2c0a87e83863475b0d46f5b86b23f6bd337c6ccb072');
});

test('ids carry their prefix and 22 random base62 characters', () => {
  // an import's id is kept on its events and typed back to undo it
  assert.equal(newId('imp', counting()), 'imp_0123456789ABCDEFGHIJKL');
  for (const p of ['ws', 'site', 'ten', 'goal', 'tok', 'imp', 'ek', 'shr'] as const)
    assert.match(newId(p, randomBytes), new RegExp(`^${p}_[0-9A-Za-z]{22}$`));
  const ids = new Set(Array.from({ length: 1000 }, () => newId('ws', randomBytes)));
  assert.equal(ids.size, 1000);
});
