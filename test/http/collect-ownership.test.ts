// POST /api/event picks the site by the event's host through the catalog: an exact hostname first,
// then the longest proven hostname pattern, then the proven domain scope; nothing collects for a
// scope or pattern before its domain is proven, and a proof takes over the exact hostnames another
// workspace registered inside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectHarness, pageview } from './helpers/collect.js';
import { CATALOG_TTL_MS } from '../../src/ingest/collect/collector.js';
import { MemoryDnsTxtResolver } from '../../src/dns/memory-dns-txt-resolver.js';
import { verifySite } from '../../src/services/ownership/verify-site.js';

test('events go to the exact hostname, the longest proven pattern, then the proven scope', async () => {
  const h = await collectHarness({ now: '2025-06-15T10:00:00.000Z' });
  try {
    const c = h.catalog;
    const ws = (await c.getSite(h.siteId))!.workspaceId;
    const create = (workspaceId: string, hostnames: string[], extra: Record<string, unknown> = {}) =>
      c.createSite({ workspaceId, name: hostnames[0], hostnames, collectionProfile: 'extended', ...extra }).then((s) => s.id);
    const scoped = await create(ws, ['www.example.com'], { domainScope: 'example.com' });
    const shop = await create(ws, ['shop-exact.example.net'], { hostnamePatterns: ['*.shop.example.com'] });
    const eu = await create(ws, ['eu-exact.example.net'], { hostnamePatterns: ['*.eu.shop.example.com'] });
    const exact = await create(ws, ['special.eu.shop.example.com']);
    const other = await c.createWorkspace({ name: 'Other', plan: 'pro' });
    const rival = await create(other.id, ['blog.example.com', 'rival.example.org']);

    const send = async (host: string, page: string) =>
      assert.equal((await h.post(pageview(`https://${host}/${page}`, { d: host }))).statusCode, 202, host);
    const pages = async (siteId: string) => {
      const body = await h.read('/v1/metrics/breakdown', { site_id: siteId, dimension: 'page', traffic: 'all' });
      return (body.current.rows as { key: string }[]).map((r) => r.key).sort();
    };

    // Before the proof only exact hostnames collect.
    for (const host of ['a.shop.example.com', 'x.eu.shop.example.com', 'deep.example.com']) await send(host, 'before-unproven');
    await send('www.example.com', 'before-exact');
    await send('special.eu.shop.example.com', 'before-exact');
    await send('blog.example.com', 'before-rival');

    const dns = new MemoryDnsTxtResolver();
    const proof = (await c.getSiteOwnership(scoped))!.domains[0];
    dns.add(proof.recordName, proof.recordValue);
    await verifySite({ catalog: c, dns }, scoped);
    h.clock.advance(CATALOG_TTL_MS); // what the collector remembers of a host expires

    await send('a.shop.example.com', 'shop-1');
    await send('A.B.Shop.Example.com', 'shop-2');
    await send('eu.shop.example.com', 'shop-3');
    await send('x.eu.shop.example.com', 'eu-1');
    await send('special.eu.shop.example.com', 'exact-1');
    await send('www.special.eu.shop.example.com', 'exact-2');
    await send('deep.example.com', 'scope-1');
    await send('example.com', 'scope-2');
    await send('blog.example.com', 'scope-taken-over');
    await send('rival.example.org', 'rival-kept');
    await send('shop.example.com.evil', 'nobody');
    await h.flush();

    assert.deepEqual(await pages(scoped), ['/before-exact', '/scope-1', '/scope-2', '/scope-taken-over']);
    assert.deepEqual(await pages(shop), ['/shop-1', '/shop-2', '/shop-3']);
    assert.deepEqual(await pages(eu), ['/eu-1']);
    assert.deepEqual(await pages(exact), ['/before-exact', '/exact-1', '/exact-2']);

    // The rival keeps what it collected before the proof, and its other hostname.
    const rivalToken = await h.token(other.id);
    const r = await h.get(`/v1/metrics/breakdown?site_id=${rival}&dimension=page&traffic=all`, { token: rivalToken.secret });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual((r.json().current.rows as { key: string }[]).map((x) => x.key).sort(), ['/before-rival', '/rival-kept']);
    assert.deepEqual(
      (await c.getSiteOwnership(rival))!.releasedHostnames.map((x) => x.hostname),
      ['blog.example.com'],
    );
  } finally {
    await h.close();
  }
});
