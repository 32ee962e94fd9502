import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dailySalt, dailyVisitorKey } from '../../../src/ingest/parse/visitor-key.js';

const UA = 'Mozilla/5.0 (X11; Linux x86_64)';

test('the key matches an HMAC chain computed with openssl', () => {
  // SALT=$(printf 'site_1\0002024-05-01' | openssl dgst -sha256 -hmac 'sekret')
  // printf '203.0.113.7\000Mozilla/5.0 (X11; Linux x86_64)' | openssl dgst -sha256 -mac HMAC -macopt hexkey:$SALT | cut -c1-16
  assert.equal(
    dailySalt('sekret', 'site_1', '2024-05-01').toString('hex'),
    '79ef2a2365cd1a994cff211a96eb2b3df4652db4ebb28dc70ba498b2b9f838ef',
  );
  assert.equal(dailyVisitorKey('sekret', 'site_1', '2024-05-01', '203.0.113.7', UA), '066effe55d3bb4aa');
});

test('the same inputs give the same key; each input changes it', () => {
  const k = dailyVisitorKey('s', 'site_1', '2024-05-01', '203.0.113.7', UA);
  assert.match(k, /^[0-9a-f]{16}$/);
  assert.equal(dailyVisitorKey('s', 'site_1', '2024-05-01', '203.0.113.7', UA), k);
  const variants = [
    dailyVisitorKey('s', 'site_1', '2024-05-02', '203.0.113.7', UA),
    dailyVisitorKey('s', 'site_2', '2024-05-01', '203.0.113.7', UA),
    dailyVisitorKey('t', 'site_1', '2024-05-01', '203.0.113.7', UA),
    dailyVisitorKey('s', 'site_1', '2024-05-01', '203.0.113.8', UA),
    dailyVisitorKey('s', 'site_1', '2024-05-01', '203.0.113.7', UA + ' '),
  ];
  for (const v of variants) assert.notEqual(v, k);
  assert.equal(new Set(variants).size, variants.length);
});

test('the key contains neither ip nor user agent and field boundaries are unambiguous', () => {
  const k = dailyVisitorKey('s', 'site_1', '2024-05-01', '10.0.0.1', 'curl');
  assert.ok(!k.includes('10.0.0.1') && !k.includes('curl'));
  assert.notEqual(dailyVisitorKey('s', 'a', '2024-05-01', '1.2.3.4', 'xy'), dailyVisitorKey('s', 'a', '2024-05-01', '1.2.3.4x', 'y'));
});

test('a malformed day is a programming error', () => {
  assert.throws(() => dailyVisitorKey('s', 'site_1', '2024-5-1', '1.2.3.4', UA), /utcDay must be YYYY-MM-DD/);
});
