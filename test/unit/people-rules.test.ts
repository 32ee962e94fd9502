// The pure rules about people: emails, passwords, the throttle's window, roles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeEmail, passwordProblem, throttledUntil } from '../../src/domain/people.js';
import { atLeast, roleToInvite } from '../../src/domain/roles.js';
import { apiPolicyFor, planLimitsFor, validateApiPolicyOverrides } from '../../src/domain/plans.js';

test('emails are trimmed and lower-cased; what is not a mailbox is null', () => {
  assert.equal(normalizeEmail('  Ada@Example.COM '), 'ada@example.com');
  for (const bad of [
    '',
    'ada',
    'ada@',
    '@example.com',
    'ada@example',
    'a b@example.com',
    'ada@exa mple.com',
    42,
    null,
    `${'a'.repeat(250)}@example.com`,
  ])
    assert.equal(normalizeEmail(bad), null, String(bad));
});

test('a password has 10 characters at least (code points) and 1024 at most', () => {
  assert.equal(passwordProblem('123456789'), 'password must be at least 10 characters');
  assert.equal(passwordProblem('1234567890'), null);
  assert.equal(passwordProblem('🔑🔑🔑🔑🔑🔑🔑🔑🔑'), 'password must be at least 10 characters', 'nine characters, eighteen code units');
  assert.match(passwordProblem('x'.repeat(1025))!, /at most 1024/);
  assert.equal(passwordProblem(undefined), 'password must be a string');
});

test('a key is throttled until its max-th newest failure leaves the window', () => {
  assert.equal(throttledUntil([1, 2, 3], 4, 100), null);
  assert.equal(throttledUntil([1, 2, 3, 4], 4, 100), 101);
  assert.equal(throttledUntil([1, 2, 3, 4, 5], 4, 100), 102);
});

test('roles: owner > admin > viewer; admins invite admins and viewers, owners invite owners', () => {
  assert.ok(atLeast('owner', 'admin') && atLeast('admin', 'admin') && !atLeast('viewer', 'admin'));
  assert.deepEqual([roleToInvite('owner'), roleToInvite('admin'), roleToInvite('viewer')], ['owner', 'admin', 'admin']);
});

test('seats and sites per plan; enterprise takes max_users and max_sites from its policy, which product.api never shows', () => {
  assert.deepEqual(
    ['free', 'starter', 'pro'].map((p) => planLimitsFor(p as 'free')),
    [
      { max_users: 1, max_sites: 3 },
      { max_users: 3, max_sites: 10 },
      { max_users: 10, max_sites: 50 },
    ],
  );
  assert.deepEqual(planLimitsFor('enterprise'), { max_users: null, max_sites: null });
  assert.deepEqual(planLimitsFor('enterprise', { max_users: 25, max_sites: 200, hard_cap_units: 5 }), { max_users: 25, max_sites: 200 });
  assert.deepEqual(validateApiPolicyOverrides({ max_users: 25, max_sites: null }), []);
  assert.equal(validateApiPolicyOverrides({ max_users: -1 }).length, 1);
  const api = apiPolicyFor('enterprise', { max_users: 25, max_sites: 200, hard_cap_units: 5 });
  assert.ok(!('max_users' in api) && !('max_sites' in api));
  assert.equal(api.hard_cap_units, 5);
});
