// Managing a workspace through the management API: sites per plan, tokens that the read API honours
// at once, validation naming the field, nothing half-made, and the API's own OpenAPI document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { appApiRoutes } from '../../src/http/app-api/routes/index.js';
import { harness } from './helpers/harness.js';
import { checked, person } from './helpers/app-api.js';

const run = promisify(execFile);

test('sites per plan through the API: past the plan 409 SITE_LIMIT_REACHED with limit and used, and no site is made', async () => {
  const h = await harness();
  try {
    const ws = (await h.workspace('free')).id;
    const admin = await person(h, { workspaceId: ws, role: 'admin' });
    const create = (host: string) =>
      checked(h, admin, 'POST', `/app/api/workspaces/${ws}/sites`, {
        body: { name: host, hostnames: [host], collection_profile: 'strict' },
      });
    for (const host of ['a.example.com', 'b.example.com', 'c.example.com']) assert.equal((await create(host)).statusCode, 201);
    const r = await create('d.example.com');
    assert.equal(r.statusCode, 409);
    assert.deepEqual([r.json().error.code, r.json().error.details], ['SITE_LIMIT_REACHED', { limit: 3, used: 3 }]);
    assert.equal((await checked(h, admin, 'GET', `/app/api/workspaces/${ws}/sites`)).json().sites.length, 3);
    assert.equal(await h.catalog.findSiteByHostname('d.example.com'), null);
  } finally {
    await h.close();
  }
});

test('a token made in the API reads /v1 at once; rotate replaces its secret; revoke stops it on the next request', async () => {
  const h = await harness();
  try {
    const ws = (await h.workspace('pro')).id;
    const admin = await person(h, { workspaceId: ws, role: 'admin' });
    const made = await checked(h, admin, 'POST', `/app/api/workspaces/${ws}/tokens`, { body: { scopes: ['metrics:read', 'usage:read'] } });
    assert.equal(made.statusCode, 201);
    const { token_id, secret } = made.json();
    assert.equal((await h.get('/v1/me', { token: secret })).statusCode, 200);
    const listed = (await checked(h, admin, 'GET', `/app/api/workspaces/${ws}/tokens`)).body;
    assert.ok(listed.includes(token_id) && !listed.includes(secret), 'listed without its secret');
    const rotated = (await checked(h, admin, 'POST', `/app/api/workspaces/${ws}/tokens/${token_id}/rotate`)).json();
    assert.notEqual(rotated.secret, secret);
    assert.equal((await h.get('/v1/me', { token: secret })).statusCode, 401);
    assert.equal((await h.get('/v1/me', { token: rotated.secret })).statusCode, 200);
    const revoked = await checked(h, admin, 'POST', `/app/api/workspaces/${ws}/tokens/${token_id}/revoke`);
    assert.equal(revoked.json().revoked_at, h.clock.now().toISOString());
    assert.equal((await h.get('/v1/me', { token: rotated.secret })).statusCode, 401);
    // A token of another workspace is as unknown as a missing one.
    const other = await h.token((await h.workspace('pro')).id);
    assert.equal((await checked(h, admin, 'POST', `/app/api/workspaces/${ws}/tokens/${other.id}/revoke`)).statusCode, 404);
    assert.equal((await h.get('/v1/me', { token: other.secret })).statusCode, 200);
  } finally {
    await h.close();
  }
});

test('every refused body names its field, and a refused creation writes nothing', async () => {
  const h = await harness();
  try {
    const ws = (await h.workspace('pro')).id;
    const owner = await person(h, { workspaceId: ws, role: 'owner' });
    const site = await h.catalog.createSite({ workspaceId: ws, name: 'S', hostnames: ['s.example.com'], collectionProfile: 'extended' });
    const cases: [string, string, unknown, string, RegExp][] = [
      [
        'POST',
        `/app/api/workspaces/${ws}/sites`,
        { name: 'x', hostnames: [], collection_profile: 'strict' },
        'hostnames',
        /hostnames: it needs at least 1 item/,
      ],
      [
        'POST',
        `/app/api/workspaces/${ws}/sites`,
        { name: 'x', hostnames: ['a.example.com'], collection_profile: 'loose' },
        'collection_profile',
        /one of strict, extended/,
      ],
      [
        'POST',
        `/app/api/workspaces/${ws}/sites`,
        { name: '', hostnames: ['a.example.com'], collection_profile: 'strict' },
        'name',
        /name: it must not be empty/,
      ],
      [
        'POST',
        `/app/api/workspaces/${ws}/tenants`,
        { site_id: site.id, slug: 'north', name: 'N', status: 'GONE' },
        'status',
        /one of ACTIVE, INACTIVE/,
      ],
      [
        'POST',
        `/app/api/workspaces/${ws}/goals`,
        { site_id: site.id, name: 'G', type: 'PAGEVIEW_MATCH', intent: 'lead', pattern: '/x', filters: { color: 'red' } },
        'filters.color',
        /Unknown field filters\.color/,
      ],
      ['POST', `/app/api/workspaces/${ws}/tokens`, { scopes: ['admin:write'] }, 'scopes.0', /scopes\.0/],
      [
        'POST',
        `/app/api/workspaces/${ws}/invitations`,
        { email: 'x@example.com', role: 'viewer', extra: 1 },
        'extra',
        /Unknown field extra/,
      ],
      ['PATCH', `/app/api/sites/${site.id}`, { hostnames: 'a.example.com' }, 'hostnames', /hostnames: it must be an array/],
    ];
    for (const [method, url, body, field, message] of cases) {
      const r = await checked(h, owner, method, url, { body });
      assert.equal(r.statusCode, 422, `${method} ${url} ${JSON.stringify(body)}`);
      assert.equal(r.json().error.code, 'INVALID_PARAMS');
      assert.deepEqual(r.json().error.details, { field });
      assert.match(r.json().error.message, message);
    }
    // What only the store can judge is refused with the management codes too.
    const badHost = await checked(h, owner, 'POST', `/app/api/workspaces/${ws}/sites`, {
      body: { name: 'x', hostnames: ['not a host'], collection_profile: 'strict' },
    });
    assert.deepEqual([badHost.statusCode, badHost.json().error.code], [422, 'INVALID_SITE_HOSTNAME']);
    const taken = await checked(h, owner, 'POST', `/app/api/workspaces/${ws}/sites`, {
      body: { name: 'x', hostnames: ['s.example.com'], collection_profile: 'strict' },
    });
    assert.equal(taken.statusCode, 409);
    const slug = await checked(h, owner, 'POST', `/app/api/workspaces/${ws}/tenants`, {
      body: { site_id: site.id, slug: 'Not A Slug', name: 'N' },
    });
    assert.equal(slug.statusCode, 422);
    assert.match(slug.json().error.message, /tenant slug/);
    await checked(h, owner, 'POST', `/app/api/workspaces/${ws}/tenants`, { body: { site_id: site.id, slug: 'north', name: 'N' } });
    const dup = await checked(h, owner, 'POST', `/app/api/workspaces/${ws}/tenants`, {
      body: { site_id: site.id, slug: 'north', name: 'N2' },
    });
    assert.deepEqual([dup.statusCode, dup.json().error.code], [409, 'CONFLICT']);
    const past = await checked(h, owner, 'PATCH', `/app/api/sites/${site.id}`, {
      body: { collection_profile: 'strict', collection_profile_effective_at: '2020-01-01T00:00:00Z' },
    });
    assert.equal(past.statusCode, 422, 'a profile switch is prospective');
    const notJson = await h.app.inject({
      method: 'POST',
      url: `/app/api/workspaces/${ws}/tenants`,
      headers: { cookie: `footfall_session=${owner.cookie}`, 'x-csrf-token': owner.csrf, 'content-type': 'application/json' },
      payload: '{"site_id":',
    });
    assert.deepEqual([notJson.statusCode, notJson.json().error.code], [422, 'INVALID_PARAMS']);
    assert.equal((await h.catalog.listSites(ws)).length, 1);
    assert.deepEqual(
      (await h.catalog.listTenants(site.id)).map((t) => t.name),
      ['N'],
    );
    assert.deepEqual((await h.catalog.getSite(site.id))?.collectionProfile, 'extended');
  } finally {
    await h.close();
  }
});

test('GET /app/api/openapi.json describes every management route, lints clean, and /openapi.json lists none of them', async () => {
  const h = await harness();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-app-lint-'));
  try {
    const r = await h.app.inject({ url: '/app/api/openapi.json' });
    assert.equal(r.statusCode, 200);
    const doc = r.json();
    const ops = Object.entries<Record<string, { operationId: string }>>(doc.paths).flatMap(([p, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`),
    );
    assert.deepEqual(ops.sort(), appApiRoutes.map((d) => `${d.method} /app/api${d.url.replace(/:([a-z_]+)/g, '{$1}')}`).sort());
    assert.ok(doc.components.schemas.ManageErrorCode.anyOf.some((c: { const: string }) => c.const === 'SEAT_LIMIT_REACHED'));
    const v1 = (await h.app.inject({ url: '/openapi.json' })).json();
    assert.ok(!Object.keys(v1.paths).some((p) => p.startsWith('/app')), 'the read API document lists no management route');
    assert.ok(!v1.components.schemas.ErrorCode.enum.includes('SEAT_LIMIT_REACHED'));

    const file = path.join(dir, 'app-openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc, null, 2));
    const cli = path.resolve('node_modules/@redocly/cli/bin/cli.js');
    const { stdout } = await run(process.execPath, [cli, 'lint', file, '--config', path.resolve('redocly.yaml'), '--format=json'], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 120_000,
      maxBuffer: 16 << 20,
    });
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    assert.deepEqual(
      report.totals,
      { ...report.totals, errors: 0, warnings: 0 },
      report.problems.map((p) => `${p.ruleId}: ${p.message}`).join('\n'),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await h.close();
  }
});
