// The daily purge's lease: of two processes on one control plane, one runs a turn and the other skips it;
// a failing site is logged without the URL's credentials and the run goes on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';
import { FakeClock } from '../../src/domain/clock.js';
import { startDailyPurge, PURGE_LEASE } from '../../src/services/lifecycle/daily-purge.js';
import { removedData, type RemovedData } from '../../src/ports/event-store.js';
import type { LifecycleStore } from '../../src/services/lifecycle/lifecycle-deps.js';

test('one process at a time runs the daily purge; failures are logged without secrets and the other sites go on', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-daily-purge-'));
  const clock = new FakeClock(Date.parse('2026-11-25T03:00:00Z'));
  const cp = await openSqliteControlPlane(path.join(dir, 'control.sqlite'), { clock });
  try {
    const ws = await cp.catalog.createWorkspace({ name: 'A', plan: 'pro' });
    const a = await cp.catalog.createSite({ workspaceId: ws.id, name: 'A', hostnames: ['a.example.com'], collectionProfile: 'strict', profileEffectiveAt: null });
    const b = await cp.catalog.createSite({ workspaceId: ws.id, name: 'B', hostnames: ['b.example.com'], collectionProfile: 'strict', profileEffectiveAt: null });
    const asked: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const store = {
      purgeDays: async (site: string, before: string): Promise<RemovedData> => {
        asked.push(`${site} ${before}`);
        await gate;
        if (site === b.id) throw new Error('connect ECONNREFUSED clickhouse+http://user:hunter2@db:8123');
        return removedData([{ day: '2024-10-24', events: 5 }]);
      },
    } as unknown as LifecycleStore;
    const lines: string[] = [];
    const log = { info: (_o: object, m?: string) => lines.push(`info ${m}`), error: (o: object, m?: string) => lines.push(`error ${JSON.stringify(o)} ${m}`) };
    const deps = { catalog: cp.catalog, lifecycle: cp.lifecycle, store, clock };
    const one = startDailyPurge(deps, { log, firstDelayMs: 3_600_000 });
    const two = startDailyPurge(deps, { log, firstDelayMs: 3_600_000 });
    try {
      const first = one.runOnce();
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(await two.runOnce(), false, 'the second process skips while the first holds the lease');
      release();
      assert.equal(await first, true);
      assert.deepEqual(asked.sort(), [`${a.id} 2024-10-25`, `${b.id} 2024-10-25`].sort(), 'the boundary of pro on 2026-11-25');
      assert.ok(lines.some((l) => l.startsWith('error') && l.includes(b.id) && l.includes('next run retries')));
      assert.ok(!lines.join('\n').includes('hunter2'), 'no secret in the log');
      assert.equal(await two.runOnce(), true, 'the lease was given back');
      assert.equal(await cp.lifecycle.takeLease(PURGE_LEASE, 'other', 1000), true);
      assert.equal(await cp.lifecycle.takeLease(PURGE_LEASE, 'third', 1000), false, 'held until it expires');
      clock.advance(1001);
      assert.equal(await cp.lifecycle.takeLease(PURGE_LEASE, 'third', 1000), true, 'a holder that died lets the next one in');
    } finally {
      one.stop();
      two.stop();
    }
  } finally {
    await cp.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
