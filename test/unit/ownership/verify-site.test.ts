// The verification use-case over an in-memory resolver and a real catalog: each outcome with its
// code and details, the proof serving every site of the workspace, and the end-to-end path through
// node:dns against a DNS server of the test's own (chunks joined, several records, a wrong value,
// a resolver that never answers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSqliteControlPlane } from '../../../src/control/sqlite/open.js';
import { FakeClock } from '../../../src/domain/clock.js';
import { CatalogError } from '../../../src/ports/catalog-store.js';
import { MemoryDnsTxtResolver } from '../../../src/dns/memory-dns-txt-resolver.js';
import { NodeDnsTxtResolver } from '../../../src/dns/node-dns-txt-resolver.js';
import { verifySite } from '../../../src/services/ownership/verify-site.js';
import { startDnsServer } from '../../helpers/dns-server.js';

const T0 = '2025-03-01T10:00:00.000Z';

async function setup() {
  const clock = new FakeClock(Date.parse(T0));
  const cp = await openSqliteControlPlane(':memory:', { clock });
  const c = cp.catalog;
  const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
  const site = (hostnames: string[], extra: Record<string, unknown> = {}) =>
    c.createSite({ workspaceId: ws.id, name: 'S', hostnames, collectionProfile: 'extended', ...extra });
  const record = async (siteId: string) => (await c.getSiteOwnership(siteId))!.domains[0];
  return { c, cp, clock, ws, site, record };
}

function failure(code: CatalogError['code'], details?: Record<string, unknown>) {
  return (err: unknown) => {
    assert.ok(err instanceof CatalogError, String(err));
    assert.equal(err.code, code, err.message);
    if (details) assert.deepEqual(err.details, details);
    return true;
  };
}

test('verify looks the record up and proves the domain for every site of the workspace', async () => {
  const { c, cp, clock, site, record } = await setup();
  try {
    const scoped = await site(['example.com'], { domainScope: 'example.com' });
    const patterned = await site(['other.example.net'], { hostnamePatterns: ['*.shop.example.com'] });
    const { recordName, recordValue } = await record(scoped.id);
    const dns = new MemoryDnsTxtResolver();
    const deps = { catalog: c, dns };

    await assert.rejects(
      verifySite(deps, scoped.id),
      failure('SITE_DNS_VERIFICATION_FAILED', { record_name: recordName, expected_value: recordValue, found: [], retryable: false }),
    );
    dns.add(recordName, 'footfall-verification=wrong').add(recordName, 'v=spf1 -all');
    await assert.rejects(
      verifySite(deps, scoped.id),
      failure('SITE_DNS_VERIFICATION_FAILED', {
        record_name: recordName,
        expected_value: recordValue,
        found: ['footfall-verification=wrong', 'v=spf1 -all'],
        retryable: false,
      }),
    );
    dns.clear(recordName).unanswered(recordName);
    await assert.rejects(verifySite(deps, scoped.id), (err: unknown) => {
      failure('SITE_DNS_VERIFICATION_FAILED', { record_name: recordName, expected_value: recordValue, found: [], retryable: true })(err);
      assert.match((err as Error).message, /no DNS resolver answered.*try again/);
      return true;
    });
    assert.equal(await c.findSiteByHostname('a.shop.example.com'), null, 'nothing proven yet');

    // A record split in chunks counts once joined, beside other records of the name.
    dns.clear(recordName).add(recordName, 'v=spf1 -all').add(recordName, recordValue.slice(0, 10), recordValue.slice(10));
    clock.advance(5_000);
    const done = await verifySite(deps, scoped.id);
    assert.deepEqual(done, { siteId: scoped.id, domain: 'example.com', verified: true, verifiedAt: '2025-03-01T10:00:05.000Z' });
    assert.equal((await c.findSiteByHostname('a.shop.example.com'))?.id, patterned.id, 'the proof serves the other site');
    assert.equal((await c.findSiteByHostname('blog.example.com'))?.id, scoped.id);

    // Verified stays verified: no lookup, the first time kept.
    const asked = dns.asked.length;
    dns.clear(recordName);
    clock.advance(5_000);
    assert.deepEqual(await verifySite(deps, scoped.id), done);
    assert.equal(dns.asked.length, asked);
  } finally {
    await cp.close();
  }
});

test('verify refuses a site without a scope, an unknown site, and a domain another workspace proved', async () => {
  const { c, cp, site, record } = await setup();
  try {
    const dns = new MemoryDnsTxtResolver();
    const plain = await site(['plain.example.com']);
    await assert.rejects(
      verifySite({ catalog: c, dns }, plain.id),
      failure('SITE_DNS_VERIFICATION_UNAVAILABLE', { site_id: plain.id, reason: 'no_domain_scope' }),
    );
    await assert.rejects(verifySite({ catalog: c, dns }, 'site_missing'), failure('NOT_FOUND'));

    const mine = await site(['x.example.org'], { domainScope: 'example.org' });
    const other = await c.createWorkspace({ name: 'B', plan: 'pro' });
    const theirs = await c.createSite({
      workspaceId: other.id,
      name: 'T',
      hostnames: ['t.example.net'],
      collectionProfile: 'strict',
      domainScope: 'example.org',
    });
    const both = [await record(mine.id), await record(theirs.id)];
    // The domain's owner publishes both codes; the first to verify wins, the other is told it is taken.
    for (const r of both) dns.add(r.recordName, r.recordValue);
    await verifySite({ catalog: c, dns }, theirs.id);
    const asked = dns.asked.length;
    await assert.rejects(verifySite({ catalog: c, dns }, mine.id), (err: unknown) => {
      failure('SITE_SCOPE_ALREADY_CLAIMED', { domain: 'example.org' })(err);
      assert.ok(!(err as Error).message.includes(other.id) && !(err as Error).message.includes(theirs.id));
      return true;
    });
    assert.equal(dns.asked.length, asked, 'no lookup for a domain that is taken');
  } finally {
    await cp.close();
  }
});

test('through node:dns: chunks and several records, a wrong value, and a resolver that never answers (retryable, bounded)', async () => {
  const { c, cp, site, record } = await setup();
  const server = await startDnsServer();
  try {
    const dns = new NodeDnsTxtResolver({ servers: [server.address] });
    const s = await site(['shop.example.co.uk'], { domainScope: 'example.co.uk' });
    const { recordName, recordValue } = await record(s.id);
    assert.equal(recordName, '_footfall.example.co.uk');

    server.set(recordName, [['footfall-verification=', 'nope']]);
    await assert.rejects(
      verifySite({ catalog: c, dns }, s.id),
      failure('SITE_DNS_VERIFICATION_FAILED', {
        record_name: recordName,
        expected_value: recordValue,
        found: ['footfall-verification=nope'],
        retryable: false,
      }),
    );
    server.set(recordName, 'nxdomain');
    await assert.rejects(
      verifySite({ catalog: c, dns }, s.id),
      failure('SITE_DNS_VERIFICATION_FAILED', { record_name: recordName, expected_value: recordValue, found: [], retryable: false }),
    );

    // no resolver answers: worth retrying (how soon a lookup gives up: test/dns/node-dns-txt-resolver.test.ts)
    server.set(recordName, 'drop');
    await assert.rejects(
      verifySite({ catalog: c, dns }, s.id),
      failure('SITE_DNS_VERIFICATION_FAILED', { record_name: recordName, expected_value: recordValue, found: [], retryable: true }),
    );

    server.set(recordName, [['google-site-verification=x'], [recordValue.slice(0, 1), recordValue.slice(1, 23), recordValue.slice(23)]]);
    assert.equal((await verifySite({ catalog: c, dns }, s.id)).domain, 'example.co.uk');
    assert.equal((await c.findSiteByHostname('deep.shop.example.co.uk'))?.id, s.id);
  } finally {
    await server.close();
    await cp.close();
  }
});
