import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryResponseCache } from '../../../src/cache/memory-response-cache.js';
import type { AnalyticsEngine } from '../../../src/ports/analytics-engine.js';
import { siteFacts } from '../../../src/services/analytics/site-facts.js';

/** An engine whose stored events are [first, newest] of `data`, counting how often it is asked. */
function engine(data: { first: number; newest: number }) {
  const reads = { n: 0 };
  const e = {
    firstEventAt: async () => (reads.n++, new Date(data.first)),
    newestEventAt: async () => new Date(data.newest),
  } as unknown as AnalyticsEngine;
  return { e, reads };
}

test('site facts: read once per site and data version, read again under a new version, never shared between caches', async () => {
  const data = { first: 1_000, newest: 2_000 };
  const { e, reads } = engine(data);
  const cache = new MemoryResponseCache();
  assert.deepEqual(await siteFacts(e, 'site_a', { cache, version: 'v1' }), { firstEventMs: 1_000, newestEventMs: 2_000 });
  assert.deepEqual(await siteFacts(e, 'site_a', { cache, version: 'v1' }), { firstEventMs: 1_000, newestEventMs: 2_000 });
  assert.equal(reads.n, 1);

  data.newest = 3_000; // an import: the store answers a new version
  assert.deepEqual(await siteFacts(e, 'site_a', { cache, version: 'v2' }), { firstEventMs: 1_000, newestEventMs: 3_000 });
  assert.equal(reads.n, 2);
  // the older version's facts are still those of that version
  assert.deepEqual(await siteFacts(e, 'site_a', { cache, version: 'v1' }), { firstEventMs: 1_000, newestEventMs: 2_000 });
  assert.equal(reads.n, 2, 'v1 is still in the response cache');

  const other = engine({ first: 5_000, newest: 6_000 });
  assert.deepEqual(await siteFacts(other.e, 'site_a', { cache: new MemoryResponseCache(), version: 'v1' }), {
    firstEventMs: 5_000,
    newestEventMs: 6_000,
  });
  assert.equal(other.reads.n, 1, 'another cache (another app) reads its own store');
});
