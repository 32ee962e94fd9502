// The CatalogStore conformance suite: every implementation must pass it unchanged.
import { skippable } from '../helpers/services.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { CatalogError, type CatalogStore } from '../../src/ports/catalog-store.js';
import { FakeClock } from '../../src/domain/clock.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';

export interface CatalogUnderTest {
  catalog: CatalogStore;
  close(): Promise<void>;
}

const T0 = '2025-03-01T10:00:00.000Z';

/** An assert.rejects validator: a CatalogError with this code (and a message matching, when given). */
export function isCatalogError(code: CatalogError['code'], message?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof CatalogError, `expected CatalogError ${code}, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (message) assert.match(err.message, message);
    return true;
  };
}

export type CatalogFactory = (clock: FakeClock) => Promise<CatalogUnderTest>;

/** Wraps a test body: a fresh catalog on a fake clock at T0, closed afterwards. */
export function catalogTest(factory: CatalogFactory) {
  return (fn: (c: CatalogStore, clock: FakeClock) => Promise<void>) => async () => {
    const clock = new FakeClock(Date.parse(T0));
    const sut = await factory(clock);
    try {
      await fn(sut.catalog, clock);
    } finally {
      await sut.close();
    }
  };
}

export function runCatalogStoreContract(name: string, factory: CatalogFactory, opts: { skip?: string | false } = {}): void {
  // a suite that cannot run here lists each of its tests as skipped, with the reason
  const test = skippable(opts.skip);
  const withCatalog = catalogTest(factory);
  const site = (c: CatalogStore, workspaceId: string, hostnames: string[], extra: Record<string, unknown> = {}) =>
    c.createSite({ workspaceId, name: 'Site', hostnames, collectionProfile: 'extended', ...extra });

  test(
    `${name}: workspaces round-trip with random prefixed ids`,
    withCatalog(async (c) => {
      const a = await c.createWorkspace({ name: '  Acme  ', plan: 'pro' });
      const b = await c.createWorkspace({ name: 'Big', plan: 'enterprise', apiPolicy: { hard_cap_units: 100, allow_reports: true } });
      assert.match(a.id, /^ws_[0-9A-Za-z]{22}$/);
      assert.notEqual(a.id, b.id);
      assert.deepEqual(await c.getWorkspace(a.id), { id: a.id, name: 'Acme', plan: 'pro', apiPolicy: {}, createdAt: T0 });
      assert.deepEqual((await c.getWorkspace(b.id))?.apiPolicy, { hard_cap_units: 100, allow_reports: true });
      assert.equal(await c.getWorkspace('ws_missing'), null);
    }),
  );

  test(
    `${name}: bad workspace input is refused`,
    withCatalog(async (c) => {
      await assert.rejects(c.createWorkspace({ name: 'x', plan: 'gold' as 'pro' }), isCatalogError('INVALID'));
      await assert.rejects(c.createWorkspace({ name: ' ', plan: 'pro' }), isCatalogError('INVALID'));
      await assert.rejects(c.createWorkspace({ name: 'x', plan: 'pro', apiPolicy: { hard_cap_units: 5 } }), isCatalogError('INVALID'));
      await assert.rejects(
        c.createWorkspace({ name: 'x', plan: 'enterprise', apiPolicy: { hard_cap_units: -1 } }),
        isCatalogError('INVALID'),
      );
      await assert.rejects(
        c.createWorkspace({ name: 'x', plan: 'enterprise', apiPolicy: { bogus: 1 } as object }),
        isCatalogError('INVALID'),
      );
    }),
  );

  test(
    `${name}: sites keep lower-cased, de-duplicated hostnames in the given order`,
    withCatalog(async (c, clock) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const s = await site(c, ws.id, ['WWW.Example.com', 'example.com', 'www.example.COM', 'localhost']);
      assert.match(s.id, /^site_[0-9A-Za-z]{22}$/);
      assert.deepEqual(s.hostnames, ['www.example.com', 'example.com', 'localhost']);
      assert.deepEqual(await c.getSite(s.id), {
        id: s.id,
        workspaceId: ws.id,
        name: 'Site',
        hostnames: ['www.example.com', 'example.com', 'localhost'],
        status: 'ACTIVE',
        collectionProfile: 'extended',
        profileEffectiveAt: null,
        createdAt: T0,
        timezone: 'UTC',
      });
      clock.advance(1000);
      const s2 = await site(c, ws.id, ['b.example.org'], {
        collectionProfile: 'strict',
        status: 'SUSPENDED',
        profileEffectiveAt: '2025-01-31T01:30:00+01:00',
      });
      assert.equal(s2.profileEffectiveAt, '2025-01-31T00:30:00.000Z');
      assert.deepEqual(
        (await c.listSites(ws.id)).map((x) => [x.id, x.hostnames, x.status, x.collectionProfile]),
        [
          [s.id, ['www.example.com', 'example.com', 'localhost'], 'ACTIVE', 'extended'],
          [s2.id, ['b.example.org'], 'SUSPENDED', 'strict'],
        ],
      );
      assert.deepEqual(await c.listSites('ws_missing'), []);
      assert.equal(await c.getSite('site_missing'), null);
    }),
  );

  test(
    `${name}: a site past the plan's included sites is SITE_LIMIT_REACHED and nothing is stored`,
    withCatalog(async (c) => {
      const free = await c.createWorkspace({ name: 'F', plan: 'free' });
      for (let i = 0; i < 3; i++) await site(c, free.id, [`f${i}.example.com`]);
      await assert.rejects(site(c, free.id, ['f3.example.com']), (err: any) => {
        isCatalogError('SITE_LIMIT_REACHED')(err);
        assert.deepEqual(err.details, { limit: 3, used: 3 });
        return true;
      });
      assert.equal((await c.listSites(free.id)).length, 3);
      assert.equal(await c.findSiteByHostname('f3.example.com'), null, 'its hostname was not registered');
      // Enterprise: max_sites from the api policy, unlimited without it; racing creations never pass it.
      const capped = await c.createWorkspace({ name: 'E', plan: 'enterprise', apiPolicy: { max_sites: 2 } });
      const results = await Promise.allSettled([0, 1, 2, 3, 4].map((i) => site(c, capped.id, [`e${i}.example.com`])));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 2);
      const open = await c.createWorkspace({ name: 'U', plan: 'enterprise' });
      for (let i = 0; i < 12; i++) await site(c, open.id, [`u${i}.example.com`]);
    }),
  );

  test(
    `${name}: a site is found by any of its hostnames, case-insensitive, www. ignored, the exact one first`,
    withCatalog(async (c) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const other = await c.createWorkspace({ name: 'B', plan: 'pro' });
      const a = await site(c, ws.id, ['shop.example.com', 'www.example.org']);
      const apex = await site(c, other.id, ['example.net']);
      const www = await site(c, ws.id, ['www.example.net']);
      const found = async (h: string) => (await c.findSiteByHostname(h))?.id ?? null;
      assert.equal(await found('shop.example.com'), a.id);
      assert.equal(await found('SHOP.Example.COM'), a.id);
      assert.equal(await found('www.shop.example.com'), a.id);
      assert.equal(await found('example.org'), a.id);
      assert.equal(await found('www.example.org'), a.id);
      assert.deepEqual(await c.findSiteByHostname('example.org'), await c.getSite(a.id));
      assert.equal(await found('example.net'), apex.id);
      assert.equal(await found('www.example.net'), www.id);
      for (const h of ['example.com', 'other.example.com', 'shop.example.com.evil', '', 'www.', "x' OR '1'='1"])
        assert.equal(await found(h), null, h);
    }),
  );

  test(
    `${name}: malformed hostnames are INVALID_SITE_HOSTNAME and nothing is stored`,
    withCatalog(async (c) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const bad = [
        '',
        'example',
        'exa mple.com',
        '-a.com',
        'a-.com',
        'a..com',
        '.a.com',
        'a.com.',
        'a_b.com',
        'http://a.com',
        'a.com:8080',
        '*.a.com',
        'a.com/x',
        '127.0.0.1',
        'é.com',
        'a'.repeat(64) + '.com',
        Array.from({ length: 64 }, () => 'abc').join('.'),
      ];
      for (const h of bad) await assert.rejects(site(c, ws.id, ['ok.example', h]), isCatalogError('INVALID_SITE_HOSTNAME'), h);
      await assert.rejects(site(c, ws.id, []), isCatalogError('INVALID_SITE_HOSTNAME'));
      assert.deepEqual(await c.listSites(ws.id), []);
      const good = [
        'a.b',
        'xn--bcher-kva.example',
        'a-b.c0',
        'a'.repeat(63) + '.com',
        Array.from({ length: 63 }, () => 'abc').join('.') + '.a',
      ];
      for (const h of good) assert.deepEqual((await site(c, ws.id, [h])).hostnames, [h], h);
    }),
  );

  test(
    `${name}: a hostname of another workspace is SITE_SCOPE_ALREADY_CLAIMED, without revealing the owner`,
    withCatalog(async (c) => {
      const a = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const b = await c.createWorkspace({ name: 'B', plan: 'pro' });
      const owned = await site(c, a.id, ['shop.example.com']);
      await assert.rejects(site(c, b.id, ['free.example.com', 'SHOP.example.com']), (err: unknown) => {
        isCatalogError('SITE_SCOPE_ALREADY_CLAIMED')(err);
        assert.ok(!(err as Error).message.includes(a.id) && !(err as Error).message.includes(owned.id));
        return true;
      });
      assert.deepEqual(await c.listSites(b.id), []);
      assert.ok(await site(c, b.id, ['free.example.com']), 'the refused request left its other hostname free');
    }),
  );

  test(
    `${name}: a hostname of another site of the same workspace is a CONFLICT`,
    withCatalog(async (c) => {
      const a = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const first = await site(c, a.id, ['shop.example.com']);
      await assert.rejects(site(c, a.id, ['shop.example.com']), (err: unknown) => {
        isCatalogError('CONFLICT')(err);
        assert.match((err as Error).message, new RegExp(first.id));
        return true;
      });
      assert.equal((await c.listSites(a.id)).length, 1);
    }),
  );

  test(
    `${name}: racing claims of one hostname leave exactly one owner`,
    withCatalog(async (c) => {
      const wss = await Promise.all([1, 2, 3, 4].map((i) => c.createWorkspace({ name: `W${i}`, plan: 'pro' })));
      const results = await Promise.allSettled(wss.map((w) => site(c, w.id, ['race.example.com'])));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of results) if (r.status === 'rejected') isCatalogError('SITE_SCOPE_ALREADY_CLAIMED')(r.reason);
    }),
  );

  test(
    `${name}: bad site input is refused`,
    withCatalog(async (c) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      await assert.rejects(site(c, 'ws_missing', ['a.example.com']), isCatalogError('NOT_FOUND'));
      await assert.rejects(site(c, ws.id, ['a.example.com'], { collectionProfile: 'loose' }), isCatalogError('INVALID'));
      await assert.rejects(site(c, ws.id, ['a.example.com'], { status: 'PAUSED' }), isCatalogError('INVALID'));
      for (const at of ['2025-01-31', 'yesterday', '2025-02-30T00:00:00Z', '2025-01-31T00:00:00'])
        await assert.rejects(site(c, ws.id, ['a.example.com'], { profileEffectiveAt: at }), isCatalogError('INVALID'), at);
      await assert.rejects(site(c, ws.id, ['a.example.com'], { name: '' }), isCatalogError('INVALID'));
      assert.deepEqual(await c.listSites(ws.id), []);
    }),
  );

  test(
    `${name}: tenants have a unique slug per site`,
    withCatalog(async (c) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const s1 = await site(c, ws.id, ['one.example.com']);
      const s2 = await site(c, ws.id, ['two.example.com']);
      const t = await c.createTenant({ siteId: s1.id, slug: 'north', name: 'North' });
      assert.match(t.id, /^ten_[0-9A-Za-z]{22}$/);
      assert.deepEqual(await c.getTenant(t.id), { id: t.id, siteId: s1.id, slug: 'north', name: 'North', status: 'ACTIVE', createdAt: T0 });
      await assert.rejects(c.createTenant({ siteId: s1.id, slug: 'north', name: 'Again' }), isCatalogError('CONFLICT'));
      const other = await c.createTenant({ siteId: s2.id, slug: 'north', name: 'North too', status: 'INACTIVE' });
      const a = await c.createTenant({ siteId: s1.id, slug: 'alpha', name: 'Alpha' });
      assert.deepEqual(
        (await c.listTenants(s1.id)).map((x) => x.id),
        [a.id, t.id],
      );
      assert.deepEqual(await c.listTenants(s2.id), [other]);
      assert.equal(await c.getTenant('ten_missing'), null);
    }),
  );

  test(
    `${name}: bad tenant input is refused`,
    withCatalog(async (c) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const s = await site(c, ws.id, ['one.example.com']);
      await assert.rejects(c.createTenant({ siteId: 'site_missing', slug: 'x', name: 'X' }), isCatalogError('NOT_FOUND'));
      for (const slug of ['', 'Upper', 'has space', '-lead', 'a'.repeat(64), 'ü'])
        await assert.rejects(c.createTenant({ siteId: s.id, slug, name: 'X' }), isCatalogError('INVALID'), slug);
      await assert.rejects(c.createTenant({ siteId: s.id, slug: 'x', name: 'X', status: 'GONE' as 'ACTIVE' }), isCatalogError('INVALID'));
      assert.deepEqual(await c.listTenants(s.id), []);
    }),
  );

  test(
    `${name}: goals round-trip with their filters and the site's workspace`,
    withCatalog(async (c) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const s = await site(c, ws.id, ['one.example.com']);
      const g1 = await c.createGoal({
        siteId: s.id,
        name: 'Signup',
        type: 'PAGEVIEW_MATCH',
        intent: 'signup',
        pattern: '/welcome*',
        filters: {},
      });
      const g2 = await c.createGoal({
        siteId: s.id,
        name: 'Lead form',
        type: 'EVENT_MATCH',
        intent: 'lead',
        pattern: 'form.submit',
        filters: { form_id: 'contact', form_action_path: '/send' },
      });
      assert.match(g1.id, /^goal_[0-9A-Za-z]{22}$/);
      assert.deepEqual(
        await c.listGoals(s.id),
        [
          {
            id: g1.id,
            siteId: s.id,
            workspaceId: ws.id,
            name: 'Signup',
            type: 'PAGEVIEW_MATCH',
            intent: 'signup',
            pattern: '/welcome*',
            filters: {},
            createdAt: T0,
            updatedAt: T0,
          },
          {
            id: g2.id,
            siteId: s.id,
            workspaceId: ws.id,
            name: 'Lead form',
            type: 'EVENT_MATCH',
            intent: 'lead',
            pattern: 'form.submit',
            filters: { form_id: 'contact', form_action_path: '/send' },
            createdAt: T0,
            updatedAt: T0,
          },
        ].sort((x, y) => (x.id < y.id ? -1 : 1)),
      );
      assert.deepEqual(await c.listGoals('site_missing'), []);
    }),
  );

  test(
    `${name}: bad goal input is refused`,
    withCatalog(async (c) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const s = await site(c, ws.id, ['one.example.com']);
      const ok = { siteId: s.id, name: 'G', type: 'EVENT_MATCH' as const, intent: 'custom' as const, pattern: 'signup', filters: {} };
      await assert.rejects(c.createGoal({ ...ok, siteId: 'site_missing' }), isCatalogError('NOT_FOUND'));
      for (const bad of [
        { type: 'CLICK' },
        { intent: 'fun' },
        { pattern: '' },
        { name: '' },
        { type: 'PAGEVIEW_MATCH', pattern: 'pricing' },
        { type: 'PAGEVIEW_MATCH', pattern: '/pricing', filters: { form_id: 'x' } },
        { filters: { colour: 'red' } },
        { filters: { form_id: '' } },
      ])
        await assert.rejects(c.createGoal({ ...ok, ...bad } as typeof ok), isCatalogError('INVALID'), JSON.stringify(bad));
      assert.deepEqual(await c.listGoals(s.id), []);
    }),
  );

  test(
    `${name}: tokens are found by secret hash and keep their allowlists`,
    withCatalog(async (c) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const s1 = await site(c, ws.id, ['one.example.com']);
      const s2 = await site(c, ws.id, ['two.example.com']);
      const t1 = await c.createTenant({ siteId: s1.id, slug: 't1', name: 'T1' });
      const open = generateSecret(randomBytes);
      const narrow = generateSecret(randomBytes);
      const a = await c.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], secretHash: hashSecret(open) });
      const b = await c.createToken({
        workspaceId: ws.id,
        scopes: ['usage:read', 'metrics:read', 'usage:read'],
        siteIds: [s1.id, s2.id],
        tenantIds: [t1.id],
        secretHash: hashSecret(narrow),
      });
      assert.match(a.id, /^tok_[0-9A-Za-z]{22}$/);
      assert.deepEqual(await c.findTokenByHash(hashSecret(open)), {
        id: a.id,
        workspaceId: ws.id,
        name: null,
        scopes: ['metrics:read'],
        siteIds: null,
        tenantIds: null,
        revokedAt: null,
        rotatedAt: null,
        createdAt: T0,
      });
      assert.deepEqual(await c.findTokenByHash(hashSecret(narrow)), {
        id: b.id,
        workspaceId: ws.id,
        name: null,
        scopes: ['metrics:read', 'usage:read'],
        siteIds: [s1.id, s2.id],
        tenantIds: [t1.id],
        revokedAt: null,
        rotatedAt: null,
        createdAt: T0,
      });
      assert.equal(await c.findTokenByHash(hashSecret(generateSecret(randomBytes))), null);
      // authentication's one read: the token and its workspace together, the same records as read apart
      assert.deepEqual(await c.findTokenWithWorkspace(hashSecret(narrow)), {
        token: await c.findTokenByHash(hashSecret(narrow)),
        workspace: await c.getWorkspace(ws.id),
      });
      assert.equal(await c.findTokenWithWorkspace(hashSecret(generateSecret(randomBytes))), null);
      // ... and the request's site in the same statement: its own workspace's only, with its hostnames in order
      await c.updateSite(s1.id, { hostnames: ['one.example.com', 'www.one.example.com', 'alt.example.com'] });
      const other = await c.createWorkspace({ name: 'B', plan: 'pro' });
      const foreign = await site(c, other.id, ['foreign.example.com']);
      assert.deepEqual(await c.findTokenWithWorkspace(hashSecret(narrow), s1.id), {
        token: await c.findTokenByHash(hashSecret(narrow)),
        workspace: await c.getWorkspace(ws.id),
        site: await c.getSite(s1.id),
      });
      assert.deepEqual((await c.findTokenWithWorkspace(hashSecret(open), s1.id))?.site?.hostnames, [
        'one.example.com',
        'www.one.example.com',
        'alt.example.com',
      ]);
      assert.equal(
        (await c.findTokenWithWorkspace(hashSecret(open), foreign.id))?.site,
        null,
        "another workspace's site is none of this token's",
      );
      assert.equal((await c.findTokenWithWorkspace(hashSecret(open), 'site_missing'))?.site, null);
      assert.equal((await c.findTokenWithWorkspace(hashSecret(open), 'site_missing'))?.workspace.id, ws.id);
      assert.equal(await c.findTokenWithWorkspace(hashSecret(generateSecret(randomBytes)), s1.id), null);
      await assert.rejects(
        c.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], secretHash: hashSecret(open) }),
        isCatalogError('CONFLICT'),
      );
    }),
  );

  test(
    `${name}: revocation is recorded once and seen by the next lookup`,
    withCatalog(async (c, clock) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'starter' });
      const hash = hashSecret(generateSecret(randomBytes));
      const t = await c.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], secretHash: hash });
      clock.advance(60_000);
      assert.equal(await c.revokeToken(t.id, '2025-03-01T10:01:00.000Z'), true);
      assert.equal((await c.findTokenByHash(hash))?.revokedAt, '2025-03-01T10:01:00.000Z');
      assert.equal((await c.findTokenWithWorkspace(hash))?.token.revokedAt, '2025-03-01T10:01:00.000Z');
      assert.equal(await c.revokeToken(t.id, '2025-03-02T00:00:00.000Z'), true);
      assert.equal((await c.findTokenByHash(hash))?.revokedAt, '2025-03-01T10:01:00.000Z', 'the first revocation stands');
      assert.equal(await c.revokeToken('tok_missing', '2025-03-02T00:00:00.000Z'), false);
    }),
  );

  test(
    `${name}: tokens are refused on plans without API access and with foreign allowlists`,
    withCatalog(async (c) => {
      const free = await c.createWorkspace({ name: 'F', plan: 'free' });
      const starter = await c.createWorkspace({ name: 'S', plan: 'starter' });
      const pro = await c.createWorkspace({ name: 'P', plan: 'pro' });
      const other = await c.createWorkspace({ name: 'O', plan: 'pro' });
      const noApi = await c.createWorkspace({ name: 'E', plan: 'enterprise', apiPolicy: { availability: 'none' } });
      const proSite = await site(c, pro.id, ['pro.example.com']);
      const proSite2 = await site(c, pro.id, ['pro2.example.com']);
      const otherSite = await site(c, other.id, ['other.example.com']);
      const starterSite = await site(c, starter.id, ['starter.example.com']);
      const t2 = await c.createTenant({ siteId: proSite2.id, slug: 't', name: 'T' });
      const otherTenant = await c.createTenant({ siteId: otherSite.id, slug: 't', name: 'T' });
      const starterTenant = await c.createTenant({ siteId: starterSite.id, slug: 't', name: 'T' });
      const hash = () => hashSecret(generateSecret(randomBytes));
      const tries: Array<[string, Parameters<CatalogStore['createToken']>[0], CatalogError['code']]> = [
        ['free plan', { workspaceId: free.id, scopes: ['metrics:read'], secretHash: hash() }, 'INVALID'],
        ['api none', { workspaceId: noApi.id, scopes: ['metrics:read'], secretHash: hash() }, 'INVALID'],
        ['unknown workspace', { workspaceId: 'ws_missing', scopes: ['metrics:read'], secretHash: hash() }, 'NOT_FOUND'],
        ['no scopes', { workspaceId: pro.id, scopes: [], secretHash: hash() }, 'INVALID'],
        ['bad scope', { workspaceId: pro.id, scopes: ['admin' as 'usage:read'], secretHash: hash() }, 'INVALID'],
        ['bad hash', { workspaceId: pro.id, scopes: ['metrics:read'], secretHash: 'ff_live_plain' }, 'INVALID'],
        ['foreign site', { workspaceId: pro.id, scopes: ['metrics:read'], siteIds: [otherSite.id], secretHash: hash() }, 'INVALID'],
        ['empty site list', { workspaceId: pro.id, scopes: ['metrics:read'], siteIds: [], secretHash: hash() }, 'INVALID'],
        ['foreign tenant', { workspaceId: pro.id, scopes: ['metrics:read'], tenantIds: [otherTenant.id], secretHash: hash() }, 'INVALID'],
        [
          'tenant outside allowed sites',
          { workspaceId: pro.id, scopes: ['metrics:read'], siteIds: [proSite.id], tenantIds: [t2.id], secretHash: hash() },
          'INVALID',
        ],
        [
          'tenants on starter',
          { workspaceId: starter.id, scopes: ['metrics:read'], tenantIds: [starterTenant.id], secretHash: hash() },
          'INVALID',
        ],
      ];
      for (const [why, input, code] of tries) await assert.rejects(c.createToken(input), isCatalogError(code), why);
      const ok = await c.createToken({ workspaceId: pro.id, scopes: ['metrics:read'], tenantIds: [t2.id], secretHash: hash() });
      assert.deepEqual(ok.tenantIds, [t2.id]);
      assert.ok(await c.createToken({ workspaceId: starter.id, scopes: ['usage:read'], siteIds: [starterSite.id], secretHash: hash() }));
    }),
  );

  test(
    `${name}: a named secret is created once and then kept`,
    withCatalog(async (c) => {
      const [a, b] = await Promise.all([c.getOrCreateSecret('visitor-salt'), c.getOrCreateSecret('visitor-salt')]);
      assert.match(a, /^[0-9a-f]{64}$/);
      assert.equal(a, b);
      assert.equal(await c.getOrCreateSecret('visitor-salt'), a);
      assert.notEqual(await c.getOrCreateSecret('other'), a);
      await assert.rejects(c.getOrCreateSecret(''), isCatalogError('INVALID'));
      await c.ping();
    }),
  );
}
