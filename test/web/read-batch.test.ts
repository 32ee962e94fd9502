// The dashboard's read batching (web/src/api/read-batch.ts), without a browser: how reads are split
// into batches, and what a batch does with a line the session's window refused (429).
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { batchedRead, batchesOf, MAX_BATCH_URL } from '../../web/src/api/read-batch.js';
import { sessionReader } from '../../web/src/api/reader.js';
import { queryString } from '../../web/src/api/read.js';

const reader = sessionReader();
const waiting = (n: number, filter = '') =>
  Array.from({ length: n }, (_, i) => ({
    path: '/v1/metrics/breakdown' as const,
    query: { site_id: `s${i}`, filters: filter },
    resolve: () => undefined,
  }));
// the URL a batch leaves with (as read-batch.ts writes it)
const urlOf = (batch: ReturnType<typeof waiting>) =>
  `${reader.batch}?${batch.map((w) => `r=${encodeURIComponent(w.path + queryString(w.query))}`).join('&')}`;

test('reads leave in batches of 32 at most, in the order they were asked', () => {
  const list = waiting(70);
  const batches = batchesOf(reader, list);
  assert.deepEqual(
    batches.map((b) => b.length),
    [32, 32, 6],
  );
  assert.deepEqual(batches.flat(), list);
});

test('a batch URL stays within MAX_BATCH_URL: reads with long filters leave in more batches, a read too long for any batch alone', () => {
  const long = JSON.stringify({ page: 'x'.repeat(900) });
  const list = waiting(20, long);
  const batches = batchesOf(reader, list);
  assert.ok(batches.length > 1, 'long reads are split');
  assert.deepEqual(batches.flat(), list);
  for (const b of batches) assert.ok(urlOf(b).length <= MAX_BATCH_URL, `a URL of ${urlOf(b).length} characters`);
  const huge = waiting(3, JSON.stringify({ page: 'y'.repeat(MAX_BATCH_URL) }));
  assert.deepEqual(
    batchesOf(reader, huge).map((b) => b.length),
    [1, 1, 1],
  );
});

test('a line refused with 429 is asked again alone only after its retry_after; the others answer at once', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  const calls: string[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (url: string) => {
    calls.push(url);
    if (url.startsWith('/app/api/reads?')) {
      const lines = [
        { i: 0, status: 200, body: { n: 'first' } },
        { i: 1, status: 429, retry_after: '2', body: { error: { code: 'RATE_LIMITED', message: 'Too many requests' } } },
      ];
      return new Response(lines.map((l) => JSON.stringify(l)).join('\n') + '\n', {
        status: 200,
        headers: { 'content-type': 'application/x-ndjson' },
      });
    }
    return new Response(JSON.stringify({ n: 'second, alone' }), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  try {
    const first = batchedRead(reader, '/v1/metrics/breakdown', { site_id: 'a' } as never);
    const second = batchedRead(reader, '/v1/metrics/breakdown', { site_id: 'b' } as never);
    assert.deepEqual(await first, { ok: true, data: { n: 'first' } });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    assert.equal(calls.length, 1, 'the refused read is not asked again before its retry_after');
    mock.timers.tick(1_999);
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    assert.equal(calls.length, 1);
    mock.timers.tick(1);
    assert.deepEqual(await second, { ok: true, data: { n: 'second, alone' } });
    assert.equal(calls.length, 2);
    assert.match(calls[1], /^\/app\/api\/v1\/metrics\/breakdown\?site_id=b/);
  } finally {
    globalThis.fetch = realFetch;
    mock.timers.reset();
  }
});
