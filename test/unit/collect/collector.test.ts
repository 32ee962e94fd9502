// The collector renews its LineProcessor every CATALOG_TTL_MS to see site changes; what the processor
// learned of agents and visitors (its AgentMemo) carries over, and the salt, which never changes, is
// asked of the catalog once.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { FakeClock } from '../../../src/domain/clock.js';
import { ControlPlaneUnavailableError } from '../../../src/domain/errors.js';
import type { Site } from '../../../src/ports/catalog-store.js';
import { decodeEventRow } from '../../../src/ports/event-store.js';
import type { CollectOutcome } from '../../../src/ports/event-collector.js';
import { CATALOG_TTL_MS, Collector } from '../../../src/ingest/collect/collector.js';
import type { Loader } from '../../../src/ingest/collect/loader.js';
import { SitesProgress } from '../../../src/ingest/collect/sites-progress.js';
import type { Spool } from '../../../src/ingest/collect/spool.js';
import { dailyVisitorKey } from '../../../src/ingest/parse/visitor-key.js';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const START = Date.parse('2025-03-10T12:00:00Z');

/** A collector over a catalog whose site and secret the test changes; spooled event rows are kept. */
async function collectorOf(): Promise<{
  collector: Collector;
  clock: FakeClock;
  catalog: { site: Site; secret: string; secretFails: boolean; lookup: Error | null };
  spooled: { kind: string; record: string }[];
  /** how many times the collector asked the catalog for the salt */
  asks: { count: number };
}> {
  const clock = new FakeClock(START);
  const catalog = {
    site: {
      id: 'site_a',
      workspaceId: 'ws_a',
      name: 'A',
      hostnames: ['memo.example'],
      status: 'ACTIVE',
      collectionProfile: 'extended',
      profileEffectiveAt: null,
      createdAt: '2025-01-01T00:00:00Z',
    } as Site,
    secret: 's1',
    secretFails: false,
    /** thrown by the site and tenant lookups when set */
    lookup: null as Error | null,
  };
  const asks = { count: 0 };
  const spooled: { kind: string; record: string }[] = [];
  const spool = {
    append: async (kind: string, record: string) => spooled.push({ kind, record }),
    barrier: async () => {},
  } as unknown as Spool;
  const loader = { accepted: () => {}, loadedUpTo: 0 } as unknown as Loader;
  const collector = new Collector({
    catalog: {
      findSiteByHostname: async (host) => {
        if (catalog.lookup) throw catalog.lookup;
        return catalog.site.hostnames.includes(host) ? { ...catalog.site } : null;
      },
      listTenants: async () => {
        if (catalog.lookup) throw catalog.lookup;
        return [];
      },
      getOrCreateSecret: async () => {
        asks.count++;
        if (catalog.secretFails) throw new Error('catalog down');
        return catalog.secret;
      },
    },
    clock,
    spool,
    loader,
    geo: () => null,
    progress: await SitesProgress.open(null),
  });
  return { collector, clock, catalog, spooled, asks };
}

const pageview = (ip: string) => ({
  body: JSON.stringify({ n: 'pageview', u: 'https://memo.example/a', d: 'memo.example', r: null }),
  clientIp: ip,
  userAgent: UA,
});
const signup = (ip: string) => ({
  body: JSON.stringify({ n: 'Signup', u: 'https://memo.example/a', d: 'memo.example' }),
  clientIp: ip,
  userAgent: UA,
});

/** What `body` resolves to, and how many node:crypto createHmac calls it made. */
async function counted(body: () => Promise<CollectOutcome>): Promise<{ out: CollectOutcome; hmacs: number }> {
  const spy = mock.method(crypto, 'createHmac');
  syncBuiltinESMExports();
  try {
    const out = await body();
    return { out, hmacs: spy.mock.callCount() };
  } finally {
    spy.mock.restore();
    syncBuiltinESMExports();
  }
}

const lastKey = (spooled: { kind: string; record: string }[]) => decodeEventRow(spooled[spooled.length - 1].record).visitor_key;

test('a renewed processor sees the site as it is now and computes no visitor key the one before had', async () => {
  const { collector, clock, catalog, spooled } = await collectorOf();
  const first = await counted(() => collector.collect(pageview('198.51.100.1')));
  assert.deepEqual(first.out, { kind: 'accepted', engagement: false });
  assert.equal(first.hmacs, 2); // the day's salt, the visitor's key
  const key = lastKey(spooled);
  assert.equal(key, dailyVisitorKey('s1', 'site_a', '2025-03-10', '198.51.100.1', UA));
  assert.equal((await collector.collect(signup('198.51.100.1'))).kind, 'accepted');

  // The site turns strict, which keeps no custom events: seen once the catalog answers expire.
  catalog.site = { ...catalog.site, collectionProfile: 'strict' };
  clock.advance(CATALOG_TTL_MS);
  const again = await counted(async () => {
    assert.equal((await collector.collect(signup('198.51.100.1'))).kind, 'ignored');
    return collector.collect(pageview('198.51.100.1'));
  });
  assert.deepEqual(again.out, { kind: 'accepted', engagement: false });
  assert.equal(again.hmacs, 0);
  assert.equal(lastKey(spooled), key);
  assert.equal(decodeEventRow(spooled[spooled.length - 1].record).profile, 'strict');
  // a visitor not seen before still costs its key (the salt carried over too)
  const other = await counted(() => collector.collect(pageview('198.51.100.2')));
  assert.equal(other.hmacs, 1);
  assert.equal(lastKey(spooled), dailyVisitorKey('s1', 'site_a', '2025-03-10', '198.51.100.2', UA));
});

test('the salt is asked of the catalog once, not at every renewal, and asked again after a failed ask', async () => {
  const { collector, clock, catalog, spooled, asks } = await collectorOf();
  catalog.secretFails = true;
  await assert.rejects(collector.collect(pageview('198.51.100.1')), /catalog down/);
  assert.equal(asks.count, 1);
  catalog.secretFails = false;
  for (let i = 0; i < 3; i++) {
    assert.equal((await collector.collect(pageview('198.51.100.1'))).kind, 'accepted');
    assert.equal(lastKey(spooled), dailyVisitorKey('s1', 'site_a', '2025-03-10', '198.51.100.1', UA));
    clock.advance(CATALOG_TTL_MS); // the next event renews the processor
  }
  assert.equal(asks.count, 2); // the failed ask, then one for the three processors
});

test('the control plane unavailable, a domain resolved before is still collected on its last answer; another failure is not hidden', async () => {
  const { collector, clock, catalog, spooled } = await collectorOf();
  const tenanted = {
    ...signup('203.0.113.7'),
    body: JSON.stringify({ n: 'Signup', u: 'https://memo.example/a', d: 'memo.example', p: { tenant_id: 'ten_x' } }),
  };
  assert.equal((await collector.collect(tenanted)).kind, 'accepted');
  clock.advance(CATALOG_TTL_MS + 1);
  catalog.lookup = new ControlPlaneUnavailableError('the PostgreSQL control plane is unavailable: connect ECONNREFUSED');
  assert.equal((await collector.collect(tenanted)).kind, 'accepted', 'past the memo, while the control plane is down');
  assert.equal(spooled.length, 2);
  await assert.rejects(
    collector.collect({
      ...pageview('203.0.113.8'),
      body: JSON.stringify({ n: 'pageview', u: 'https://other.example/', d: 'other.example' }),
    }),
    ControlPlaneUnavailableError,
  );
  clock.advance(CATALOG_TTL_MS + 1);
  catalog.lookup = new Error('a bug in the lookup');
  await assert.rejects(collector.collect(tenanted), /a bug in the lookup/);
});
