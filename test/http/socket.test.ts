// One real socket: startServer listens on 127.0.0.1, a fetch goes through, close() frees the port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/main.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { openApiChecker } from './helpers/openapi-check.js';

test('startServer serves real HTTP on 127.0.0.1 over the SQLite file in the data dir', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-socket-'));
  const server = await startServer(loadConfig({ dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent' }, {}));
  try {
    assert.match(server.address, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(fs.existsSync(path.join(dataDir, 'control.sqlite')));
    const ws = await server.container.catalog.createWorkspace({ name: 'w', plan: 'pro' });
    const secret = generateSecret(randomBytes);
    await server.container.catalog.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], secretHash: hashSecret(secret) });
    const checker = await openApiChecker(server.app);

    const res = await fetch(`${server.address}/v1/usage/current`, {
      headers: { authorization: `Bearer ${secret}`, 'x-request-id': 'sock-1' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-request-id'), 'sock-1');
    assert.equal(res.headers.get('x-ratelimit-limit'), '1800');
    const body = await res.json();
    assert.equal(body.units_included, 1_000_000);
    checker.check('GET', '/v1/usage/current', {
      statusCode: res.status,
      headers: Object.fromEntries(res.headers),
      json: () => body,
      body: JSON.stringify(body),
    } as never);
    const head = await fetch(`${server.address}/v1/me`, { method: 'HEAD' });
    assert.equal(head.status, 405);
  } finally {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  await assert.rejects(fetch(`${server.address}/healthz`), 'the port is closed after close()');
});
