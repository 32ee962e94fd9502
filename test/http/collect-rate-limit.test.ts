// The per-address limit of POST /api/event (what @fastify/rate-limit's local store did for the route):
// a fixed window opened by the first request, keys by address (IPv6 by /64), the refusal's headers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CollectRateLimit, limitKey } from '../../src/http/collect/collect-rate-limit.js';

test('a fixed window from the first request: past max refused until it ends, then counted afresh', () => {
  let now = 1_000_000;
  const limit = new CollectRateLimit(2, 60_000, () => now);
  assert.equal(limit.hit('198.51.100.1'), null);
  now += 20_000;
  assert.equal(limit.hit('198.51.100.1'), null);
  now += 500;
  const refused = limit.hit('198.51.100.1');
  assert.deepEqual(refused, {
    max: 2,
    retryAfterSeconds: 40,
    headers: { 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0', 'retry-after': '40' },
    after: '40 seconds',
  });
  assert.equal(limit.hit('198.51.100.2'), null, 'another address has its own window');
  now = 1_000_000 + 59_001;
  assert.equal(limit.hit('198.51.100.1')?.after, '1 second');
  now = 1_000_000 + 60_000;
  assert.equal(limit.hit('198.51.100.1'), null, 'the window ended: a new one starts');
  assert.equal(limit.hit('198.51.100.1'), null);
  assert.equal(limit.hit('198.51.100.1')?.after, '1 minute', 'refused at once: the whole window is left');
});

test('IPv6 addresses are counted by /64, an IPv4-mapped one as its IPv4 address', () => {
  assert.equal(limitKey('2001:db8:1:2:3:4:5:6'), limitKey('2001:DB8:1:2::9'));
  assert.notEqual(limitKey('2001:db8:1:2::1'), limitKey('2001:db8:1:3::1'));
  assert.equal(limitKey('::ffff:192.0.2.7'), '192.0.2.7');
  assert.equal(limitKey('::ffff:c000:207'), '192.0.2.7');
  assert.notEqual(limitKey('64:ff9b::192.0.2.7'), '192.0.2.7', 'NAT64 is not IPv4-mapped');
  const limit = new CollectRateLimit(1, 60_000, () => 0);
  assert.equal(limit.hit('2001:db8:1:2::1'), null);
  assert.notEqual(limit.hit('2001:db8:1:2::ffff'), null, 'the same /64');
  assert.equal(limit.hit('192.0.2.7'), null);
  assert.notEqual(limit.hit('::ffff:192.0.2.7'), null, 'the same client on a dual-stack socket');
});
