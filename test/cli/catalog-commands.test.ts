// The catalog commands as a user runs them: real processes, a real data dir, JSON on stdout.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';
import { hashSecret, looksLikeSecret } from '../../src/domain/tokens.js';
import { cliRunner } from './fixtures/cli-run.js';

let dataDir: string;
const { cli, ok, refused } = cliRunner(() => dataDir);

let ws: string;
let site: string;
let tenant: string;

before(async () => {
  dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-cli-')), 'nested', 'data');
  ws = (await ok('workspace', 'create', '--name', 'Acme', '--plan', 'pro')).workspace_id as string;
  site = (
    await ok(
      'site',
      'create',
      '--workspace',
      ws,
      '--name',
      'Shop',
      '--hostname',
      'Shop.Example.com',
      '--hostname',
      'example.com',
      '--profile',
      'extended',
    )
  ).site_id as string;
  tenant = (await ok('tenant', 'create', '--site', site, '--slug', 'north', '--name', 'North')).tenant_id as string;
});

after(() => fs.rmSync(path.dirname(path.dirname(dataDir)), { recursive: true, force: true }));

test('create commands print the new ids and write them to <data-dir>/control.sqlite', async () => {
  assert.match(ws, /^ws_/);
  assert.match(site, /^site_/);
  assert.match(tenant, /^ten_/);
  const goal = await ok(
    'goal',
    'create',
    '--site',
    site,
    '--name',
    'Contact',
    '--type',
    'EVENT_MATCH',
    '--intent',
    'lead',
    '--pattern',
    'form.submit',
    '--form-id',
    'contact',
    '--action-target-host',
    'crm.example.net',
  );
  assert.deepEqual(Object.keys(goal), ['goal_id']);
  const token = await ok('token', 'create', '--workspace', ws, '--scopes', 'metrics:read,usage:read', '--sites', site, '--tenants', tenant);
  assert.deepEqual(Object.keys(token).sort(), ['secret', 'token_id']);
  assert.ok(looksLikeSecret(token.secret));

  const cp = await openSqliteControlPlane(path.join(dataDir, 'control.sqlite'));
  try {
    assert.equal((await cp.catalog.getWorkspace(ws))?.plan, 'pro');
    assert.deepEqual((await cp.catalog.getSite(site))?.hostnames, ['shop.example.com', 'example.com']);
    assert.equal((await cp.catalog.getTenant(tenant))?.slug, 'north');
    const [g] = await cp.catalog.listGoals(site);
    assert.deepEqual([g.id, g.filters], [goal.goal_id, { action_target_host: 'crm.example.net', form_id: 'contact' }]);
    const t = await cp.catalog.findTokenByHash(hashSecret(token.secret as string));
    assert.deepEqual(
      [t?.id, t?.scopes, t?.siteIds, t?.tenantIds, t?.revokedAt],
      [token.token_id, ['metrics:read', 'usage:read'], [site], [tenant], null],
    );
  } finally {
    await cp.close();
  }

  assert.deepEqual(await ok('token', 'revoke', token.token_id as string), { token_id: token.token_id, revoked: true });
  const again = await openSqliteControlPlane(path.join(dataDir, 'control.sqlite'));
  try {
    assert.ok((await again.catalog.findTokenByHash(hashSecret(token.secret as string)))?.revokedAt);
  } finally {
    await again.close();
  }
});

test('without --json the commands print readable text', async () => {
  const w = await cli(
    'workspace',
    'create',
    '--name',
    'Big Co',
    '--plan',
    'enterprise',
    '--api-policy',
    '{"hard_cap_units":100,"rate_limit_rps":1}',
  );
  assert.equal(w.code, 0, w.stderr);
  assert.match(w.stdout, /^Created workspace ws_[0-9A-Za-z]{22} "Big Co" on plan enterprise\.\n$/);
  const id = /ws_[0-9A-Za-z]{22}/.exec(w.stdout)![0];
  const t = await cli('token', 'create', '--workspace', id, '--scopes', 'usage:read');
  assert.equal(t.code, 0, t.stderr);
  const secret = /ff_live_[0-9A-Za-z]{38}/.exec(t.stdout)?.[0];
  assert.ok(secret && looksLikeSecret(secret), t.stdout);
  assert.match(t.stdout, /shown only now/);
});

test('bad arguments get a clear message and exit code 2, with --json as one error object', async () => {
  const free = (await ok('workspace', 'create', '--name', 'Free', '--plan', 'free')).workspace_id as string;
  const other = (await ok('workspace', 'create', '--name', 'Other', '--plan', 'pro')).workspace_id as string;
  const otherSite = (
    await ok('site', 'create', '--workspace', other, '--name', 'O', '--hostname', 'other.example.org', '--profile', 'strict')
  ).site_id as string;
  const site2 = (await ok('site', 'create', '--workspace', ws, '--name', 'Blog', '--hostname', 'blog.example.com', '--profile', 'strict'))
    .site_id as string;
  const cases: Array<[string[], string, RegExp, number?]> = [
    [['workspace', 'create', '--name', 'X', '--plan', 'gold'], 'INVALID_ARGUMENTS', /--plan must be one of free, starter, pro, enterprise/],
    [['workspace', 'create', '--plan', 'pro'], 'INVALID_ARGUMENTS', /missing --name/],
    [['workspace', 'create', '--name', 'X', '--plan', 'pro', '--api-policy', '{}'], 'INVALID_ARGUMENTS', /enterprise only/],
    [['workspace', 'create', '--name', 'X', '--plan', 'enterprise', '--api-policy', '{hard_cap'], 'INVALID_ARGUMENTS', /not valid JSON/],
    [
      ['workspace', 'create', '--name', 'X', '--plan', 'enterprise', '--api-policy', '{"speed":1}'],
      'INVALID_ARGUMENTS',
      /unknown api policy field "speed"/,
    ],
    [['workspace', 'create', '--name', 'X', '--plan', 'pro', '--colour', 'red'], 'INVALID_ARGUMENTS', /unknown option '--colour'/],
    [
      ['site', 'create', '--workspace', 'ws_nope', '--name', 'S', '--hostname', 'a.example.com', '--profile', 'strict'],
      'NOT_FOUND',
      /unknown workspace "ws_nope"/,
    ],
    [
      ['site', 'create', '--workspace', ws, '--name', 'S', '--hostname', 'not a host', '--profile', 'strict'],
      'INVALID_SITE_HOSTNAME',
      /"not a host" is malformed/,
      1,
    ],
    [
      ['site', 'create', '--workspace', ws, '--name', 'S', '--hostname', 'OTHER.example.org', '--profile', 'strict'],
      'SITE_SCOPE_ALREADY_CLAIMED',
      /another workspace/,
      1,
    ],
    [['site', 'create', '--workspace', ws, '--name', 'S', '--profile', 'strict'], 'INVALID_ARGUMENTS', /missing --hostname/],
    [
      ['site', 'create', '--workspace', ws, '--name', 'S', '--hostname', 'c.example.com', '--profile', 'loose'],
      'INVALID_ARGUMENTS',
      /--profile must be one of strict, extended, got "loose"/,
    ],
    [
      [
        'site',
        'create',
        '--workspace',
        ws,
        '--name',
        'S',
        '--hostname',
        'c.example.com',
        '--profile',
        'strict',
        '--profile-effective-at',
        'soon',
      ],
      'INVALID',
      /ISO 8601/,
    ],
    [['tenant', 'create', '--site', 'site_nope', '--slug', 's', '--name', 'N'], 'NOT_FOUND', /unknown site "site_nope"/],
    [['tenant', 'create', '--site', site, '--slug', 'north', '--name', 'N'], 'CONFLICT', /already has a tenant with slug "north"/],
    [
      ['goal', 'create', '--site', site, '--name', 'G', '--type', 'CLICK', '--intent', 'lead', '--pattern', '/x'],
      'INVALID',
      /goal type must be one of/,
    ],
    [['token', 'create', '--workspace', ws, '--scopes', 'metrics:write'], 'INVALID_ARGUMENTS', /unknown scope "metrics:write"/],
    [['token', 'create', '--workspace', free, '--scopes', 'metrics:read'], 'INVALID', /free plan .* has no API access/],
    [['token', 'create', '--workspace', ws, '--scopes', 'metrics:read', '--sites', otherSite], 'INVALID', /is not a site of workspace/],
    [
      ['token', 'create', '--workspace', ws, '--scopes', 'metrics:read', '--sites', site2, '--tenants', tenant],
      'INVALID',
      /is not a tenant of the allowed sites/,
    ],
    [
      ['token', 'create', '--workspace', ws, '--scopes', 'metrics:read', '--sites', `${site},`],
      'INVALID_ARGUMENTS',
      /without empty entries/,
    ],
    [['token', 'revoke', 'tok_nope'], 'NOT_FOUND', /unknown token "tok_nope"/],
  ];
  // The spec's site registration codes refuse the request, not its arguments: they exit 1.
  await Promise.all(cases.map(([args, code, message, exit]) => refused(args, code, message, exit)));

  // An unreachable control plane is an operational failure (exit 1), not an argument error.
  const down = await cli(
    'token',
    'create',
    '--workspace',
    ws,
    '--scopes',
    'metrics:read',
    '--control-url',
    'postgres://postgres@127.0.0.1:1/footfall',
    '--json',
  );
  assert.equal(down.code, 1, down.stderr);
  assert.equal(JSON.parse(down.stdout.trim()).error.code, 'CONTROL_UNAVAILABLE');
  assert.match(down.stderr, /cannot reach the PostgreSQL control plane/);
  assert.doesNotMatch(down.stderr, /\n\s+at /, 'no stack trace');

  const cp = await openSqliteControlPlane(path.join(dataDir, 'control.sqlite'));
  try {
    assert.deepEqual((await cp.catalog.listSites(ws)).map((s) => s.id).sort(), [site, site2].sort(), 'refused commands wrote nothing');
    assert.deepEqual(
      (await cp.catalog.listTenants(site)).map((t) => t.id),
      [tenant],
    );
  } finally {
    await cp.close();
  }
});

test('without --json a refusal goes to stderr only', async () => {
  const r = await cli('tenant', 'create', '--site', 'site_nope', '--slug', 's', '--name', 'N');
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, 'footfall: unknown site "site_nope"\n');
});
