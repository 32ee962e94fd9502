// The one rule every way in applies before a store (src/domain/storable-text.ts): text is storable when
// it holds no NUL and survives UTF-8 as it is, which is what PostgreSQL and both drivers need.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { firstUnstorable, isStorableText, unstorableReason } from '../../src/domain/storable-text.js';

test('a NUL or a lone surrogate is unstorable, and the reason says what to send instead; a surrogate pair is fine', () => {
  assert.match(unstorableReason('a\u0000b')!, /NUL character \(U\+0000\).*remove it/);
  assert.match(unstorableReason('\ud800')!, /lone UTF-16 surrogate.*valid UTF-8/);
  assert.match(unstorableReason('x\udfff')!, /lone/);
  assert.match(unstorableReason('\ud83d\ud800')!, /lone/, 'a high surrogate followed by another high one');
  for (const fine of ['', 'plain', 'ünïcødé 中文', '😀', '\ud83d\ude00', 'tab\tnewline\n', '%00', '\\u0000'])
    assert.equal(unstorableReason(fine), null, JSON.stringify(fine));
});

const SEED = 38;

test(`storable is exactly: no NUL, and the same string after a UTF-8 round trip (fast-check, seed ${SEED})`, () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 12 }), (s) => {
      const roundTrips = Buffer.from(s, 'utf8').toString('utf8') === s;
      assert.equal(isStorableText(s), roundTrips && !s.includes('\u0000'), JSON.stringify(s));
    }),
    { numRuns: 5_000, seed: SEED },
  );
});

test('the first unstorable string of a JSON value is named by its dotted path; a bad member name by its object', () => {
  assert.equal(firstUnstorable({ name: 'ok', tags: ['a', 'b'] }), null);
  assert.deepEqual(firstUnstorable({ name: 'ok', filters: { form_id: 'a\u0000' } })?.path, 'filters.form_id');
  assert.deepEqual(firstUnstorable({ hostnames: ['a.example', '\ud800'] })?.path, 'hostnames.1');
  assert.deepEqual(firstUnstorable('\u0000')?.path, '');
  const key = firstUnstorable({ filters: { 'a\u0000': 'x' } })!;
  assert.equal(key.path, 'filters');
  assert.match(key.reason, /^has a member name that contains a NUL/);
  assert.equal(firstUnstorable({ n: 1e308, b: true, z: null }), null, 'only strings are text');
});
