// The saved funnels of the CatalogStore (create, list, get, update, delete): every implementation must
// pass it unchanged (SQLite in catalog-store.test.ts, PostgreSQL in catalog-store.postgres.test.ts).
import assert from 'node:assert/strict';
import type { FunnelStep } from '../../src/domain/funnels.js';
import type { CatalogStore } from '../../src/ports/catalog-store.js';
import { skippable } from '../helpers/services.js';
import { catalogTest, isCatalogError, type CatalogFactory } from './catalog-store.contract.js';

const T0 = '2025-03-01T10:00:00.000Z';
const PRICING: FunnelStep = { kind: 'page', pattern: '/pricing*' };
const SIGNUP: FunnelStep = { kind: 'event', name: 'Signup' };
const THANKS: FunnelStep = { kind: 'page', pattern: '/thanks' };

export function runCatalogFunnelsContract(name: string, factory: CatalogFactory, opts: { skip?: string | false } = {}): void {
  const test = skippable(opts.skip);
  const withCatalog = catalogTest(factory);
  const siteOf = async (c: CatalogStore, hostname: string) => {
    const ws = await c.createWorkspace({ name: 'A', plan: 'pro' });
    return c.createSite({ workspaceId: ws.id, name: 'Site', hostnames: [hostname], collectionProfile: 'extended' });
  };

  test(
    `${name}: funnels round-trip with their steps in order, listed oldest first, by site`,
    withCatalog(async (c, clock) => {
      const s = await siteOf(c, 'one.example.com');
      const other = await siteOf(c, 'two.example.com');
      const a = await c.createFunnel({ siteId: s.id, name: ' Pricing to signup ', steps: [PRICING, SIGNUP] });
      clock.advance(1);
      const b = await c.createFunnel({ siteId: s.id, name: 'Whole', steps: [PRICING, SIGNUP, THANKS] });
      await c.createFunnel({ siteId: other.id, name: 'Elsewhere', steps: [SIGNUP, THANKS] });
      assert.match(a.id, /^funnel_[0-9A-Za-z]{22}$/);
      assert.deepEqual(a, {
        id: a.id,
        siteId: s.id,
        workspaceId: s.workspaceId,
        name: 'Pricing to signup',
        steps: [PRICING, SIGNUP],
        createdAt: T0,
        updatedAt: T0,
      });
      assert.deepEqual(await c.listFunnels(s.id), [a, b]);
      assert.deepEqual(await c.getFunnel(b.id), b);
      assert.equal(await c.getFunnel('funnel_missing'), null);
      assert.deepEqual(await c.listFunnels('site_missing'), []);
    }),
  );

  test(
    `${name}: a funnel changes its name or steps (checked like a new one, updatedAt moving on) and is deleted`,
    withCatalog(async (c, clock) => {
      const s = await siteOf(c, 'one.example.com');
      const f = await c.createFunnel({ siteId: s.id, name: 'F', steps: [PRICING, SIGNUP] });
      const renamed = await c.updateFunnel(f.id, { name: 'G' });
      assert.deepEqual(renamed, { ...f, name: 'G', updatedAt: '2025-03-01T10:00:00.001Z' }, 'updatedAt moves within one millisecond');
      clock.advance(5000);
      const longer = await c.updateFunnel(f.id, { steps: [PRICING, SIGNUP, THANKS] });
      assert.deepEqual(longer.steps, [PRICING, SIGNUP, THANKS]);
      assert.equal(longer.updatedAt, '2025-03-01T10:00:05.000Z');
      assert.deepEqual(await c.getFunnel(f.id), longer);
      await assert.rejects(c.updateFunnel(f.id, {}), isCatalogError('INVALID', /nothing to change/));
      await assert.rejects(c.updateFunnel(f.id, { steps: [PRICING] }), isCatalogError('INVALID', /2 to 8/));
      await assert.rejects(c.updateFunnel('funnel_missing', { name: 'X' }), isCatalogError('NOT_FOUND'));
      assert.deepEqual(await c.getFunnel(f.id), longer, 'refused changes changed nothing');
      assert.equal(await c.deleteFunnel(f.id), true);
      assert.equal(await c.deleteFunnel(f.id), false);
      assert.deepEqual(await c.listFunnels(s.id), []);
    }),
  );

  test(
    `${name}: bad funnel input is refused, naming the step`,
    withCatalog(async (c) => {
      const s = await siteOf(c, 'one.example.com');
      const ok = { siteId: s.id, name: 'F', steps: [PRICING, SIGNUP] };
      await assert.rejects(c.createFunnel({ ...ok, siteId: 'site_missing' }), isCatalogError('NOT_FOUND'));
      const bad: [Partial<typeof ok>, RegExp][] = [
        [{ name: '' }, /funnel name/],
        [{ name: 'x'.repeat(1000) }, /funnel name/],
        [{ steps: [PRICING] }, /2 to 8/],
        [{ steps: Array.from({ length: 9 }, (_, i) => ({ kind: 'page' as const, pattern: `/p${i}` })) }, /2 to 8/],
        [{ steps: [PRICING, { kind: 'page', pattern: 'pricing' }] }, /steps\[1\].*start with "\/"/],
        [{ steps: [PRICING, { kind: 'event', name: '' }] }, /steps\[1\]/],
        [{ steps: [PRICING, { kind: 'event', name: 'a\u0000b' }] }, /steps\[1\]/],
        [{ steps: [SIGNUP, SIGNUP] }, /repeats/],
        [{ steps: [PRICING, { kind: 'click', name: 'x' } as unknown as FunnelStep] }, /steps\[1\]/],
      ];
      for (const [patch, message] of bad)
        await assert.rejects(c.createFunnel({ ...ok, ...patch }), isCatalogError('INVALID', message), JSON.stringify(patch));
      assert.deepEqual(await c.listFunnels(s.id), []);
    }),
  );
}
