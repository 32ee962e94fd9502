// The CatalogStore management suite (list, update, delete, rotate): every implementation must pass it unchanged.
import { skippable } from '../helpers/services.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { CatalogStore } from '../../src/ports/catalog-store.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { catalogTest, isCatalogError, type CatalogFactory } from './catalog-store.contract.js';

export function runCatalogManagementContract(name: string, factory: CatalogFactory, opts: { skip?: string | false } = {}): void {
  // a suite that cannot run here lists each of its tests as skipped, with the reason
  const test = skippable(opts.skip);
  const withCatalog = catalogTest(factory);
  const site = (c: CatalogStore, workspaceId: string, hostnames: string[], extra: Record<string, unknown> = {}) =>
    c.createSite({ workspaceId, name: 'Site', hostnames, collectionProfile: 'strict', ...extra });

  test(
    `${name}: workspaces are listed oldest first and updated in place`,
    withCatalog(async (c, clock) => {
      const a = await c.createWorkspace({ name: 'A', plan: 'starter' });
      clock.advance(1);
      const b = await c.createWorkspace({ name: 'B', plan: 'enterprise', apiPolicy: { hard_cap_units: 100 } });
      assert.deepEqual(
        (await c.listWorkspaces()).map((w) => w.id),
        [a.id, b.id],
      );

      assert.deepEqual(await c.updateWorkspace(a.id, { plan: 'pro', name: ' A2 ' }), { ...a, name: 'A2', plan: 'pro' });
      assert.deepEqual(await c.getWorkspace(a.id), { ...a, name: 'A2', plan: 'pro' });
      const upgraded = await c.updateWorkspace(a.id, { plan: 'enterprise', apiPolicy: { rate_limit_rps: 1 } });
      assert.deepEqual(upgraded.apiPolicy, { rate_limit_rps: 1 });
      assert.deepEqual(
        (await c.updateWorkspace(b.id, { apiPolicy: { allow_reports: false } })).apiPolicy,
        { allow_reports: false },
        'replaced whole',
      );
      assert.deepEqual(
        await c.updateWorkspace(b.id, { plan: 'starter' }),
        { ...b, plan: 'starter', apiPolicy: {} },
        'overrides leave with enterprise',
      );

      await assert.rejects(c.updateWorkspace('ws_missing', { plan: 'pro' }), isCatalogError('NOT_FOUND'));
      await assert.rejects(c.updateWorkspace(a.id, { plan: 'gold' as 'pro' }), isCatalogError('INVALID'));
      await assert.rejects(
        c.updateWorkspace(a.id, { plan: 'pro', apiPolicy: { hard_cap_units: 5 } }),
        isCatalogError('INVALID', /enterprise/),
      );
      await assert.rejects(c.updateWorkspace(a.id, { apiPolicy: { bogus: 1 } as object }), isCatalogError('INVALID'));
      await assert.rejects(c.updateWorkspace(a.id, {}), isCatalogError('INVALID', /nothing to change/));
      assert.deepEqual((await c.getWorkspace(a.id))?.apiPolicy, { rate_limit_rps: 1 }, 'refused updates changed nothing');
    }),
  );

  test(
    `${name}: every change of plan or api policy is kept with its time; the creation is the first`,
    withCatalog(async (c, clock) => {
      const a = await c.createWorkspace({ name: 'A', plan: 'starter' });
      const created = a.createdAt;
      clock.advance(1000);
      await c.updateWorkspace(a.id, { plan: 'enterprise', apiPolicy: { hard_cap_units: 10 } });
      const upgraded = clock.now().toISOString();
      clock.advance(1000);
      await c.updateWorkspace(a.id, { name: 'A2' });
      await c.updateWorkspace(a.id, { apiPolicy: { hard_cap_units: 10 } }); // the same policy: no change
      await assert.rejects(c.updateWorkspace(a.id, { plan: 'pro', apiPolicy: { hard_cap_units: 5 } }), isCatalogError('INVALID'));
      clock.advance(1000);
      await c.updateWorkspace(a.id, { plan: 'pro' });
      assert.deepEqual(
        (await c.planHistory(a.id)).map((p) => [p.effectiveAt, p.plan, p.apiPolicy]),
        [
          [created, 'starter', {}],
          [upgraded, 'enterprise', { hard_cap_units: 10 }],
          [clock.now().toISOString(), 'pro', {}],
        ],
      );
      assert.deepEqual(await c.planHistory('ws_missing'), []);
    }),
  );

  test(
    `${name}: site name, status and hostnames change; ownership rules still hold`,
    withCatalog(async (c) => {
      const a = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const b = await c.createWorkspace({ name: 'B', plan: 'pro' });
      const s1 = await site(c, a.id, ['one.example.com', 'www.one.example.com']);
      const s2 = await site(c, a.id, ['two.example.com']);
      const foreign = await site(c, b.id, ['theirs.example.org']);

      const moved = await c.updateSite(s1.id, { name: 'One', status: 'SUSPENDED', hostnames: ['NEW.example.com', 'one.example.com'] });
      assert.deepEqual([moved.name, moved.status, moved.hostnames], ['One', 'SUSPENDED', ['new.example.com', 'one.example.com']]);
      assert.deepEqual(await c.getSite(s1.id), moved);
      // The hostname it gave up is free again, for anyone.
      assert.deepEqual((await site(c, b.id, ['www.one.example.com'])).hostnames, ['www.one.example.com']);

      await assert.rejects(c.updateSite(s1.id, { hostnames: ['theirs.example.org'] }), (err: unknown) => {
        isCatalogError('SITE_SCOPE_ALREADY_CLAIMED')(err);
        assert.ok(!(err as Error).message.includes(b.id) && !(err as Error).message.includes(foreign.id));
        return true;
      });
      await assert.rejects(c.updateSite(s1.id, { hostnames: ['two.example.com'] }), isCatalogError('CONFLICT', new RegExp(s2.id)));
      await assert.rejects(c.updateSite(s1.id, { hostnames: ['bad host'] }), isCatalogError('INVALID_SITE_HOSTNAME'));
      await assert.rejects(c.updateSite(s1.id, { hostnames: [] }), isCatalogError('INVALID_SITE_HOSTNAME'));
      await assert.rejects(c.updateSite(s1.id, { status: 'GONE' as 'ACTIVE' }), isCatalogError('INVALID'));
      await assert.rejects(c.updateSite('site_missing', { name: 'x' }), isCatalogError('NOT_FOUND'));
      await assert.rejects(c.updateSite(s1.id, {}), isCatalogError('INVALID'));
      assert.deepEqual(await c.getSite(s1.id), moved, 'refused updates changed nothing');
      assert.deepEqual((await c.getSite(s2.id))?.hostnames, ['two.example.com']);
    }),
  );

  test(
    `${name}: a profile change is prospective: now by default, later if asked, never earlier`,
    withCatalog(async (c, clock) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const s = await site(c, ws.id, ['p.example.com']);
      clock.advance(60_000);
      const now = clock.now().toISOString();
      const ext = await c.updateSite(s.id, { collectionProfile: 'extended' });
      assert.deepEqual([ext.collectionProfile, ext.profileEffectiveAt], ['extended', now]);
      assert.deepEqual(await c.updateSite(s.id, { collectionProfile: 'extended' }), ext, 'the same profile again changes nothing');

      await assert.rejects(
        c.updateSite(s.id, { collectionProfile: 'strict', profileEffectiveAt: '2025-03-01T09:00:00Z' }),
        isCatalogError('INVALID', /in the past/),
      );
      await assert.rejects(
        c.updateSite(s.id, { profileEffectiveAt: '2025-04-01T00:00:00Z' }),
        isCatalogError('INVALID', /already extended/),
      );

      // Scheduled: the old profile applies until then, and the instant can still be moved.
      const planned = await c.updateSite(s.id, { collectionProfile: 'strict', profileEffectiveAt: '2025-04-01T02:00:00+02:00' });
      assert.deepEqual([planned.collectionProfile, planned.profileEffectiveAt], ['strict', '2025-04-01T00:00:00.000Z']);
      assert.equal(
        (await c.updateSite(s.id, { profileEffectiveAt: '2025-05-01T00:00:00Z' })).profileEffectiveAt,
        '2025-05-01T00:00:00.000Z',
      );
      await assert.rejects(c.updateSite(s.id, { collectionProfile: 'extended' }), isCatalogError('CONFLICT', /scheduled/));
      await assert.rejects(c.updateSite(s.id, { profileEffectiveAt: 'tomorrow' }), isCatalogError('INVALID', /ISO 8601/));
      await assert.rejects(c.updateSite(s.id, { collectionProfile: 'loose' as 'strict' }), isCatalogError('INVALID'));

      clock.set('2025-05-01T00:00:00Z');
      const back = await c.updateSite(s.id, { collectionProfile: 'extended' });
      assert.deepEqual(
        [back.collectionProfile, back.profileEffectiveAt],
        ['extended', '2025-05-01T00:00:00.000Z'],
        'once in force, it can switch again',
      );
    }),
  );

  test(
    `${name}: tenants change slug, name and status; a slug stays unique in its site`,
    withCatalog(async (c) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const s = await site(c, ws.id, ['t.example.com']);
      const north = await c.createTenant({ siteId: s.id, slug: 'north', name: 'North' });
      await c.createTenant({ siteId: s.id, slug: 'south', name: 'South' });
      const changed = await c.updateTenant(north.id, { slug: 'nord', name: 'Nord', status: 'INACTIVE' });
      assert.deepEqual(changed, { ...north, slug: 'nord', name: 'Nord', status: 'INACTIVE' });
      assert.deepEqual(await c.getTenant(north.id), changed);
      await assert.rejects(c.updateTenant(north.id, { slug: 'south' }), isCatalogError('CONFLICT', /"south"/));
      await assert.rejects(c.updateTenant(north.id, { slug: 'Bad Slug' }), isCatalogError('INVALID'));
      await assert.rejects(c.updateTenant(north.id, { status: 'ON' as 'ACTIVE' }), isCatalogError('INVALID'));
      await assert.rejects(c.updateTenant('ten_missing', { name: 'x' }), isCatalogError('NOT_FOUND'));
      assert.deepEqual(await c.getTenant(north.id), changed);
    }),
  );

  test(
    `${name}: goals are updated under the create rules and deleted`,
    withCatalog(async (c, clock) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const s = await site(c, ws.id, ['g.example.com']);
      const g = await c.createGoal({
        siteId: s.id,
        name: 'Lead',
        type: 'EVENT_MATCH',
        intent: 'lead',
        pattern: 'form.submit',
        filters: { form_id: 'contact' },
      });
      const renamed = await c.updateGoal(g.id, { name: 'Contact' });
      assert.deepEqual(
        renamed,
        { ...g, name: 'Contact', updatedAt: '2025-03-01T10:00:00.001Z' },
        'updatedAt moves even within one millisecond',
      );
      assert.deepEqual(await c.getGoal(g.id), renamed);
      clock.advance(5_000);
      await assert.rejects(
        c.updateGoal(g.id, { type: 'PAGEVIEW_MATCH', pattern: '/thanks' }),
        isCatalogError('INVALID', /EVENT_MATCH goals only/),
      );
      const page = await c.updateGoal(g.id, { type: 'PAGEVIEW_MATCH', pattern: '/thanks', filters: {} });
      assert.deepEqual(
        [page.type, page.pattern, page.filters, page.updatedAt],
        ['PAGEVIEW_MATCH', '/thanks', {}, '2025-03-01T10:00:05.000Z'],
      );
      await assert.rejects(c.updateGoal(g.id, { pattern: 'thanks' }), isCatalogError('INVALID', /must start with/));
      await assert.rejects(c.updateGoal(g.id, { intent: 'fun' as 'lead' }), isCatalogError('INVALID'));
      await assert.rejects(c.updateGoal('goal_missing', { name: 'x' }), isCatalogError('NOT_FOUND'));
      assert.deepEqual(await c.getGoal(g.id), page);

      assert.equal(await c.deleteGoal(g.id), true);
      assert.equal(await c.deleteGoal(g.id), false);
      assert.equal(await c.getGoal(g.id), null);
      assert.deepEqual(await c.listGoals(s.id), []);
    }),
  );

  test(
    `${name}: tokens are listed without secrets and rotated in place`,
    withCatalog(async (c, clock) => {
      const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
      const other = await c.createWorkspace({ name: 'B', plan: 'pro' });
      const s = await site(c, ws.id, ['k.example.com']);
      const oldSecret = generateSecret(randomBytes);
      const t1 = await c.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], siteIds: [s.id], secretHash: hashSecret(oldSecret) });
      clock.advance(1);
      const t2Secret = generateSecret(randomBytes);
      const t2 = await c.createToken({ workspaceId: ws.id, scopes: ['usage:read'], secretHash: hashSecret(t2Secret) });
      await c.createToken({ workspaceId: other.id, scopes: ['usage:read'], secretHash: hashSecret(generateSecret(randomBytes)) });
      await c.revokeToken(t2.id, '2025-03-01T11:00:00Z');

      const listed = await c.listTokens(ws.id);
      assert.deepEqual(
        listed.map((t) => [t.id, t.revokedAt]),
        [
          [t1.id, null],
          [t2.id, '2025-03-01T11:00:00.000Z'],
        ],
      );
      assert.ok(!JSON.stringify(listed).includes(hashSecret(oldSecret)), 'no hash in a listed token');
      assert.deepEqual(await c.getToken(t1.id), t1);

      clock.advance(60_000);
      const newSecret = generateSecret(randomBytes);
      const rotated = await c.rotateToken(t1.id, hashSecret(newSecret));
      assert.deepEqual(rotated, { ...t1, rotatedAt: '2025-03-01T10:01:00.001Z' }, 'same id, scopes and allowlists');
      assert.equal(await c.findTokenByHash(hashSecret(oldSecret)), null, 'the old secret is gone');
      assert.deepEqual(await c.findTokenByHash(hashSecret(newSecret)), rotated);

      await assert.rejects(c.rotateToken(t2.id, hashSecret(generateSecret(randomBytes))), isCatalogError('INVALID', /revoked/));
      await assert.rejects(c.rotateToken('tok_missing', hashSecret(generateSecret(randomBytes))), isCatalogError('NOT_FOUND'));
      await assert.rejects(c.rotateToken(t1.id, 'not-a-hash'), isCatalogError('INVALID'));
      await assert.rejects(c.rotateToken(t1.id, hashSecret(t2Secret)), isCatalogError('CONFLICT'));
      assert.deepEqual(await c.findTokenByHash(hashSecret(newSecret)), rotated, 'refused rotations changed nothing');
      assert.deepEqual(await c.listTokens('ws_missing'), []);
    }),
  );
}
