// Every management command is seen by the very next API request: a real server on a data dir, the
// real CLI changing that data dir from another process, then one request. No catalog cache (token,
// workspace, site, tenant, goal) and no response-cache entry may answer with the old state.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/main.js';
import { cliRunner } from './fixtures/cli-run.js';

let dataDir: string;
let server: RunningServer;
const { ok } = cliRunner(() => dataDir);
let ws: string;
let site: string;
let tenant: string;
let goal: string;
let secret: string;
let tokenId: string;

async function get(url: string, token = secret): Promise<{ status: number; body: any }> {
  const res = await fetch(server.address + url, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: await res.json() };
}

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-next-'));
  ws = (await ok('workspace', 'create', '--name', 'Acme', '--plan', 'pro')).workspace_id;
  site = (await ok('site', 'create', '--workspace', ws, '--name', 'Shop', '--hostname', 'shop.example.com', '--profile', 'strict')).site_id;
  tenant = (await ok('tenant', 'create', '--site', site, '--slug', 'north', '--name', 'North')).tenant_id;
  goal = (
    await ok('goal', 'create', '--site', site, '--name', 'Thanks', '--type', 'PAGEVIEW_MATCH', '--intent', 'lead', '--pattern', '/thanks')
  ).goal_id;
  ({ token_id: tokenId, secret } = await ok('token', 'create', '--workspace', ws, '--scopes', 'metrics:read,usage:read'));
  server = await startServer(loadConfig({ dataDir, port: 0, logLevel: 'silent' }, {}));
});

after(async () => {
  await server?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('token rotate and revoke', async () => {
  assert.equal((await get('/v1/me')).status, 200);
  const rotated = await ok('token', 'rotate', tokenId);
  assert.equal((await get('/v1/me')).status, 401, 'the old secret is refused at once');
  assert.equal((await get('/v1/me', rotated.secret)).status, 200);
  secret = rotated.secret;
  const spare = await ok('token', 'create', '--workspace', ws, '--scopes', 'usage:read');
  assert.equal((await get('/v1/usage/current', spare.secret)).status, 200);
  await ok('token', 'revoke', spare.token_id);
  assert.equal((await get('/v1/usage/current', spare.secret)).status, 401);
});

test('workspace plan and api policy', async () => {
  await ok('workspace', 'update', ws, '--plan', 'free');
  const free = await get('/v1/me');
  assert.equal(free.status, 403, JSON.stringify(free.body));
  await ok('workspace', 'update', ws, '--plan', 'enterprise', '--api-policy', '{"hard_cap_units":3,"monthly_included_units":0}');
  assert.equal((await get('/v1/usage/current')).body.hard_cap_units, 3);
  const capped = await get(`/v1/metrics/timeseries?site_id=${site}`);
  assert.equal(capped.status, 402, 'a 4-unit request no longer fits a cap of 3');
  assert.equal(capped.body.error.code, 'HARD_CAP_REACHED');
  await ok('workspace', 'update', ws, '--plan', 'pro');
  assert.equal((await get(`/v1/metrics/timeseries?site_id=${site}`)).status, 200);
});

test('site name, hostnames, status and profile (past the response cache)', async () => {
  await ok('site', 'update', site, '--name', 'Shop 2', '--hostname', 'www.shop.example.com');
  const [listed] = (await get('/v1/sites')).body.items;
  assert.deepEqual([listed.name, listed.hostnames], ['Shop 2', ['www.shop.example.com']]);

  await ok('site', 'update', site, '--status', 'SUSPENDED');
  const suspended = await get(`/v1/metrics/timeseries?site_id=${site}`);
  assert.equal(suspended.status, 409);
  assert.equal(suspended.body.error.code, 'SITE_INACTIVE');
  await ok('site', 'update', site, '--status', 'ACTIVE');

  // The same request twice: the second is a response-cache hit, built under the strict profile.
  const url = `/v1/metrics/timeseries?site_id=${site}`;
  assert.equal((await get(url)).body.availability.currentProfile, 'strict');
  assert.equal((await get(url)).body.meta.surface.mode, 'strict');
  const region = `/v1/metrics/breakdown?site_id=${site}&dimension=region`;
  assert.equal((await get(region)).body.error.code, 'REPORT_LOCKED_BY_PROFILE');

  const changed = (await ok('site', 'update', site, '--profile', 'extended')).site;
  const after = await get(url);
  assert.equal(after.body.availability.currentProfile, 'extended', 'no cached answer of the old profile');
  assert.equal(after.body.availability.collectionProfileEffectiveAt, changed.collection_profile_effective_at);
  assert.equal((await get('/v1/sites')).body.items[0].product_configuration.collection_profile, 'extended');
  const unlocked = await get(region);
  assert.equal(unlocked.status, 200, JSON.stringify(unlocked.body));
  assert.equal(unlocked.body.availability.current.status, 'partially_available_after_effective_at');
});

test('tenant slug, name and status', async () => {
  await ok('tenant', 'update', tenant, '--slug', 'nord', '--name', 'Nord');
  assert.deepEqual(
    (await get(`/v1/tenants?site_id=${site}`)).body.items.map((t: any) => [t.tenant_id, t.tenant_slug, t.tenant_name]),
    [[tenant, 'nord', 'Nord']],
  );
  await ok('tenant', 'update', tenant, '--status', 'INACTIVE');
  assert.deepEqual((await get(`/v1/tenants?site_id=${site}`)).body.items, []);
});

test('goal update and delete', async () => {
  await ok('goal', 'update', goal, '--name', 'Thank you', '--pattern', '/thank-you');
  const [g] = (await get(`/v1/goals?site_id=${site}`)).body.items;
  assert.deepEqual([g.goalId, g.name, g.pattern], [goal, 'Thank you', '/thank-you']);
  await ok('goal', 'delete', goal);
  assert.deepEqual((await get(`/v1/goals?site_id=${site}`)).body.items, []);
});
