// Domain scopes, hostname patterns and their DNS proof from the command line, as a user runs them:
// real processes on a real data dir, a DNS server of the test's own on 127.0.0.1 (--dns-servers),
// every registration code with its details and exit 1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliRunner } from './fixtures/cli-run.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';

let dataDir: string;
let dns: TestDnsServer;
const { cli, ok, refused } = cliRunner(() => dataDir);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let owner: string;
let squatter: string;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-ownership-'));
  dns = await startDnsServer();
  owner = (await ok('workspace', 'create', '--name', 'Owner', '--plan', 'pro')).workspace_id;
  squatter = (await ok('workspace', 'create', '--name', 'Squatter', '--plan', 'pro')).workspace_id;
});

after(async () => {
  await dns.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const verify = (site: string) => ['site', 'verify', site, '--dns-servers', dns.address];

test('a scope prints its TXT record; verify looks it up now; the proof takes the hostnames others registered inside it', async () => {
  const early = (
    await ok(
      'site',
      'create',
      '--workspace',
      squatter,
      '--name',
      'Early',
      '--hostname',
      'shop.example.com',
      '--hostname',
      'b.example.org',
      '--hostname',
      'www.shop.example.com',
      '--profile',
      'strict',
    )
  ).site_id;
  const created = await ok(
    'site',
    'create',
    '--workspace',
    owner,
    '--name',
    'Main',
    '--hostname',
    'app.example.net',
    '--domain-scope',
    'Example.com',
    '--hostname-pattern',
    '*.blog.example.com',
    '--profile',
    'extended',
  );
  assert.deepEqual(Object.keys(created), ['site_id', 'verification']);
  const site = created.site_id;
  const { name, type, value } = created.verification;
  assert.deepEqual([name, type], ['_footfall.example.com', 'TXT']);
  assert.match(value, /^footfall-verification=[0-9A-Za-z]{32}$/);

  const failed = (found: string[], retryable: boolean) => ({ record_name: name, expected_value: value, found, retryable });
  let e = await refused(verify(site), 'SITE_DNS_VERIFICATION_FAILED', /no TXT record _footfall\.example\.com/, 1);
  assert.deepEqual(e.details, failed([], false));
  dns.set(name, [['footfall-verification=', 'stale']]);
  e = await refused(verify(site), 'SITE_DNS_VERIFICATION_FAILED', /found: "footfall-verification=stale"/, 1);
  assert.deepEqual(e.details, failed(['footfall-verification=stale'], false));
  // no resolver answers: worth retrying (how soon a lookup gives up: test/dns/node-dns-txt-resolver.test.ts)
  dns.set(name, 'drop');
  e = await refused(verify(site), 'SITE_DNS_VERIFICATION_FAILED', /no DNS resolver answered/, 1);
  assert.deepEqual(e.details, failed([], true));

  dns.set(name, [['v=spf1 -all'], [value.slice(0, 16), value.slice(16)]]);
  const done = await ok(...verify(site));
  assert.deepEqual(Object.keys(done), ['site_id', 'domain', 'verified', 'verified_at']);
  assert.deepEqual([done.site_id, done.domain, done.verified], [site, 'example.com', true]);
  assert.match(done.verified_at, ISO);
  assert.deepEqual(await ok(...verify(site)), done, 'verified stays verified');

  const [mine] = (await ok('site', 'list', '--workspace', owner)).sites;
  assert.deepEqual([mine.domain_scope, mine.hostname_patterns, mine.released_hostnames], ['example.com', ['*.blog.example.com'], []]);
  assert.deepEqual(mine.domains, [
    {
      domain: 'example.com',
      verified: true,
      verified_at: done.verified_at,
      claimed_by_another_workspace: false,
      verification: { name, type: 'TXT', value },
    },
  ]);

  const [theirs] = (await ok('site', 'list', '--workspace', squatter)).sites;
  assert.equal(theirs.site_id, early);
  assert.deepEqual(theirs.hostnames, ['b.example.org']);
  assert.deepEqual(theirs.released_hostnames, [
    { hostname: 'shop.example.com', released_at: done.verified_at },
    { hostname: 'www.shop.example.com', released_at: done.verified_at },
  ]);
  const text = await cli('site', 'list', '--workspace', squatter);
  assert.match(text.stdout, /released shop\.example\.com at .* \(another workspace verified its domain\)/);

  for (const args of [
    ['site', 'create', '--workspace', squatter, '--name', 'Again', '--hostname', 'shop.example.com', '--profile', 'strict'],
    [
      'site',
      'create',
      '--workspace',
      squatter,
      '--name',
      'Scope',
      '--hostname',
      'c.example.org',
      '--domain-scope',
      'example.com',
      '--profile',
      'strict',
    ],
    ['site', 'update', early, '--hostname', 'b.example.org', '--hostname', 'new.example.com'],
  ]) {
    e = await refused(args, 'SITE_SCOPE_ALREADY_CLAIMED', /example\.com, which another workspace has verified/, 1);
    assert.deepEqual(e.details, { domain: 'example.com' });
    assert.ok(!JSON.stringify(e).includes(owner) && !JSON.stringify(e).includes(site), 'the owner is never named');
  }
});

test('every registration code comes with its details and exit 1', async () => {
  const create = (...more: string[]) => [
    'site',
    'create',
    '--workspace',
    owner,
    '--name',
    'X',
    '--hostname',
    'x.example.io',
    '--profile',
    'strict',
    ...more,
  ];
  const plain = (await ok(...create())).site_id;
  const cases: Array<[string[], string, RegExp, Record<string, unknown>]> = [
    [
      create('--domain-scope', 'example.io', '--hostname-pattern', 'shop.example.io'),
      'INVALID_SITE_HOSTNAME',
      /hostname pattern "shop\.example\.io" is malformed/,
      { field: 'hostname_patterns', value: 'shop.example.io' },
    ],
    [create('--domain-scope', 'exa mple.io'), 'INVALID_SITE_HOSTNAME', /malformed/, { field: 'domain_scope', value: 'exa mple.io' }],
    [create('--domain-scope', 'co.uk'), 'SITE_SCOPE_NOT_ALLOWED', /public suffix/, { field: 'domain_scope', value: 'co.uk' }],
    [
      create('--domain-scope', 'shop.example.io'),
      'SITE_SCOPE_NOT_ALLOWED',
      /subdomain.*"example\.io"/,
      { field: 'domain_scope', value: 'shop.example.io', registrable_domain: 'example.io' },
    ],
    [create('--domain-scope', '192.0.2.1'), 'SITE_SCOPE_NOT_ALLOWED', /IP address/, { field: 'domain_scope', value: '192.0.2.1' }],
    [
      create('--hostname-pattern', '*.eu.example.io'),
      'HOSTNAME_PATTERN_OUT_OF_SCOPE',
      /ask for the domain scope "example\.io"/,
      { field: 'hostname_patterns', value: '*.eu.example.io', required_domain_scope: 'example.io' },
    ],
    [
      create('--domain-scope', 'shop.test'),
      'SITE_DNS_VERIFICATION_UNAVAILABLE',
      /special-use/,
      { field: 'domain_scope', value: 'shop.test', reason: 'special_use_name' },
    ],
    [verify(plain), 'SITE_DNS_VERIFICATION_UNAVAILABLE', /no domain scope/, { site_id: plain, reason: 'no_domain_scope' }],
  ];
  await Promise.all(
    cases.map(async ([args, code, message, details]) => {
      const e = await refused(args, code, message, 1);
      assert.deepEqual(e.details, details, args.join(' '));
    }),
  );
  assert.equal(
    (await ok('site', 'list', '--workspace', owner)).sites.filter((s: { name: string }) => s.name === 'X').length,
    1,
    'refusals stored nothing',
  );
});

test('site update adds and removes the scope and the patterns under the same rules', async () => {
  const site = (await ok('site', 'create', '--workspace', owner, '--name', 'U', '--hostname', 'u.example.dev', '--profile', 'strict'))
    .site_id;
  let s = (
    await ok(
      'site',
      'update',
      site,
      '--domain-scope',
      'example.dev',
      '--hostname-pattern',
      '*.eu.example.dev',
      '--hostname-pattern',
      '*.us.example.dev',
    )
  ).site;
  assert.deepEqual(
    [s.domain_scope, s.hostname_patterns, s.domains.map((d: { verified: boolean }) => d.verified)],
    ['example.dev', ['*.eu.example.dev', '*.us.example.dev'], [false]],
  );
  s = (await ok('site', 'update', site, '--clear-hostname-patterns')).site;
  assert.deepEqual(s.hostname_patterns, []);
  s = (await ok('site', 'update', site, '--clear-domain-scope')).site;
  assert.deepEqual([s.domain_scope, s.domains], [null, []]);
  await refused(['site', 'update', site, '--domain-scope', 'co.uk'], 'SITE_SCOPE_NOT_ALLOWED', /public suffix/, 1);
  await refused(['site', 'update', site, '--domain-scope', 'a.dev', '--clear-domain-scope'], 'INVALID_ARGUMENTS', /not both/);
});
