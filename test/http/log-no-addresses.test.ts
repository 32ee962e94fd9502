// footfall keeps no client address (README): the request log does not either. A collected event, a
// sign-in and a /v1 read, over a real socket (collection's own fast path) and through Fastify, at the info
// level every request is logged at: the client's address is in no line the server wrote.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { harness } from './helpers/harness.js';

const ADDRESS = '203.0.113.77';

test("no client address reaches the server's log, whatever route it asked", async () => {
  const h = await harness({ collect: true, config: { trustProxy: 'true' } });
  let log = '';
  const stream = new Writable({ write: (chunk, _enc, done) => ((log += chunk.toString()), done()) });
  const app = await buildApp({ ...h.container, collector: h.collection!.collector }, { logger: { level: 'info', stream } });
  try {
    const ws = await h.workspace('pro');
    await h.catalog.createSite({ workspaceId: ws.id, name: 'Logged', hostnames: ['logged.example'], collectionProfile: 'extended' });
    const event = JSON.stringify({ name: 'pageview', url: 'https://logged.example/a', domain: 'logged.example' });
    const headers = {
      'content-type': 'text/plain',
      'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0',
      'x-forwarded-for': ADDRESS,
    };
    // through Fastify's route
    assert.equal(
      (await app.inject({ method: 'POST', url: '/api/event', headers, payload: event, remoteAddress: ADDRESS })).statusCode,
      202,
    );
    assert.equal(
      (
        await app.inject({
          method: 'POST',
          url: '/app/api/session',
          payload: { email: 'nobody@example.com', password: 'a wrong password' },
          remoteAddress: ADDRESS,
        })
      ).statusCode,
      401,
    );
    assert.equal((await app.inject({ method: 'GET', url: '/v1/me', remoteAddress: ADDRESS })).statusCode, 401);
    // over a socket, answered by collection's fast path before Fastify routes it
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    assert.equal((await fetch(`${base}/api/event`, { method: 'POST', headers, body: event })).status, 202);
    assert.equal((await fetch(`${base}/v1/me`, { headers: { 'x-forwarded-for': ADDRESS } })).status, 401);
    assert.ok(log.includes('/api/event') && log.includes('/v1/me'), 'the requests were logged');
    assert.ok(
      !log.includes(ADDRESS),
      `a client address in the log:\n${log
        .split('\n')
        .filter((l) => l.includes(ADDRESS))
        .join('\n')}`,
    );
    assert.ok(!log.includes('127.0.0.1"'), 'nor the socket address of a request without a proxy');
  } finally {
    await app.close();
    await h.close();
  }
});
