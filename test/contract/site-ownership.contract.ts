// The CatalogStore's site ownership (domain scopes, hostname patterns, proofs, released hostnames, how
// collection finds a site): every implementation must pass it unchanged.
import { skippable } from '../helpers/services.js';
import assert from 'node:assert/strict';
import type { CatalogStore } from '../../src/ports/catalog-store.js';
import { catalogTest, isCatalogError, type CatalogFactory } from './catalog-store.contract.js';

const RECORD_VALUE = /^footfall-verification=[0-9A-Za-z]{32}$/;

/** An assert.rejects validator: this code, these details (a subset), and no word of `hidden` in the message. */
function refusal(code: Parameters<typeof isCatalogError>[0], details: Record<string, unknown> = {}, hidden: string[] = []) {
  return (err: unknown) => {
    isCatalogError(code)(err);
    const e = err as Error & { details?: Record<string, unknown> };
    for (const [k, v] of Object.entries(details)) assert.deepEqual(e.details?.[k], v, `details.${k} of ${e.message}`);
    for (const h of hidden)
      assert.ok(!e.message.includes(h) && !JSON.stringify(e.details ?? {}).includes(h), `"${h}" revealed: ${e.message}`);
    return true;
  };
}

export function runSiteOwnershipContract(name: string, factory: CatalogFactory, opts: { skip?: string | false } = {}): void {
  // a suite that cannot run here lists each of its tests as skipped, with the reason
  const test = skippable(opts.skip);
  const withCatalog = catalogTest(factory);
  const site = (c: CatalogStore, workspaceId: string, hostnames: string[], extra: Record<string, unknown> = {}) =>
    c.createSite({ workspaceId, name: 'Site', hostnames, collectionProfile: 'extended', ...extra });
  const found = async (c: CatalogStore, h: string) => (await c.findSiteByHostname(h))?.id ?? null;

  test(
    `${name}: a scope and patterns are kept with one verification code per workspace and domain`,
    withCatalog(async (c) => {
      const a = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const b = await c.createWorkspace({ name: 'B', plan: 'pro' });
      const s1 = await site(c, a.id, ['example.com'], {
        domainScope: 'Example.COM',
        hostnamePatterns: ['*.Shop.example.com', '*.shop.example.com', '*.eu.example.com'],
      });
      const o1 = (await c.getSiteOwnership(s1.id))!;
      assert.equal(o1.domainScope, 'example.com');
      assert.deepEqual(o1.hostnamePatterns, ['*.shop.example.com', '*.eu.example.com']);
      assert.equal(o1.domains.length, 1);
      const proof = o1.domains[0];
      assert.deepEqual(
        { ...proof, recordValue: '' },
        { domain: 'example.com', recordName: '_footfall.example.com', recordValue: '', verifiedAt: null, claimedElsewhere: false },
      );
      assert.match(proof.recordValue, RECORD_VALUE);
      assert.deepEqual(o1.releasedHostnames, []);
      assert.equal(o1.workspaceId, a.id);

      // Another site of the workspace: a pattern inside the asked-for domain, under the same proof.
      const s2 = await site(c, a.id, ['blog.example.org'], { hostnamePatterns: ['*.blog.example.com'] });
      assert.deepEqual(
        (await c.getSiteOwnership(s2.id))!.domains.map((d) => d.recordValue),
        [proof.recordValue],
      );
      // Dropping the scope and asking again keeps the code; the domain stays asked for.
      await c.updateSite(s1.id, { domainScope: null });
      assert.equal((await c.getSiteOwnership(s1.id))!.domainScope, null);
      assert.ok(
        await c.updateSite(s2.id, { hostnamePatterns: ['*.news.example.com'] }),
        'a pattern may still lie in the domain the workspace asked for',
      );
      await c.updateSite(s1.id, { domainScope: 'example.com' });
      assert.equal((await c.getSiteOwnership(s1.id))!.domains[0].recordValue, proof.recordValue);
      // Another workspace asking for the same domain gets a code of its own (nobody has proven it yet).
      const s3 = await site(c, b.id, ['b.example.net'], { domainScope: 'example.com' });
      const other = (await c.getSiteOwnership(s3.id))!.domains[0].recordValue;
      assert.match(other, RECORD_VALUE);
      assert.notEqual(other, proof.recordValue);

      const listed = await c.listSiteOwnership(a.id);
      assert.deepEqual(
        listed.map((o) => o.siteId),
        (await c.listSites(a.id)).map((x) => x.id),
        'in listSites order',
      );
      assert.deepEqual(
        listed.map((o) => [o.siteId, o.domainScope, o.hostnamePatterns]).sort(),
        [
          [s1.id, 'example.com', ['*.shop.example.com', '*.eu.example.com']],
          [s2.id, null, ['*.news.example.com']],
        ].sort(),
      );
      assert.equal(await c.getSiteOwnership('site_missing'), null);
      assert.deepEqual(await c.listSiteOwnership('ws_missing'), []);
    }),
  );

  test(
    `${name}: malformed, disallowed and unprovable scopes and patterns are refused with their codes, storing nothing`,
    withCatalog(async (c) => {
      const a = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const scope = (s: unknown) => site(c, a.id, ['ok.example.com'], { domainScope: s });
      for (const s of ['exa mple.com', 'a..com', '-a.com', 'example.com.', 'http://example.com', '*.example.com', '', 5])
        await assert.rejects(scope(s), refusal('INVALID_SITE_HOSTNAME', { field: 'domain_scope', value: s }), String(s));
      for (const s of ['co.uk', 'com', 'github.io', '127.0.0.1', '::1', '[::1]', 'localhost', '10.0.0.300'])
        await assert.rejects(scope(s), refusal('SITE_SCOPE_NOT_ALLOWED', { field: 'domain_scope', value: s }), s);
      await assert.rejects(scope('shop.example.com'), refusal('SITE_SCOPE_NOT_ALLOWED', { registrable_domain: 'example.com' }));
      await assert.rejects(scope('a.b.example.co.uk'), refusal('SITE_SCOPE_NOT_ALLOWED', { registrable_domain: 'example.co.uk' }));
      for (const s of ['example.test', 'shop.local', 'app.localhost', 'corp.example', 'x.invalid', 'nas.internal', 'router.home.arpa'])
        await assert.rejects(
          scope(s),
          refusal('SITE_DNS_VERIFICATION_UNAVAILABLE', { field: 'domain_scope', value: s, reason: 'special_use_name' }),
          s,
        );

      const pattern = (p: unknown, extra: Record<string, unknown> = {}) =>
        site(c, a.id, ['ok.example.com'], { hostnamePatterns: [p], ...extra });
      for (const p of [
        'example.com',
        '*example.com',
        '*.*.example.com',
        'shop.*.example.com',
        '*.',
        '*',
        '*.exa mple.com',
        '**.example.com',
        7,
      ])
        await assert.rejects(
          pattern(p, { domainScope: 'example.com' }),
          refusal('INVALID_SITE_HOSTNAME', { field: 'hostname_patterns', value: p }),
          String(p),
        );
      await assert.rejects(
        pattern('*.shop.example.com'),
        refusal('HOSTNAME_PATTERN_OUT_OF_SCOPE', { value: '*.shop.example.com', required_domain_scope: 'example.com' }),
      );
      await assert.rejects(
        pattern('*.other.org', { domainScope: 'example.com' }),
        refusal('HOSTNAME_PATTERN_OUT_OF_SCOPE', { required_domain_scope: 'other.org' }),
      );
      for (const p of ['*.co.uk', '*.com', '*.example.test'])
        await assert.rejects(pattern(p, { domainScope: 'example.com' }), refusal('HOSTNAME_PATTERN_OUT_OF_SCOPE', { value: p }), p);
      assert.deepEqual(await c.listSites(a.id), []);
      assert.deepEqual(await c.listSiteOwnership(a.id), []);

      // The same rules on update, which changes nothing when refused.
      const s = await site(c, a.id, ['ok.example.com']);
      await assert.rejects(c.updateSite(s.id, { domainScope: 'co.uk' }), refusal('SITE_SCOPE_NOT_ALLOWED'));
      await assert.rejects(c.updateSite(s.id, { hostnamePatterns: ['*.shop.example.com'] }), refusal('HOSTNAME_PATTERN_OUT_OF_SCOPE'));
      await assert.rejects(
        c.updateSite(s.id, { domainScope: 'example.com', hostnamePatterns: ['nope'] }),
        refusal('INVALID_SITE_HOSTNAME'),
      );
      assert.deepEqual((await c.getSiteOwnership(s.id))!.domains, [], 'a refused update asked for nothing');
      const up = await c.updateSite(s.id, { domainScope: 'example.com', hostnamePatterns: ['*.shop.example.com'] });
      assert.deepEqual(up.hostnames, ['ok.example.com']);
      assert.deepEqual((await c.getSiteOwnership(s.id))!.hostnamePatterns, ['*.shop.example.com']);
      await c.updateSite(s.id, { hostnamePatterns: [] });
      assert.deepEqual((await c.getSiteOwnership(s.id))!.hostnamePatterns, []);
    }),
  );

  test(
    `${name}: one site holds a scope and a pattern; a domain another workspace proved takes no new claim`,
    withCatalog(async (c) => {
      const a = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const b = await c.createWorkspace({ name: 'B', plan: 'pro' });
      const held = await site(c, a.id, ['a.example.com'], { domainScope: 'example.com', hostnamePatterns: ['*.shop.example.com'] });
      await assert.rejects(
        site(c, a.id, ['a2.example.com'], { domainScope: 'example.com' }),
        refusal('SITE_SCOPE_ALREADY_CLAIMED', { field: 'domain_scope', value: 'example.com' }),
      );
      await assert.rejects(
        site(c, a.id, ['a3.example.com'], { hostnamePatterns: ['*.shop.example.com'] }),
        isCatalogError('CONFLICT', new RegExp(held.id)),
      );

      const bSite = await site(c, b.id, ['b.example.org'], { domainScope: 'example.org' });
      const { verifiedAt } = await c.markDomainVerified(b.id, 'example.org');
      assert.equal(verifiedAt, '2025-03-01T10:00:00.000Z');
      const hidden = [b.id, bSite.id];
      await assert.rejects(site(c, a.id, ['shop.example.org']), refusal('SITE_SCOPE_ALREADY_CLAIMED', { domain: 'example.org' }, hidden));
      await assert.rejects(site(c, a.id, ['example.org']), refusal('SITE_SCOPE_ALREADY_CLAIMED', {}, hidden));
      await assert.rejects(
        site(c, a.id, ['x.example.net'], { domainScope: 'example.org' }),
        refusal('SITE_SCOPE_ALREADY_CLAIMED', { domain: 'example.org' }, hidden),
      );
      await assert.rejects(
        c.updateSite(held.id, { hostnames: ['a.example.com', 'deep.in.example.org'] }),
        refusal('SITE_SCOPE_ALREADY_CLAIMED', {}, hidden),
      );
      await assert.rejects(
        c.markDomainVerified(a.id, 'example.org'),
        refusal('SITE_SCOPE_ALREADY_CLAIMED', { domain: 'example.org' }, hidden),
      );
      assert.deepEqual((await c.getSite(held.id))!.hostnames, ['a.example.com'], 'refusals changed nothing');
      assert.deepEqual((await c.listSites(a.id)).length, 1);
      // The prover's own claims inside its domain are fine; a second proof keeps the first time.
      assert.ok(await site(c, b.id, ['shop.example.org'], { hostnamePatterns: ['*.eu.example.org'] }));
      assert.deepEqual(await c.markDomainVerified(b.id, 'example.org'), { verifiedAt });
    }),
  );

  test(
    `${name}: a proof releases the exact hostnames other workspaces registered inside the domain`,
    withCatalog(async (c, clock) => {
      const owner = await c.createWorkspace({ name: 'Owner', plan: 'pro' });
      const squatter = await c.createWorkspace({ name: 'Squatter', plan: 'pro' });
      const taken = await site(c, squatter.id, [
        'shop.example.com',
        'elsewhere.example.org',
        'www.shop.example.com',
        'example.com',
        'notexample.com',
      ]);
      const own = await site(c, owner.id, ['blog.example.com'], { domainScope: 'example.com' });
      assert.equal(await found(c, 'shop.example.com'), taken.id, 'first come, until proven');
      clock.advance(60_000);
      await c.markDomainVerified(owner.id, 'example.com');
      const at = '2025-03-01T10:01:00.000Z';
      assert.deepEqual((await c.getSite(taken.id))!.hostnames, ['elsewhere.example.org', 'notexample.com']);
      assert.deepEqual((await c.getSiteOwnership(taken.id))!.releasedHostnames, [
        { hostname: 'example.com', releasedAt: at },
        { hostname: 'shop.example.com', releasedAt: at },
        { hostname: 'www.shop.example.com', releasedAt: at },
      ]);
      assert.deepEqual((await c.getSite(own.id))!.hostnames, ['blog.example.com'], "the prover's own hostnames stay");
      assert.deepEqual(
        (await c.getSiteOwnership(own.id))!.domains.map((d) => [d.verifiedAt, d.claimedElsewhere]),
        [[at, false]],
      );
      for (const h of ['shop.example.com', 'www.shop.example.com', 'example.com']) assert.equal(await found(c, h), own.id, h);
      assert.equal(await found(c, 'elsewhere.example.org'), taken.id);
      assert.equal(await found(c, 'notexample.com'), taken.id);
      await assert.rejects(c.updateSite(taken.id, { hostnames: ['shop.example.com'] }), refusal('SITE_SCOPE_ALREADY_CLAIMED'));
      // The squatter, had it asked for the domain too, sees that another workspace proved it.
      const asked = await site(c, squatter.id, ['s2.example.net'], { hostnamePatterns: [] });
      await assert.rejects(c.updateSite(asked.id, { domainScope: 'example.com' }), refusal('SITE_SCOPE_ALREADY_CLAIMED'));
    }),
  );

  test(
    `${name}: collection finds the exact hostname, then the longest proven pattern, then the proven scope`,
    withCatalog(async (c) => {
      const a = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const b = await c.createWorkspace({ name: 'B', plan: 'pro' });
      const scoped = await site(c, a.id, ['example.com'], { domainScope: 'example.com' });
      const shop = await site(c, a.id, ['shop-exact.example.net'], { hostnamePatterns: ['*.shop.example.com'] });
      const eu = await site(c, a.id, ['eu-exact.example.net'], { hostnamePatterns: ['*.eu.shop.example.com'] });
      const exact = await site(c, a.id, ['special.eu.shop.example.com']);
      const rival = await site(c, b.id, ['rival.example.net'], { domainScope: 'example.com', hostnamePatterns: ['*.zzz.example.com'] });

      const before = ['a.shop.example.com', 'x.eu.shop.example.com', 'deep.a.example.com', 'q.zzz.example.com'];
      for (const h of before) assert.equal(await found(c, h), null, `${h}: nothing collects before the proof`);
      assert.equal(await found(c, 'example.com'), scoped.id, 'exact hostnames need no proof');

      await c.markDomainVerified(a.id, 'example.com');
      const expect: Array<[string, string | null]> = [
        ['a.shop.example.com', shop.id],
        ['A.B.Shop.Example.COM', shop.id],
        ['shop.example.com', scoped.id], // a pattern needs a label in front of its suffix
        ['x.eu.shop.example.com', eu.id],
        ['y.x.eu.shop.example.com', eu.id],
        ['eu.shop.example.com', shop.id],
        ['special.eu.shop.example.com', exact.id],
        ['www.special.eu.shop.example.com', exact.id],
        ['deep.a.example.com', scoped.id],
        ['www.example.com', scoped.id],
        ['q.zzz.example.com', scoped.id], // the rival's pattern waits for a proof it cannot get
        ['rival.example.net', rival.id],
        ['example.com.evil', null],
        ['notexample.com', null],
        ['com', null],
        ['', null],
        ["x' or '1'='1.example.com", null],
      ];
      for (const [h, id] of expect) assert.equal(await found(c, h), id, h);
      assert.deepEqual(await c.findSiteByHostname('deep.a.example.com'), await c.getSite(scoped.id));
      assert.deepEqual(
        (await c.getSiteOwnership(rival.id))!.domains.map((d) => [d.verifiedAt, d.claimedElsewhere]),
        [[null, true]],
      );
    }),
  );

  test(
    `${name}: racing proofs leave one owner, and a claim racing a proof never outlives it`,
    withCatalog(async (c) => {
      const wss = await Promise.all([1, 2, 3, 4].map((i) => c.createWorkspace({ name: `W${i}`, plan: 'pro' })));
      await Promise.all(wss.map((w, i) => site(c, w.id, [`w${i}.example.net`], { domainScope: 'race.com' })));
      const proofs = await Promise.allSettled(wss.map((w) => c.markDomainVerified(w.id, 'race.com')));
      assert.equal(proofs.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of proofs) if (r.status === 'rejected') isCatalogError('SITE_SCOPE_ALREADY_CLAIMED')(r.reason);

      const [prover, claimer] = wss;
      for (let i = 0; i < 4; i++) {
        const domain = `race${i}.org`;
        const scoped = await site(c, prover.id, [`p.${domain}`], { domainScope: domain });
        const [, claim] = await Promise.allSettled([c.markDomainVerified(prover.id, domain), site(c, claimer.id, [`shop.${domain}`])]);
        if (claim.status === 'rejected') isCatalogError('SITE_SCOPE_ALREADY_CLAIMED')(claim.reason);
        assert.equal(await found(c, `shop.${domain}`), scoped.id, `${domain}: the proof wins whichever came first`);
      }
    }),
  );
}
