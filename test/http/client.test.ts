// The typed client the package ships (`footfall/client`, built to dist/client), against real
// listening servers: typed answers and meta.usage, and the spec's retry guidance (429 waits for
// X-RateLimit-Reset, 500 backs off, 503 ANALYTICS_DB_UNAVAILABLE waits for Retry-After, and 401, 402,
// 403 and 422 are never retried). Its types are generated from the served document; a stale file fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createFootfallClient, RetryPolicy, type RetryOptions } from 'footfall/client';
import { clientTypes, CLIENT_TYPES_FILE } from '../../scripts/gen-client.js';
import { loadConfig } from '../../src/config/config.js';
import { EngineError, ERROR_CATALOG, type ErrorCode } from '../../src/domain/errors.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { ERROR_GUIDANCE } from '../../src/http/openapi/error-guidance.js';
import { runImport } from '../../src/ingest/pipeline/run-import.js';
import { openImportStores } from '../../src/container.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { MemoryRateLimiter } from '../../src/limits/memory.js';
import type { AnalyticsEngine } from '../../src/ports/analytics-engine.js';
import type { CatalogStore, Workspace } from '../../src/ports/catalog-store.js';
import type { RateLimiter } from '../../src/ports/rate-limiter.js';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';

let server: RunningServer;
let control: { close(): Promise<void> };
let dataDir: string;
let siteId: string;
let ws: Workspace;
/** failures to come of the control plane's read of the request's site (with the token, or alone), for the 500 case */
let failGetSite = 0;
/** refusals the rate limiter gives before it lets hits through again, for the 429 case */
let refuse = 0;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-client-'));
  const cp = await openSqliteControlPlane(path.join(dataDir, 'control.sqlite'));
  control = cp;
  const hiccup = () => {
    if (failGetSite > 0) {
      failGetSite--;
      throw new Error('control plane hiccup');
    }
  };
  const catalog: CatalogStore = Object.create(cp.catalog, {
    getSite: {
      value: async (id: string) => {
        hiccup();
        return cp.catalog.getSite(id);
      },
    },
    findTokenWithWorkspace: {
      value: async (secretHash: string, siteId?: string) => {
        if (siteId === undefined) return cp.catalog.findTokenWithWorkspace(secretHash);
        hiccup();
        return cp.catalog.findTokenWithWorkspace(secretHash, siteId);
      },
    },
  });
  const memory = new MemoryRateLimiter();
  const limiter: RateLimiter = {
    hit: async (key, limit, windowMs, nowMs) => {
      if (refuse > 0) {
        refuse--;
        return { allowed: false, limit, remaining: 0, resetUnix: Math.ceil(nowMs / 1000) + 2 };
      }
      return memory.hit(key, limit, windowMs, nowMs);
    },
    close: () => memory.close(),
  };
  server = await startServer(loadConfig({ dataDir, port: 0, logLevel: 'silent' }, {}), {
    overrides: { control: { catalog, ledger: cp.ledger }, limiter },
  });
  ws = await catalog.createWorkspace({ name: 'w', plan: 'enterprise', apiPolicy: { hard_cap_units: 40, monthly_included_units: 10 } });
  siteId = (await catalog.createSite({ workspaceId: ws.id, name: 's', hostnames: ['client.example'], collectionProfile: 'extended' })).id;
  const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const file = path.join(dataDir, 'events.ndjson');
  fs.writeFileSync(
    file,
    [0, 1, 2]
      .map((i) => JSON.stringify({ ts: `${day}T1${i}:00:00Z`, type: 'pageview', site_id: siteId, path: `/p${i}`, visitor_key: `v${i}` }))
      .join('\n') + '\n',
  );
  await runImport({ open: () => openImportStores({ dataDir }), source: file, format: { kind: 'events' }, workers: 0 });
});

after(async () => {
  await server.close();
  await control.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function newToken(scopes: ('metrics:read' | 'usage:read')[] = ['metrics:read']): Promise<string> {
  const secret = generateSecret(randomBytes);
  await server.container.catalog.createToken({ workspaceId: ws.id, scopes, secretHash: hashSecret(secret) });
  return secret;
}

/** A client whose fetches are counted and whose waits are recorded instead of slept. */
function counted(token: string, retry: RetryOptions = {}, address = server.address) {
  const calls: number[] = [];
  const waits: number[] = [];
  const client = createFootfallClient({
    baseUrl: address,
    token,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      calls.push(res.status);
      return res;
    },
    retry: { sleep: async (ms) => void waits.push(ms), random: () => 0.5, ...retry },
  });
  return { client, calls, waits };
}

test('typed answers from a live server, and meta.usage of the latest metered answer', async () => {
  const { client, calls } = counted(await newToken());
  const initial = client.lastUsage;
  assert.equal(initial, null, 'no usage before a metered answer');
  const me = await client.GET('/v1/me');
  assert.equal(me.response.status, 200);
  assert.equal(me.data?.product.runtime_plan_id, 'pro', 'an enterprise workspace reports pro');
  assert.equal(me.response.headers.get('x-request-id')?.startsWith('req_'), true);
  const series = await client.GET('/v1/metrics/timeseries', { params: { query: { site_id: siteId, metric: 'pageviews' } } });
  assert.ok(series.data, JSON.stringify(series.error));
  assert.equal(series.data.current.total, 3);
  assert.equal(series.data.meta.units_charged, 4);
  assert.deepEqual(client.lastUsage, series.data.meta.usage);
  assert.equal(client.lastUsage?.used_units, 4);
  assert.deepEqual(calls, [200, 200]);
});

test('401, 402, 403 and 422 are answered once, never retried, with their typed error', async () => {
  const bad = counted('ff_live_not_a_real_token');
  const r401 = await bad.client.GET('/v1/me');
  assert.equal(r401.error?.error.code, 'UNAUTHORIZED');
  assert.deepEqual(bad.calls, [401]);

  const usageOnly = counted(await newToken(['usage:read']));
  const r403 = await usageOnly.client.GET('/v1/me');
  assert.equal(r403.error?.error.code, 'FORBIDDEN');
  assert.deepEqual(usageOnly.calls, [403]);

  const c = counted(await newToken());
  const r422 = await c.client.GET('/v1/metrics/breakdown', { params: { query: { site_id: siteId, dimension: 'page', limit: 0 } } });
  assert.equal(r422.error?.error.code, 'INVALID_PARAMS');
  // Up to the hard cap of 40 units (16 per 7-day breakdown by page), then 402.
  const byPage = () => c.client.GET('/v1/metrics/breakdown', { params: { query: { site_id: siteId, dimension: 'page' } } });
  let r402: Awaited<ReturnType<typeof byPage>> | undefined;
  for (let i = 0; i < 5 && !r402?.error; i++) r402 = await byPage();
  assert.equal(r402?.error?.error.code, 'HARD_CAP_REACHED');
  assert.deepEqual(
    c.calls.filter((s) => s !== 200),
    [422, 402],
    'each refusal asked once',
  );
  assert.deepEqual(c.waits, []);
});

test('429: the client waits until X-RateLimit-Reset, then asks again', async () => {
  const c = counted(await newToken(), { now: () => Date.now() });
  refuse = 1;
  const r = await c.client.GET('/v1/usage/current');
  assert.equal(r.response.status, 200, JSON.stringify(r.error));
  assert.deepEqual(c.calls, [429, 200]);
  assert.equal(c.waits.length, 1);
  // The limiter set the reset 2 s ahead of its whole second (2 to 3 s away).
  assert.ok(c.waits[0] > 1000 && c.waits[0] <= 3000, `waited until the reset, not ${c.waits[0]} ms`);

  refuse = 10;
  const gaveUp = counted(await newToken(), { maxRetries: 2 });
  const last = await gaveUp.client.GET('/v1/usage/current');
  assert.equal(last.error?.error.code, 'RATE_LIMITED');
  assert.deepEqual(gaveUp.calls, [429, 429, 429], 'the first try and two retries');
  refuse = 0;
});

test('500: exponential backoff, then the answer', async () => {
  const c = counted(await newToken(), { baseDelayMs: 100 });
  failGetSite = 2;
  const r = await c.client.GET('/v1/goals', { params: { query: { site_id: siteId } } });
  assert.equal(r.response.status, 200, JSON.stringify(r.error));
  assert.deepEqual(c.calls, [500, 500, 200]);
  assert.deepEqual(c.waits, [75, 150], 'base x 2^attempt, jittered by the fixed 0.5 draw to x0.75');
});

test('503: ANALYTICS_DB_UNAVAILABLE waits for Retry-After; ANALYTICS_DB_TIMEOUT is returned at once', async () => {
  let kind: 'unavailable' | 'timeout' = 'unavailable';
  const fail = () => Promise.reject(new EngineError(kind));
  const engine: AnalyticsEngine = {
    run: fail,
    actionRows: fail,
    actionTotals: fail,
    goalMatches: fail,
    queryRows: fail,
    funnelSteps: fail,
    pageTitles: fail,
    dataVersion: fail,
    newestEventAt: fail,
    firstEventAt: fail,
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-client-503-'));
  const down = await startServer(loadConfig({ dataDir: dir, port: 0, logLevel: 'silent' }, {}), { overrides: { analytics: { engine } } });
  try {
    const w = await down.container.catalog.createWorkspace({ name: 'w', plan: 'pro' });
    const site = await down.container.catalog.createSite({
      workspaceId: w.id,
      name: 's',
      hostnames: ['down.example'],
      collectionProfile: 'extended',
    });
    const secret = generateSecret(randomBytes);
    await down.container.catalog.createToken({ workspaceId: w.id, scopes: ['metrics:read'], secretHash: hashSecret(secret) });
    const unavailable = counted(secret, { maxRetries: 2 }, down.address);
    const r = await unavailable.client.GET('/v1/metrics/timeseries', { params: { query: { site_id: site.id } } });
    assert.equal(r.error?.error.code, 'ANALYTICS_DB_UNAVAILABLE');
    assert.deepEqual(unavailable.calls, [503, 503, 503]);
    assert.deepEqual(unavailable.waits, [5000, 5000], 'Retry-After: 5');
    kind = 'timeout';
    const timeout = counted(secret, { maxRetries: 2 }, down.address);
    const t = await timeout.client.GET('/v1/metrics/timeseries', { params: { query: { site_id: site.id } } });
    assert.equal(t.error?.error.code, 'ANALYTICS_DB_TIMEOUT');
    assert.deepEqual(timeout.calls, [503]);
  } finally {
    await down.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the client retries exactly the codes the published guidance says to', () => {
  const policy = new RetryPolicy({ maxWaitMs: Infinity });
  const none = new Headers();
  for (const code of Object.keys(ERROR_CATALOG) as ErrorCode[]) {
    const decision = policy.decide(ERROR_CATALOG[code].status, none, code, 0);
    assert.equal(decision.retry, ERROR_GUIDANCE[code].retry !== 'never', `${code}: ${ERROR_GUIDANCE[code].retry}`);
  }
  // A wait past maxWaitMs is not worth holding the caller for: the answer is returned.
  const far = new Headers({ 'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 3600) });
  assert.deepEqual(new RetryPolicy().decide(429, far, 'RATE_LIMITED', 0), { retry: false });
});

test('the client types are generated from the served document (npm run gen:client)', async () => {
  const committed = fs.readFileSync(CLIENT_TYPES_FILE, 'utf8');
  assert.ok(committed === (await clientTypes()), 'src/client/api-types.ts is stale: run npm run gen:client');
});
