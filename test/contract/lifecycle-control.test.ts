// The control plane's lifecycle side on SQLite and, with FOOTFALL_TEST_POSTGRES_URL, PostgreSQL: removing a
// site or a workspace in one transaction with its pending deletion, finishing it, and the job lease.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSqliteControlPlane, type ControlPlane } from '../../src/control/sqlite/open.js';
import { openPostgresControlPlane } from '../../src/control/postgres/open.js';
import { FakeClock } from '../../src/domain/clock.js';
import { hashSecret } from '../../src/domain/tokens.js';
import { scratchDatabase } from '../http/helpers/stack.js';
import { needs } from '../helpers/services.js';

const pgUrl = process.env.FOOTFALL_TEST_POSTGRES_URL || undefined;

const dialects: { name: string; open(clock: FakeClock): Promise<{ cp: ControlPlane; release(): Promise<void> }>; skip?: string }[] = [
  {
    name: 'SQLite',
    open: async (clock) => {
      const cp = await openSqliteControlPlane(':memory:', { clock });
      return { cp, release: () => cp.close() };
    },
  },
  {
    name: 'PostgreSQL',
    skip: needs('FOOTFALL_TEST_POSTGRES_URL') || undefined,
    open: async (clock) => {
      const db = await scratchDatabase(pgUrl!);
      const cp = await openPostgresControlPlane(db.url, { clock });
      return {
        cp,
        release: async () => {
          await cp.close();
          await db.drop();
        },
      };
    },
  },
];

for (const d of dialects) {
  test(`${d.name}: a site removal frees its hostnames and leaves a pending deletion until finished`, { skip: d.skip }, async () => {
    const clock = new FakeClock(Date.parse('2026-11-25T10:00:00Z'));
    const { cp, release } = await d.open(clock);
    try {
      const ws = await cp.catalog.createWorkspace({ name: 'A', plan: 'pro' });
      const site = await cp.catalog.createSite({
        workspaceId: ws.id,
        name: 'S',
        hostnames: ['s.example.com'],
        collectionProfile: 'strict',
        profileEffectiveAt: null,
      });
      await cp.catalog.createTenant({ siteId: site.id, slug: 'north', name: 'North' });
      await cp.catalog.createGoal({ siteId: site.id, name: 'G', type: 'PAGEVIEW_MATCH', intent: 'lead', pattern: '/thanks', filters: {} });
      const funnel = await cp.catalog.createFunnel({
        siteId: site.id,
        name: 'F',
        steps: [
          { kind: 'page', pattern: '/pricing' },
          { kind: 'page', pattern: '/thanks' },
        ],
      });
      const link = await cp.embeds.createShareLink({
        siteId: site.id,
        tenantId: null,
        slugHash: hashSecret('slug'),
        passwordHash: null,
        expiresAt: null,
      });
      const pending = await cp.lifecycle.removeSite(site.id);
      assert.equal(await cp.embeds.getShareLink(link.id), null, 'its share links go with it');
      assert.equal(await cp.catalog.getFunnel(funnel.id), null, 'its saved funnels too');
      assert.deepEqual(pending, { siteId: site.id, workspaceId: ws.id, requestedAt: '2026-11-25T10:00:00.000Z' });
      assert.equal(await cp.catalog.getSite(site.id), null);
      assert.equal(await cp.catalog.findSiteByHostname('s.example.com'), null);
      assert.deepEqual(await cp.lifecycle.removeSite(site.id), pending, 'a second removal answers the pending deletion');
      assert.deepEqual(await cp.lifecycle.pendingSiteDeletions(), [pending]);
      await cp.lifecycle.finishSiteDeletion(site.id);
      assert.deepEqual(await cp.lifecycle.pendingSiteDeletions(), []);
      assert.equal(await cp.lifecycle.removeSite(site.id), null);
      const again = await cp.catalog.createSite({
        workspaceId: ws.id,
        name: 'S2',
        hostnames: ['s.example.com'],
        collectionProfile: 'strict',
        profileEffectiveAt: null,
      });
      assert.ok(again.id);
    } finally {
      await release();
    }
  });

  test(`${d.name}: a workspace removal takes its sites, members, invitations, tokens, embed keys, share links, plan history and usage in one go`, {
    skip: d.skip,
  }, async () => {
    const clock = new FakeClock(Date.parse('2026-11-25T10:00:00Z'));
    const { cp, release } = await d.open(clock);
    try {
      const ws = await cp.catalog.createWorkspace({ name: 'A', plan: 'pro' });
      const other = await cp.catalog.createWorkspace({ name: 'B', plan: 'pro' });
      const sites = [];
      for (const h of ['a.example.com', 'b.example.com'])
        sites.push(
          await cp.catalog.createSite({
            workspaceId: ws.id,
            name: h,
            hostnames: [h],
            collectionProfile: 'strict',
            profileEffectiveAt: null,
            domainScope: h === 'a.example.com' ? 'example.com' : undefined,
          }),
        );
      await cp.catalog.markDomainVerified(ws.id, 'example.com');
      const user = await cp.people.createUser({ email: 'o@example.com' });
      await cp.people.addMember({ workspaceId: ws.id, userId: user.id, role: 'owner' });
      await cp.people.addMember({ workspaceId: other.id, userId: user.id, role: 'owner' });
      await cp.catalog.createToken({
        workspaceId: ws.id,
        secretHash: hashSecret('x'),
        scopes: ['metrics:read'],
        siteIds: null,
        tenantIds: null,
      });
      // embed keys, share links and the plan history name the workspace and its sites too (foreign keys on PostgreSQL)
      const key = await cp.embeds.createEmbedKey({ workspaceId: ws.id, origins: ['https://app.example.com'] });
      const link = await cp.embeds.createShareLink({
        siteId: sites[0].id,
        tenantId: null,
        slugHash: hashSecret('slug'),
        passwordHash: null,
        expiresAt: null,
      });
      await cp.catalog.updateWorkspace(ws.id, { plan: 'starter' });
      const pending = await cp.lifecycle.removeWorkspace(ws.id);
      assert.equal(await cp.embeds.getEmbedKey(key.id), null);
      assert.equal(await cp.embeds.getShareLink(link.id), null);
      assert.deepEqual(pending?.map((p) => p.siteId).sort(), sites.map((s) => s.id).sort());
      assert.equal(await cp.catalog.getWorkspace(ws.id), null);
      assert.deepEqual(await cp.catalog.listTokens(ws.id), []);
      assert.ok(await cp.catalog.getWorkspace(other.id), 'other workspaces stay');
      // the domain it proved can be proved by another workspace
      await cp.catalog.createSite({
        workspaceId: other.id,
        name: 'B',
        hostnames: ['www.example.com'],
        collectionProfile: 'strict',
        profileEffectiveAt: null,
        domainScope: 'example.com',
      });
      await cp.catalog.markDomainVerified(other.id, 'example.com');
      assert.deepEqual((await cp.lifecycle.removeWorkspace(ws.id))?.length, 2, 'a re-run answers what is still pending');
      for (const p of pending!) await cp.lifecycle.finishSiteDeletion(p.siteId);
      assert.equal(await cp.lifecycle.removeWorkspace(ws.id), null);
    } finally {
      await release();
    }
  });

  test(`${d.name}: a job lease is held by one owner until it is released or expires`, { skip: d.skip }, async () => {
    const clock = new FakeClock(Date.parse('2026-11-25T10:00:00Z'));
    const { cp, release } = await d.open(clock);
    try {
      assert.equal(await cp.lifecycle.takeLease('job', 'a', 60_000), true);
      assert.equal(await cp.lifecycle.takeLease('job', 'b', 60_000), false);
      assert.equal(await cp.lifecycle.takeLease('job', 'a', 60_000), true, 'its holder renews it');
      await cp.lifecycle.releaseLease('job', 'b');
      assert.equal(await cp.lifecycle.takeLease('job', 'b', 60_000), false, 'only the holder gives it back');
      await cp.lifecycle.releaseLease('job', 'a');
      assert.equal(await cp.lifecycle.takeLease('job', 'b', 60_000), true);
      clock.advance(60_001);
      assert.equal(await cp.lifecycle.takeLease('job', 'c', 60_000), true, 'an expired lease is free');
      const racers = await Promise.all(['d', 'e', 'f'].map((o) => cp.lifecycle.takeLease('job2', o, 60_000)));
      assert.equal(racers.filter(Boolean).length, 1, 'of owners racing, one gets it');
    } finally {
      await release();
    }
  });
}
