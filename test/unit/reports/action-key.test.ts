import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatActionKey, parseActionKey, type ActionIdentity } from '../../../src/domain/action-key.js';
import { goalPatternToLike } from '../../../src/engines/sql/read/compile-goals.js';

const base: ActionIdentity = {
  family: 'forms',
  action_name: 'form.submit',
  event_name: null,
  action_id: null,
  action_target_host: null,
  form_id: null,
  form_action_path: null,
};

test('action keys round-trip, including separators and non-ASCII inside values', () => {
  const ids: ActionIdentity[] = [
    base,
    { ...base, form_id: 'a;b=c', form_action_path: '/café/ü' },
    { ...base, family: 'custom', action_name: 'x/y;z', event_name: '' },
    { ...base, family: 'outbound', action_name: 'outbound.click', action_target_host: 'partner.example' },
  ];
  for (const id of ids) assert.deepEqual(parseActionKey(formatActionKey(id)), id);
  assert.equal(formatActionKey(ids[3]), 'outbound/outbound.click;action_target_host=partner.example');
});

test('action keys are spelled as every earlier version spelled them (clients keep them and send them back as filters)', () => {
  const every: ActionIdentity = {
    family: 'custom',
    action_name: 'Signup Done',
    event_name: 'sign up',
    action_id: 'btn#1',
    action_target_host: 'a.example',
    form_id: 'f 1',
    form_action_path: '/x?y=1&z',
  };
  const spelled: [ActionIdentity, string][] = [
    [base, 'forms/form.submit'],
    [
      { ...base, form_id: 'a;b=c', form_action_path: '/café/ü' },
      'forms/form.submit;form_id=a%3Bb%3Dc;form_action_path=%2Fcaf%C3%A9%2F%C3%BC',
    ],
    [{ ...base, family: 'custom', action_name: 'x/y;z', event_name: '' }, 'custom/x%2Fy%3Bz;event_name='],
    [
      every,
      'custom/Signup%20Done;event_name=sign%20up;action_id=btn%231;action_target_host=a.example;form_id=f%201;form_action_path=%2Fx%3Fy%3D1%26z',
    ],
  ];
  for (const [id, key] of spelled) {
    assert.equal(formatActionKey(id), key);
    assert.deepEqual(parseActionKey(key), id);
  }
});

test('malformed action keys are 422 INVALID_PARAMS naming action_key', () => {
  for (const bad of [
    'forms',
    'nope/x',
    'forms/',
    'forms/x;bogus=1',
    'forms/x;form_id=1;event_name=2',
    'forms/x;form_id=1;form_id=2',
    'forms/%E0%A4%A',
  ]) {
    assert.throws(
      () => parseActionKey(bad),
      (e: { code?: string; details?: { parameter?: string } }) => e.code === 'INVALID_PARAMS' && e.details?.parameter === 'action_key',
      bad,
    );
  }
});

test('goal patterns become LIKE patterns with only * as a wildcard', () => {
  assert.equal(goalPatternToLike('/blog/*'), '/blog/%');
  assert.equal(goalPatternToLike('/a_b%c\\d*'), '/a\\_b\\%c\\\\d%');
});
