// Domain scopes, hostname patterns and their DNS proof through the management API, as the dashboard
// calls it: a scope answers its TXT record, verify asks a DNS server of the test's own on 127.0.0.1
// (FOOTFALL_DNS_SERVERS) now, and every site registration code comes with its status and details.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { MANAGE_ERROR_CATALOG } from '../../src/domain/manage-errors.js';
import { SITE_REGISTRATION_STATUS } from '../../src/services/ownership/registration-codes.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { harness, type Harness } from './helpers/harness.js';
import { checked, person, type Person } from './helpers/app-api.js';

let dns: TestDnsServer;
let h: Harness;

before(async () => {
  dns = await startDnsServer();
  h = await harness({ config: { dnsServers: dns.address } });
});

after(async () => {
  await h.close();
  await dns.close();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function refusal(
  r: { statusCode: number; body: string; json(): any },
  status: number,
  code: string,
  details: Record<string, unknown>,
  what: string,
) {
  assert.equal(r.statusCode, status, `${what}: ${r.body.slice(0, 300)}`);
  assert.equal(r.json().error.code, code, what);
  assert.deepEqual(r.json().error.details, details, what);
}

async function admin(plan: 'pro' | 'enterprise' = 'pro'): Promise<{ ws: string; p: Person }> {
  const ws = (await h.workspace(plan)).id;
  return { ws, p: await person(h, { workspaceId: ws, role: 'admin' }) };
}

const createSite = (p: Person, ws: string, body: Record<string, unknown>) =>
  checked(h, p, 'POST', `/app/api/workspaces/${ws}/sites`, { body: { name: 'Site', collection_profile: 'strict', ...body } });
const verify = (p: Person, site: string) => checked(h, p, 'POST', `/app/api/sites/${site}/verify`);
const sitesOf = async (p: Person, ws: string) => (await checked(h, p, 'GET', `/app/api/workspaces/${ws}/sites`)).json().sites;

test('the management API answers each registration code with the status of the site registration codes', () => {
  for (const [code, status] of Object.entries(SITE_REGISTRATION_STATUS))
    assert.equal(MANAGE_ERROR_CATALOG[code as keyof typeof MANAGE_ERROR_CATALOG]?.status, status, code);
});

test('a scope answers its TXT record; verify asks DNS now; the proof releases the hostnames others registered inside it', async () => {
  const owner = await admin();
  const squatter = await admin();
  const early = (await createSite(squatter.p, squatter.ws, { hostnames: ['shop.example.com', 'b.example.org'] })).json().site_id;

  const created = await createSite(owner.p, owner.ws, {
    hostnames: ['app.example.net'],
    domain_scope: 'Example.com',
    hostname_patterns: ['*.blog.example.com'],
  });
  assert.equal(created.statusCode, 201, created.body);
  const site = created.json();
  const { name, type, value } = site.verification;
  assert.deepEqual([name, type], ['_footfall.example.com', 'TXT']);
  assert.match(value, /^footfall-verification=[0-9A-Za-z]{32}$/);
  assert.deepEqual([site.domain_scope, site.hostname_patterns], ['example.com', ['*.blog.example.com']]);
  assert.deepEqual(site.domains, [
    { domain: 'example.com', verified: false, verified_at: null, claimed_by_another_workspace: false, verification: { name, type, value } },
  ]);

  const failed = (found: string[], retryable: boolean) => ({ record_name: name, expected_value: value, found, retryable });
  let r = await verify(owner.p, site.site_id);
  refusal(r, 422, 'SITE_DNS_VERIFICATION_FAILED', failed([], false), 'no record');
  assert.match(r.json().error.message, /no TXT record _footfall\.example\.com/);
  dns.set(name, [['footfall-verification=', 'stale']]);
  r = await verify(owner.p, site.site_id);
  refusal(r, 422, 'SITE_DNS_VERIFICATION_FAILED', failed(['footfall-verification=stale'], false), 'a stale record');
  // No resolver answers: worth retrying (how soon a lookup gives up: test/dns/node-dns-txt-resolver.test.ts).
  dns.set(name, 'drop');
  r = await verify(owner.p, site.site_id);
  refusal(r, 422, 'SITE_DNS_VERIFICATION_FAILED', failed([], true), 'no answer');
  assert.match(r.json().error.message, /no DNS resolver answered .*try again/);
  assert.equal((await sitesOf(owner.p, owner.ws))[0].domains[0].verified, false, 'a refusal proves nothing');

  dns.set(name, [['v=spf1 -all'], [value.slice(0, 16), value.slice(16)]]);
  const done = await verify(owner.p, site.site_id);
  assert.equal(done.statusCode, 200, done.body);
  assert.deepEqual(Object.keys(done.json()), ['site_id', 'domain', 'verified', 'verified_at']);
  assert.deepEqual([done.json().site_id, done.json().domain, done.json().verified], [site.site_id, 'example.com', true]);
  assert.match(done.json().verified_at, ISO);
  const asked = dns.queries.length;
  assert.deepEqual((await verify(owner.p, site.site_id)).json(), done.json(), 'verified stays verified');
  assert.equal(dns.queries.length, asked, 'a proven domain is not asked again');

  const [mine] = await sitesOf(owner.p, owner.ws);
  assert.deepEqual([mine.domain_scope, mine.hostname_patterns, mine.released_hostnames], ['example.com', ['*.blog.example.com'], []]);
  assert.deepEqual(mine.domains, [
    {
      domain: 'example.com',
      verified: true,
      verified_at: done.json().verified_at,
      claimed_by_another_workspace: false,
      verification: { name, type, value },
    },
  ]);
  const [theirs] = await sitesOf(squatter.p, squatter.ws);
  assert.equal(theirs.site_id, early);
  assert.deepEqual(theirs.hostnames, ['b.example.org']);
  assert.deepEqual(theirs.released_hostnames, [{ hostname: 'shop.example.com', released_at: done.json().verified_at }]);

  // Nothing inside a domain another workspace proved can be registered, and the refusal never names it.
  for (const [what, call] of [
    ['an exact hostname', () => createSite(squatter.p, squatter.ws, { hostnames: ['again.example.com'] })],
    ['a scope', () => createSite(squatter.p, squatter.ws, { hostnames: ['c.example.org'], domain_scope: 'example.com' })],
    [
      'an update',
      () => checked(h, squatter.p, 'PATCH', `/app/api/sites/${early}`, { body: { hostnames: ['b.example.org', 'new.example.com'] } }),
    ],
  ] as const) {
    r = await call();
    refusal(r, 409, 'SITE_SCOPE_ALREADY_CLAIMED', { domain: 'example.com' }, what);
    assert.ok(!r.body.includes(owner.ws) && !r.body.includes(site.site_id), `${what}: the owner is never named`);
  }
});

test('every registration code through the API with its status and details; a refusal makes nothing', async () => {
  const { ws, p } = await admin('enterprise');
  const create = (more: Record<string, unknown>) => createSite(p, ws, { name: 'X', hostnames: ['x.example.io'], ...more });
  const plain = (await create({})).json().site_id;
  const cases: Array<[() => ReturnType<typeof create>, number, string, Record<string, unknown>]> = [
    [
      () => create({ domain_scope: 'example.io', hostname_patterns: ['shop.example.io'] }),
      422,
      'INVALID_SITE_HOSTNAME',
      { field: 'hostname_patterns', value: 'shop.example.io' },
    ],
    [() => create({ domain_scope: 'exa mple.io' }), 422, 'INVALID_SITE_HOSTNAME', { field: 'domain_scope', value: 'exa mple.io' }],
    [() => create({ domain_scope: 'co.uk' }), 422, 'SITE_SCOPE_NOT_ALLOWED', { field: 'domain_scope', value: 'co.uk' }],
    [
      () => create({ domain_scope: 'shop.example.io' }),
      422,
      'SITE_SCOPE_NOT_ALLOWED',
      { field: 'domain_scope', value: 'shop.example.io', registrable_domain: 'example.io' },
    ],
    [
      () => create({ hostname_patterns: ['*.eu.example.io'] }),
      422,
      'HOSTNAME_PATTERN_OUT_OF_SCOPE',
      { field: 'hostname_patterns', value: '*.eu.example.io', required_domain_scope: 'example.io' },
    ],
    [
      () => create({ domain_scope: 'shop.test' }),
      422,
      'SITE_DNS_VERIFICATION_UNAVAILABLE',
      { field: 'domain_scope', value: 'shop.test', reason: 'special_use_name' },
    ],
    [() => verify(p, plain), 422, 'SITE_DNS_VERIFICATION_UNAVAILABLE', { site_id: plain, reason: 'no_domain_scope' }],
    [
      () => checked(h, p, 'PATCH', `/app/api/sites/${plain}`, { body: { domain_scope: 'co.uk' } }),
      422,
      'SITE_SCOPE_NOT_ALLOWED',
      { field: 'domain_scope', value: 'co.uk' },
    ],
  ];
  for (const [call, status, code, details] of cases) refusal(await call(), status, code, details, `${code} ${JSON.stringify(details)}`);
  assert.equal((await sitesOf(p, ws)).length, 1, 'refusals stored nothing');

  // One scope per workspace and site: a second site asking for it is refused with the field.
  const scoped = (await create({ name: 'Scoped', hostnames: ['y.example.io'], domain_scope: 'example.io' })).json();
  assert.deepEqual(scoped.verification.name, '_footfall.example.io');
  refusal(
    await create({ name: 'Twice', hostnames: ['z.example.io'], domain_scope: 'example.io' }),
    409,
    'SITE_SCOPE_ALREADY_CLAIMED',
    { field: 'domain_scope', value: 'example.io' },
    'the same scope twice',
  );
  assert.equal((await sitesOf(p, ws)).length, 2);
  // No verification without a scope to verify.
  assert.equal('verification' in (await create({ name: 'Plain', hostnames: ['w.example.io'] })).json(), false);
});

test('PATCH adds and removes the scope and the patterns under the same rules', async () => {
  const { ws, p } = await admin();
  const site = (await createSite(p, ws, { hostnames: ['u.example.dev'] })).json().site_id;
  const patch = (body: Record<string, unknown>) => checked(h, p, 'PATCH', `/app/api/sites/${site}`, { body });
  let s = (await patch({ domain_scope: 'example.dev', hostname_patterns: ['*.eu.example.dev', '*.us.example.dev'] })).json();
  assert.deepEqual(
    [s.domain_scope, s.hostname_patterns, s.domains.map((d: { verified: boolean }) => d.verified)],
    ['example.dev', ['*.eu.example.dev', '*.us.example.dev'], [false]],
  );
  s = (await patch({ hostname_patterns: [] })).json();
  assert.deepEqual(s.hostname_patterns, []);
  s = (await patch({ domain_scope: null })).json();
  assert.deepEqual([s.domain_scope, s.domains], [null, []]);
  s = (await patch({ name: 'Renamed' })).json();
  assert.deepEqual([s.name, s.hostnames, s.domain_scope], ['Renamed', ['u.example.dev'], null]);
});
