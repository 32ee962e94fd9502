// A site's time zone (src/domain/canonical-time-zone.ts): IANA names the runtime knows, one spelling
// each; offsets, unknown names and junk refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalTimeZone, DEFAULT_TIME_ZONE } from '../../src/domain/canonical-time-zone.js';

test('IANA names are accepted as they are written', () => {
  for (const zone of ['Asia/Kathmandu', 'America/New_York', 'UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5'])
    assert.equal(canonicalTimeZone(zone), zone, zone);
  assert.equal(DEFAULT_TIME_ZONE, 'UTC');
});

test("every name of Intl.supportedValuesOf('timeZone') is accepted unchanged", () => {
  const listed = Intl.supportedValuesOf('timeZone');
  assert.ok(listed.length > 300, `the runtime lists ${listed.length} zones`);
  for (const zone of listed) assert.equal(canonicalTimeZone(zone), zone, zone);
});

test("the case is fixed, UTC's other names are UTC, and an alias is kept rather than folded", () => {
  assert.equal(canonicalTimeZone('utc'), 'UTC');
  assert.equal(canonicalTimeZone('Etc/UTC'), 'UTC');
  assert.equal(canonicalTimeZone('etc/gmt'), 'UTC');
  assert.equal(canonicalTimeZone('GMT'), 'UTC');
  assert.equal(canonicalTimeZone('Etc/Zulu'), 'UTC');
  assert.equal(canonicalTimeZone('europe/berlin'), 'Europe/Berlin');
  assert.equal(canonicalTimeZone('AMERICA/NEW_YORK'), 'America/New_York');
  assert.equal(canonicalTimeZone('etc/gmt+5'), 'Etc/GMT+5');
  // both spellings of the same zone: runtimes disagree on which one they list
  assert.equal(canonicalTimeZone('Asia/Katmandu'), 'Asia/Katmandu');
  assert.equal(canonicalTimeZone('Asia/Kathmandu'), 'Asia/Kathmandu');
  assert.equal(canonicalTimeZone('US/Eastern'), 'US/Eastern');
});

test('offsets, unknown names, empty, over-long, NUL and padding are refused', () => {
  const refused: unknown[] = [
    '+05:45',
    '-0500',
    '+01',
    'UTC+1',
    'GMT+05:45',
    'Z',
    'Mars/Base',
    'Europe/Atlantis',
    '',
    ' ',
    'Europe/Berlin\u0000',
    '\u0000',
    ' Europe/Berlin',
    'Europe/Berlin ',
    'Europe//Berlin',
    'Europe/',
    '/Europe/Berlin',
    '../etc/passwd',
    `Europe/${'B'.repeat(100)}`,
    'America/New_York'.repeat(5),
    null,
    undefined,
    42,
    ['UTC'],
  ];
  for (const input of refused) assert.equal(canonicalTimeZone(input), null, JSON.stringify(input));
});

const SEED = 40;

test(`what is accepted is a name Intl.DateTimeFormat takes, in the listed spelling whatever the case, and stable (fast-check, seed ${SEED})`, () => {
  const names = Intl.supportedValuesOf('timeZone');
  const listed = new Map(names.map((n) => [n.toLowerCase(), n]));
  const anyCase = fc
    .tuple(fc.constantFrom(...names, 'UTC'), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }))
    .map(([name, upper]) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(''));
  fc.assert(
    fc.property(fc.oneof(anyCase, fc.string({ maxLength: 70 })), (input) => {
      const zone = canonicalTimeZone(input);
      const inList = listed.get(input.toLowerCase()) ?? (input.toLowerCase() === 'utc' ? 'UTC' : undefined);
      if (inList) assert.equal(zone, inList, input);
      if (zone === null) return;
      assert.doesNotThrow(() => new Intl.DateTimeFormat('en', { timeZone: zone }));
      assert.equal(canonicalTimeZone(zone), zone, 'accepting it again changes nothing');
    }),
    { numRuns: 2_000, seed: SEED },
  );
});
