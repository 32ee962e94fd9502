// The HTTP edges, each through a raw socket to a real listening server (bytes on the wire): br and
// gzip past the threshold (and the same bytes on a cache hit), the envelope and X-Request-Id on what
// Node or Fastify answer before routing (oversized headers, malformed URLs and requests, unknown
// methods, a missing Host), two Authorization headers, integers in plain digits, HEAD /healthz and
// Retry-After on 503.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config/config.js';
import { EngineError } from '../../src/domain/errors.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { runImport } from '../../src/ingest/pipeline/run-import.js';
import { openImportStores } from '../../src/container.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { COMPRESSION_THRESHOLD_BYTES } from '../../src/http/server/compression.js';
import type { AnalyticsEngine } from '../../src/ports/analytics-engine.js';
import type { CatalogStore } from '../../src/ports/catalog-store.js';
import { get, rawRequest, type RawResponse } from './helpers/raw-http.js';

let server: RunningServer;
let dataDir: string;
let token: string;
let siteId: string;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-edges-'));
  server = await startServer(loadConfig({ dataDir, port: 0, logLevel: 'silent' }, {}));
  const { catalog } = server.container;
  const ws = await catalog.createWorkspace({ name: 'w', plan: 'pro' });
  siteId = (await catalog.createSite({ workspaceId: ws.id, name: 's', hostnames: ['edges.example'], collectionProfile: 'extended' })).id;
  token = generateSecret(randomBytes);
  await catalog.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], secretHash: hashSecret(token) });
  const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const lines = Array.from({ length: 40 }, (_, i) =>
    JSON.stringify({
      ts: `${day}T10:${String(i).padStart(2, '0')}:00Z`,
      type: 'pageview',
      site_id: siteId,
      path: `/page/${i % 7}`,
      visitor_key: `v${i % 9}`,
      referrer: `https://ref${i % 5}.example/`,
    }),
  );
  const file = path.join(dataDir, 'events.ndjson');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  await runImport({ open: () => openImportStores({ dataDir }), source: file, format: { kind: 'events' }, workers: 0 });
});

after(async () => {
  await server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const auth = (): [string, string] => ['Authorization', `Bearer ${token}`];

/** The spec's envelope, and the X-Request-Id header repeated in it. */
function assertEnvelope(r: RawResponse, status: number, code: string): { message: string; details?: Record<string, unknown> } {
  assert.equal(r.status, status, `${r.status} ${r.reason}: ${r.body.toString('latin1').slice(0, 300)}`);
  assert.match(r.headers['content-type'] ?? '', /^application\/json/);
  const id = r.headers['x-request-id'];
  assert.match(id ?? '', /^[A-Za-z0-9._:-]{1,128}$/, 'X-Request-Id header');
  const body = r.json();
  assert.deepEqual(Object.keys(body), ['error']);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  assert.equal(body.error.request_id, id, 'the body repeats X-Request-Id');
  return body.error;
}

test('bodies past the threshold are compressed with br or gzip as Accept-Encoding prefers; small ones and identity are not', async () => {
  const url = '/v1/me';
  const plain = await rawRequest(server.address, get(url, [auth()]));
  assert.equal(plain.status, 200);
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.ok(plain.body.length > COMPRESSION_THRESHOLD_BYTES, `the /v1/me body (${plain.body.length} bytes) is past the threshold`);
  for (const [accept, encoding] of [
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['gzip;q=1, br;q=0.5', 'gzip'],
    ['deflate', undefined],
    ['identity', undefined],
  ] as const) {
    const r = await rawRequest(server.address, get(url, [auth(), ['Accept-Encoding', accept]]));
    assert.equal(r.status, 200, accept);
    assert.equal(r.headers['content-encoding'], encoding, accept);
    if (encoding) {
      assert.ok(r.body.length < plain.body.length, `${accept}: smaller on the wire`);
      assert.match(r.headers.vary ?? '', /accept-encoding/i);
    }
    assert.deepEqual(r.json(), plain.json(), `${accept}: the same document`);
  }
  const small = await rawRequest(server.address, get('/healthz', [['Accept-Encoding', 'br, gzip']]));
  assert.equal(small.status, 200);
  assert.ok(small.body.length < COMPRESSION_THRESHOLD_BYTES);
  assert.equal(small.headers['content-encoding'], undefined, 'below the threshold: sent as is');
});

test('a cache hit sends the same bytes compressed or not', async () => {
  const url = `/v1/metrics/breakdown?site_id=${siteId}&dimension=page`;
  const ask = (enc?: string) =>
    rawRequest(
      server.address,
      get(url, [auth(), ['X-Request-Id', 'same-id'], ...(enc ? [['Accept-Encoding', enc] as [string, string]] : [])]),
    );
  const miss = await ask();
  assert.equal(miss.status, 200, miss.body.toString());
  assert.equal(miss.json().meta.surface.dataFreshness.cached, false);
  const hits = [await ask(), await ask('gzip'), await ask('br')];
  assert.deepEqual(
    hits.map((h) => h.headers['content-encoding']),
    [undefined, 'gzip', 'br'],
  );
  // Only the month's running total moves between requests; every other byte is the same.
  const norm = (r: RawResponse) =>
    r
      .decoded()
      .toString('utf8')
      .replace(/"used_units":\d+/, '"used_units":N');
  assert.equal(hits[0].json().meta.surface.dataFreshness.cached, true);
  assert.equal(norm(hits[1]), norm(hits[0]));
  assert.equal(norm(hits[2]), norm(hits[0]));
  const units = miss.json().meta.units_charged;
  assert.equal(units, 16, 'breakdown by page, pageviews, 7 days, limit 100');
  assert.deepEqual(
    hits.map((h) => h.json().meta.usage.used_units),
    [2 * units, 3 * units, 4 * units],
    'each hit charged',
  );
});

test('oversized headers: 431 in the envelope with X-Request-Id', async () => {
  const r = await rawRequest(server.address, get('/v1/me', [auth(), ['X-Padding', 'a'.repeat(20_000)]]));
  const e = assertEnvelope(r, 431, 'INVALID_PARAMS');
  assert.match(e.message, /headers are too large/);
  assert.equal(r.headers.connection, 'close');
});

test('malformed URLs and malformed requests: 400 in the envelope with X-Request-Id', async () => {
  for (const target of ['/v1/me%zz', '/v1/%E0%A4%A', '/v1/metrics/timeseries%']) {
    const e = assertEnvelope(await rawRequest(server.address, get(target, [auth()])), 400, 'INVALID_PARAMS');
    assert.match(e.message, /URL is malformed/, target);
  }
  const malformed = [
    'GARBAGE\r\n\r\n',
    'GET v1/me HTTP/1.1\r\nHost: x\r\n\r\n',
    'GET /v1/me HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n',
    'GET /v1/me HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    'GET /v1/me HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n',
    'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
  ];
  for (const bytes of malformed) {
    const r = await rawRequest(server.address, bytes);
    assertEnvelope(r, 400, 'INVALID_PARAMS');
    assert.equal(r.headers.connection, 'close', JSON.stringify(bytes));
  }
  const noHost = assertEnvelope(
    await rawRequest(server.address, 'GET /v1/me HTTP/1.1\r\nConnection: close\r\n\r\n'),
    400,
    'INVALID_PARAMS',
  );
  assert.match(noHost.message, /Host header/);
});

test('unknown methods: 405 INVALID_METHOD with Allow on a known path, 404 elsewhere, in the envelope', async () => {
  const cases: [string, [string, string][]][] = [
    ['QUERY', []],
    [
      'QUERY',
      [
        ['Content-Type', 'application/json'],
        ['Content-Length', '0'],
      ],
    ],
    ['FOO', []],
    ['PROPFIND', []],
    ['POST', []],
  ];
  for (const [method, extra] of cases) {
    const known = await rawRequest(server.address, get('/v1/me', [...extra], method));
    assertEnvelope(known, 405, 'INVALID_METHOD');
    assert.equal(known.headers.allow, 'GET', method);
    assertEnvelope(await rawRequest(server.address, get('/v1/nowhere', [...extra], method)), 404, 'NOT_FOUND');
  }
  const connect = await rawRequest(server.address, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
  assertEnvelope(connect, 405, 'INVALID_METHOD');
});

test('two Authorization headers are 401, whichever they are', async () => {
  const bearer = `Bearer ${token}`;
  for (const pair of [
    [bearer, bearer],
    [bearer, 'Bearer ff_live_other'],
    ['Bearer ff_live_other', bearer],
  ]) {
    const r = await rawRequest(
      server.address,
      get(
        '/v1/me',
        pair.map((v) => ['Authorization', v] as [string, string]),
      ),
    );
    const e = assertEnvelope(r, 401, 'UNAUTHORIZED');
    assert.match(e.message, /exactly one Authorization header/);
  }
  assert.equal((await rawRequest(server.address, get('/v1/me', [['authorization', bearer]]))).status, 200, 'one is fine');
});

test('integer parameters are plain decimal digits: 1e3, 0x10, " 10" and 10.0 are 422', async () => {
  const base = `/v1/metrics/breakdown?site_id=${siteId}&dimension=page&limit=`;
  for (const v of ['1e3', '0x10', '%2010', '10.0']) {
    const e = assertEnvelope(await rawRequest(server.address, get(base + v, [auth()])), 422, 'INVALID_PARAMS');
    assert.deepEqual(e.details, { parameter: 'limit' }, v);
  }
  assert.equal((await rawRequest(server.address, get(base + '10', [auth()]))).status, 200);
});

test('HEAD /healthz answers 200 without a body', async () => {
  const r = await rawRequest(server.address, get('/healthz', [], 'HEAD'));
  assert.equal(r.status, 200);
  assert.equal(r.body.length, 0);
  assert.ok(r.headers['x-request-id']);
  assert.match(r.headers['content-type'] ?? '', /^application\/json/);
});

test('503 carries Retry-After: analytics store down, and /healthz while a store does not answer', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-edges-503-'));
  const down = () => Promise.reject(new EngineError('unavailable'));
  const engine: AnalyticsEngine = {
    run: down,
    actionRows: down,
    actionTotals: down,
    goalMatches: down,
    queryRows: down,
    funnelSteps: down,
    pageTitles: down,
    dataVersion: down,
    newestEventAt: down,
    firstEventAt: down,
  };
  let controlUp = true;
  const failing = await startServer(loadConfig({ dataDir: dir, port: 0, logLevel: 'silent' }, {}), {
    overrides: {
      analytics: { engine },
      control: await (async () => {
        const { openSqliteControlPlane } = await import('../../src/control/sqlite/open.js');
        const cp = await openSqliteControlPlane(':memory:');
        const catalog: CatalogStore = Object.create(cp.catalog, {
          ping: {
            value: async () => {
              if (!controlUp) throw new Error('gone');
            },
          },
        });
        return { catalog, ledger: cp.ledger };
      })(),
    },
  });
  try {
    const { catalog } = failing.container;
    const ws = await catalog.createWorkspace({ name: 'w', plan: 'pro' });
    const site = await catalog.createSite({ workspaceId: ws.id, name: 's', hostnames: ['down.example'], collectionProfile: 'extended' });
    const secret = generateSecret(randomBytes);
    await catalog.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], secretHash: hashSecret(secret) });
    const r = await rawRequest(failing.address, get(`/v1/metrics/timeseries?site_id=${site.id}`, [['Authorization', `Bearer ${secret}`]]));
    assertEnvelope(r, 503, 'ANALYTICS_DB_UNAVAILABLE');
    assert.equal(r.headers['retry-after'], '5');
    controlUp = false;
    for (const method of ['GET', 'HEAD']) {
      const health = await rawRequest(failing.address, get('/healthz', [], method));
      assert.equal(health.status, 503, method);
      assert.equal(health.headers['retry-after'], '5', method);
    }
  } finally {
    await failing.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
