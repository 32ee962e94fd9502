// The embed and share pages' readers batch their reads (web/src/api/read-batch.ts) through their own
// batch routes, with their own credential: the embed token as a bearer (no cookie), the share link's
// cookie (same origin); a 401 line reaches the embed page's onUnauthorized, so an expired token still
// shows its message and asks the host for a fresh one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { batchedRead } from '../../web/src/api/read-batch.js';
import { bearerReader, shareReader } from '../../web/src/api/reader.js';

type Line = { i: number; status: number; body: unknown };

/** fetch answering every batch with `lines`; what was asked, with its RequestInit */
function fakeFetch(lines: Line[]): { calls: { url: string; init: RequestInit }[]; restore(): void } {
  const calls: { url: string; init: RequestInit }[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return new Response(lines.map((l) => JSON.stringify(l)).join('\n') + '\n', {
      status: 200,
      headers: { 'content-type': 'application/x-ndjson' },
    });
  }) as typeof fetch;
  return { calls, restore: () => (globalThis.fetch = realFetch) };
}

const EXPIRED = { error: { code: 'UNAUTHORIZED', message: 'The embed token has expired: mint a fresh one.', request_id: 'req_1' } };

test('the embed reader sends its reads as one batch to /embed/api/reads with its bearer and no cookie; a 401 line reaches onUnauthorized', async () => {
  const heard: string[] = [];
  const reader = bearerReader('ey.the.token', (m) => heard.push(m));
  const fake = fakeFetch([
    { i: 0, status: 200, body: { n: 1 } },
    { i: 1, status: 401, body: EXPIRED },
  ]);
  try {
    const first = batchedRead(reader, '/v1/reports/overview', { site_id: 'a' } as never);
    const second = batchedRead(reader, '/v1/metrics/breakdown', { site_id: 'a' } as never);
    assert.deepEqual(await first, { ok: true, data: { n: 1 } });
    const refused = await second;
    assert.equal(refused.ok, false);
    assert.equal(fake.calls.length, 1, 'one request for both');
    const { url, init } = fake.calls[0];
    assert.match(url, /^\/embed\/api\/reads\?r=%2Fv1%2Freports%2Foverview%3Fsite_id%3Da&r=%2Fv1%2Fmetrics%2Fbreakdown/);
    assert.equal((init.headers as Record<string, string>).Authorization, 'Bearer ey.the.token');
    assert.equal(init.credentials, 'omit', 'an embed sends no cookie');
    assert.deepEqual(heard, [EXPIRED.error.message], 'the expired token is heard of');
  } finally {
    fake.restore();
  }
});

test("a share link's reader sends its reads as one batch below the link, with its cookie and no bearer", async () => {
  const reader = shareReader('AbC123');
  const fake = fakeFetch([
    { i: 1, status: 200, body: { n: 2 } },
    { i: 0, status: 200, body: { n: 1 } },
  ]);
  try {
    const both = await Promise.all([
      batchedRead(reader, '/v1/reports/overview', { site_id: 'a' } as never),
      batchedRead(reader, '/v1/goals', { site_id: 'a' } as never),
    ]);
    assert.deepEqual(both, [
      { ok: true, data: { n: 1 } },
      { ok: true, data: { n: 2 } },
    ]);
    assert.equal(fake.calls.length, 1);
    assert.match(fake.calls[0].url, /^\/share\/AbC123\/api\/reads\?r=%2Fv1%2Freports%2Foverview/);
    assert.equal((fake.calls[0].init.headers as Record<string, string>).Authorization, undefined);
    assert.equal(fake.calls[0].init.credentials, 'same-origin', 'the link cookie goes with it');
  } finally {
    fake.restore();
  }
});
