// The management commands (list, update, delete, rotate) as a user runs them: real processes on a
// real data dir, one JSON object on stdout, clear refusals with exit code 2.
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
let goal: string;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-manage-'));
  ws = (await ok('workspace', 'create', '--name', 'Acme', '--plan', 'pro')).workspace_id;
  site = (await ok('site', 'create', '--workspace', ws, '--name', 'Shop', '--hostname', 'shop.example.com', '--profile', 'strict')).site_id;
  tenant = (await ok('tenant', 'create', '--site', site, '--slug', 'north', '--name', 'North')).tenant_id;
  goal = (
    await ok('goal', 'create', '--site', site, '--name', 'Thanks', '--type', 'PAGEVIEW_MATCH', '--intent', 'lead', '--pattern', '/thanks')
  ).goal_id;
});

after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

test('workspace list and update', async () => {
  const { workspaces } = await ok('workspace', 'list');
  assert.deepEqual(
    workspaces.map((w: { workspace_id: string }) => w.workspace_id),
    [ws],
  );
  assert.deepEqual(Object.keys(workspaces[0]), ['workspace_id', 'name', 'plan', 'api_policy', 'created_at']);

  const up = await ok('workspace', 'update', ws, '--plan', 'enterprise', '--api-policy', '{"hard_cap_units":500}');
  assert.deepEqual([up.workspace.plan, up.workspace.api_policy], ['enterprise', { hard_cap_units: 500 }]);
  const down = await cli('workspace', 'update', ws, '--plan', 'pro');
  assert.equal(down.code, 0, down.stderr);
  assert.match(down.stdout, /plan pro \(its enterprise api policy overrides were dropped\)/);
  assert.deepEqual((await ok('workspace', 'list')).workspaces[0].api_policy, {});

  await refused(['workspace', 'update', ws], 'INVALID_ARGUMENTS', /nothing to change/);
  await refused(
    ['workspace', 'update', ws, '--plan', 'gold'],
    'INVALID_ARGUMENTS',
    /--plan must be one of free, starter, pro, enterprise, got "gold"/,
  );
  await refused(['workspace', 'update', ws, '--api-policy', '{"hard_cap_units":1}'], 'INVALID', /enterprise workspaces only/);
  await refused(['workspace', 'update', 'ws_nope', '--name', 'X'], 'NOT_FOUND', /unknown workspace "ws_nope"/);
});

test('site list and update: hostnames under the ownership rules, prospective profile changes', async () => {
  const other = (await ok('workspace', 'create', '--name', 'Other', '--plan', 'pro')).workspace_id;
  await ok('site', 'create', '--workspace', other, '--name', 'O', '--hostname', 'theirs.example.org', '--profile', 'strict');

  const listed = (await ok('site', 'list', '--workspace', ws)).sites;
  assert.deepEqual(
    listed.map((s: { site_id: string }) => s.site_id),
    [site],
  );
  assert.deepEqual(Object.keys(listed[0]), [
    'site_id',
    'workspace_id',
    'name',
    'hostnames',
    'status',
    'collection_profile',
    'collection_profile_effective_at',
    'created_at',
    'timezone',
    'domain_scope',
    'hostname_patterns',
    'domains',
    'released_hostnames',
  ]);

  const before = Date.now();
  const up = (
    await ok(
      'site',
      'update',
      site,
      '--name',
      'Shop 2',
      '--hostname',
      'WWW.shop.example.com',
      '--hostname',
      'shop.example.com',
      '--profile',
      'extended',
    )
  ).site;
  assert.deepEqual([up.name, up.hostnames, up.collection_profile], ['Shop 2', ['www.shop.example.com', 'shop.example.com'], 'extended']);
  const at = Date.parse(up.collection_profile_effective_at);
  assert.ok(at >= before - 1000 && at <= Date.now(), `effective now by default, got ${up.collection_profile_effective_at}`);

  const later = '2099-01-01T00:00:00.000Z';
  const planned = (await ok('site', 'update', site, '--profile', 'strict', '--profile-effective-at', later)).site;
  assert.deepEqual([planned.collection_profile, planned.collection_profile_effective_at], ['strict', later]);
  assert.equal((await ok('site', 'update', site, '--status', 'SUSPENDED')).site.status, 'SUSPENDED');

  await refused(['site', 'update', site, '--profile', 'extended'], 'CONFLICT', /scheduled for 2099-01-01/);
  await refused(['site', 'update', site, '--profile-effective-at', '2020-01-01T00:00:00Z'], 'INVALID', /in the past/);
  await refused(['site', 'update', site, '--hostname', 'theirs.example.org'], 'SITE_SCOPE_ALREADY_CLAIMED', /another workspace/, 1);
  await refused(['site', 'update', site, '--hostname', 'no way'], 'INVALID_SITE_HOSTNAME', /malformed/, 1);
  await refused(
    ['site', 'update', site, '--profile', 'loose', '--status', 'GONE'],
    'INVALID_ARGUMENTS',
    /--status must be one of ACTIVE, SUSPENDED, got "GONE"; --profile must be one of strict, extended, got "loose"/,
  );
  await refused(['site', 'update', site], 'INVALID_ARGUMENTS', /nothing to change/);
  await refused(['site', 'update', 'site_nope', '--name', 'x'], 'NOT_FOUND', /unknown site "site_nope"/);
  await refused(['site', 'list'], 'INVALID_ARGUMENTS', /missing --workspace/);
  await refused(['site', 'list', '--workspace', 'ws_nope'], 'NOT_FOUND', /unknown workspace/);
  assert.deepEqual(
    (await ok('site', 'list', '--workspace', ws)).sites[0].hostnames,
    ['www.shop.example.com', 'shop.example.com'],
    'refusals changed nothing',
  );
});

test('tenant list and update', async () => {
  await ok('tenant', 'create', '--site', site, '--slug', 'south', '--name', 'South');
  const up = (await ok('tenant', 'update', tenant, '--slug', 'nord', '--name', 'Nord', '--status', 'INACTIVE')).tenant;
  assert.deepEqual([up.tenant_id, up.slug, up.name, up.status], [tenant, 'nord', 'Nord', 'INACTIVE']);
  const { tenants } = await ok('tenant', 'list', '--site', site);
  assert.deepEqual(
    tenants.map((t: { slug: string; status: string }) => [t.slug, t.status]),
    [
      ['nord', 'INACTIVE'],
      ['south', 'ACTIVE'],
    ],
  );
  await refused(['tenant', 'update', tenant, '--slug', 'south'], 'CONFLICT', /already has a tenant with slug "south"/);
  await refused(['tenant', 'update', tenant, '--status', 'ON'], 'INVALID_ARGUMENTS', /--status must be one of ACTIVE, INACTIVE/);
  await refused(['tenant', 'update', 'ten_nope', '--name', 'x'], 'NOT_FOUND', /unknown tenant/);
});

test('goal list, update and delete', async () => {
  const up = (await ok('goal', 'update', goal, '--type', 'EVENT_MATCH', '--pattern', 'form.submit', '--form-id', 'contact')).goal;
  assert.deepEqual([up.type, up.pattern, up.filters], ['EVENT_MATCH', 'form.submit', { form_id: 'contact' }]);
  await refused(['goal', 'update', goal, '--type', 'PAGEVIEW_MATCH', '--pattern', '/x'], 'INVALID', /EVENT_MATCH goals only/);
  await refused(['goal', 'update', goal, '--clear-filters', '--form-id', 'x'], 'INVALID_ARGUMENTS', /contradict/);
  const cleared = (await ok('goal', 'update', goal, '--type', 'PAGEVIEW_MATCH', '--pattern', '/done', '--clear-filters')).goal;
  assert.deepEqual([cleared.type, cleared.filters], ['PAGEVIEW_MATCH', {}]);
  assert.deepEqual(
    (await ok('goal', 'list', '--site', site)).goals.map((g: { goal_id: string }) => g.goal_id),
    [goal],
  );
  assert.deepEqual(await ok('goal', 'delete', goal), { goal_id: goal, deleted: true });
  assert.deepEqual((await ok('goal', 'list', '--site', site)).goals, []);
  await refused(['goal', 'delete', goal], 'NOT_FOUND', /unknown goal/);
});

test('token list never prints a secret or a hash; rotate prints the new secret once', async () => {
  const a = await ok('token', 'create', '--workspace', ws, '--scopes', 'metrics:read,usage:read', '--sites', site);
  const b = await ok('token', 'create', '--workspace', ws, '--scopes', 'usage:read');
  await ok('token', 'revoke', b.token_id);
  const rotated = await ok('token', 'rotate', a.token_id);
  assert.deepEqual(Object.keys(rotated).sort(), ['secret', 'token_id']);
  assert.equal(rotated.token_id, a.token_id);
  assert.ok(looksLikeSecret(rotated.secret) && rotated.secret !== a.secret);

  const secrets = [a.secret, b.secret, rotated.secret];
  const forbidden = [...secrets, ...secrets.map(hashSecret)];
  for (const run of [await cli('token', 'list', '--workspace', ws, '--json'), await cli('token', 'list', '--workspace', ws)]) {
    assert.equal(run.code, 0, run.stderr);
    for (const s of forbidden) assert.ok(!run.stdout.includes(s) && !run.stderr.includes(s), 'a secret or its hash was printed');
    assert.doesNotMatch(run.stdout, /ff_live_|[0-9a-f]{64}/, 'nothing that looks like a secret or a sha256');
  }
  const { tokens } = await ok('token', 'list', '--workspace', ws);
  assert.deepEqual(
    tokens.map((t: { token_id: string }) => t.token_id),
    [a.token_id, b.token_id],
  );
  assert.deepEqual(Object.keys(tokens[0]), [
    'token_id',
    'workspace_id',
    'name',
    'scopes',
    'site_ids',
    'tenant_ids',
    'created_at',
    'rotated_at',
    'revoked_at',
  ]);
  assert.deepEqual(
    [tokens[0].scopes, tokens[0].site_ids, tokens[0].tenant_ids, tokens[0].revoked_at],
    [['metrics:read', 'usage:read'], [site], null, null],
  );
  assert.ok(tokens[0].rotated_at && tokens[1].revoked_at && tokens[1].rotated_at === null);

  const cp = await openSqliteControlPlane(path.join(dataDir, 'control.sqlite'));
  try {
    assert.equal(await cp.catalog.findTokenByHash(hashSecret(a.secret)), null, 'the old secret no longer finds the token');
    assert.equal((await cp.catalog.findTokenByHash(hashSecret(rotated.secret)))?.id, a.token_id);
  } finally {
    await cp.close();
  }
  await refused(['token', 'rotate', b.token_id], 'INVALID', /revoked/);
  await refused(['token', 'rotate', 'tok_nope'], 'NOT_FOUND', /unknown token/);
  await refused(['token', 'list'], 'INVALID_ARGUMENTS', /missing --workspace/);
});

test('token create --name, token rename --name|--clear, and list shows the name', async () => {
  const own = (await ok('workspace', 'create', '--name', 'Names', '--plan', 'pro')).workspace_id;
  const made = await cli('token', 'create', '--workspace', own, '--scopes', 'metrics:read', '--name', ' Data warehouse sync ');
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /^Created token tok_\S+ "Data warehouse sync" \(metrics:read\)\./);
  const named = /Created token (\S+)/.exec(made.stdout)![1];
  const unnamed = (await ok('token', 'create', '--workspace', own, '--scopes', 'usage:read')).token_id;
  const names = async () =>
    (await ok('token', 'list', '--workspace', own)).tokens.map((t: { token_id: string; name: string | null }) => [t.token_id, t.name]);
  assert.deepEqual(await names(), [
    [named, 'Data warehouse sync'],
    [unnamed, null],
  ]);
  const text = await cli('token', 'list', '--workspace', own);
  assert.equal(text.code, 0, text.stderr);
  const lines = text.stdout.trimEnd().split('\n');
  assert.match(lines[0], new RegExp(`^${named}  "Data warehouse sync"  active  metrics:read  `));
  assert.match(lines[1], new RegExp(`^${unnamed}  \\(unnamed\\)  active  usage:read  `));

  assert.deepEqual(await ok('token', 'rename', unnamed, '--name', 'Usage export'), { token_id: unnamed, name: 'Usage export' });
  const renamed = await cli('token', 'rename', named, '--name', 'Nightly');
  assert.equal(renamed.code, 0, renamed.stderr);
  assert.equal(renamed.stdout, `Renamed token ${named} to "Nightly".\n`);
  assert.deepEqual(await names(), [
    [named, 'Nightly'],
    [unnamed, 'Usage export'],
  ]);
  const cleared = await cli('token', 'rename', named, '--clear');
  assert.equal(cleared.code, 0, cleared.stderr);
  assert.equal(cleared.stdout, `Token ${named} is now unnamed.\n`);
  assert.deepEqual(await names(), [
    [named, null],
    [unnamed, 'Usage export'],
  ]);

  await refused(['token', 'rename', named], 'INVALID_ARGUMENTS', /missing --name <name> \(or --clear/);
  await refused(['token', 'rename', named, '--name', 'X', '--clear'], 'INVALID_ARGUMENTS', /not both/);
  await refused(['token', 'rename', named, '--name', '  '], 'INVALID', /token name must be a non-empty string/);
  await refused(['token', 'rename', named, '--name', 'x'.repeat(201)], 'INVALID', /token name must be at most 200 characters/);
  await refused(['token', 'rename', 'tok_nope', '--name', 'X'], 'NOT_FOUND', /unknown token "tok_nope"/);
  await refused(['token', 'create', '--workspace', own, '--scopes', 'metrics:read', '--name', ''], 'INVALID', /token name/);
  assert.equal((await names()).length, 2, 'a refused create makes nothing');
});

test('every missing option is named at once', async () => {
  await refused(
    ['site', 'create'],
    'INVALID_ARGUMENTS',
    /^missing --workspace <id>, --name <name>, --hostname <host> \(repeat it for more hostnames\), --profile strict\|extended$/,
  );
  await refused(
    ['goal', 'create', '--site', site],
    'INVALID_ARGUMENTS',
    /^missing --name <name>, --type PAGEVIEW_MATCH\|EVENT_MATCH, --intent <intent>, --pattern <pattern>$/,
  );
  await refused(['token', 'create'], 'INVALID_ARGUMENTS', /^missing --workspace <id>, --scopes metrics:read,usage:read$/);
  await refused(['workspace', 'create', '--plan', 'gold'], 'INVALID_ARGUMENTS', /^missing --name <name>; --plan must be one of/);
  await refused(['tenant', 'create'], 'INVALID_ARGUMENTS', /^missing --site <id>, --slug <slug>, --name <name>$/);
});

test('lists read as text without --json', async () => {
  const r = await cli('site', 'list', '--workspace', ws);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    new RegExp(`^${site}  SUSPENDED  strict from 2099-01-01T00:00:00.000Z  UTC  "Shop 2"  www.shop.example.com, shop.example.com\\n$`),
  );
  const empty = await cli('goal', 'list', '--site', site);
  assert.equal(empty.stdout, 'No goals.\n');
});

test('site create and update --timezone: an IANA name, stored in one spelling, shown by list; anything else refused', async () => {
  const own = (await ok('workspace', 'create', '--name', 'Zones', '--plan', 'pro')).workspace_id;
  const made = await cli(
    'site',
    'create',
    '--workspace',
    own,
    '--name',
    'K',
    '--hostname',
    'k.example.net',
    '--profile',
    'strict',
    '--timezone',
    'Asia/Kathmandu',
  );
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /time zone Asia\/Kathmandu/);
  const id = /Created site (\S+)/.exec(made.stdout)![1];
  const plain = (await ok('site', 'create', '--workspace', own, '--name', 'P', '--hostname', 'p.example.net', '--profile', 'strict'))
    .site_id;
  const zones = async () =>
    Object.fromEntries(
      (await ok('site', 'list', '--workspace', own)).sites.map((s: { site_id: string; timezone: string }) => [s.site_id, s.timezone]),
    );
  assert.deepEqual(await zones(), { [id]: 'Asia/Kathmandu', [plain]: 'UTC' }, 'UTC unless told');

  // the case is fixed, and UTC's other names are UTC
  assert.equal((await ok('site', 'update', plain, '--timezone', 'america/new_york')).site.timezone, 'America/New_York');
  assert.equal((await ok('site', 'update', id, '--timezone', 'Etc/UTC')).site.timezone, 'UTC');
  const text = await cli('site', 'list', '--workspace', own);
  assert.match(text.stdout, new RegExp(`^${plain}  ACTIVE  strict  America/New_York  "P"`, 'm'));

  for (const bad of ['+05:45', 'Mars/Base', 'UTC+1', 'Europe/Berlin '])
    await refused(
      ['site', 'update', plain, '--timezone', bad],
      'INVALID',
      /is not a time zone this server knows: send an IANA time zone name such as Europe\/Berlin/,
    );
  await refused(
    ['site', 'create', '--workspace', own, '--name', 'X', '--hostname', 'x.example.net', '--profile', 'strict', '--timezone', '+05:45'],
    'INVALID',
    /timezone "\+05:45" is not a time zone/,
  );
  assert.deepEqual(await zones(), { [id]: 'UTC', [plain]: 'America/New_York' }, 'nothing refused was kept, no site was made');
});
