// The daily purge's lease: of two processes on one control plane, one runs a turn and the other skips it;
// a failing site is logged without the URL's credentials and the run goes on. Its schedule, on fake time.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';
import { FakeClock } from '../../src/domain/clock.js';
import { startDailyPurge, PURGE_LEASE } from '../../src/services/lifecycle/daily-purge.js';
import { removedData, type RemovedData } from '../../src/ports/event-store.js';
import type { LifecycleStore } from '../../src/services/lifecycle/lifecycle-deps.js';
import { until } from '../helpers/until.js';

test('one process at a time runs the daily purge; failures are logged without secrets and the other sites go on', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-daily-purge-'));
  const clock = new FakeClock(Date.parse('2026-11-25T03:00:00Z'));
  const cp = await openSqliteControlPlane(path.join(dir, 'control.sqlite'), { clock });
  try {
    const ws = await cp.catalog.createWorkspace({ name: 'A', plan: 'pro' });
    const a = await cp.catalog.createSite({
      workspaceId: ws.id,
      name: 'A',
      hostnames: ['a.example.com'],
      collectionProfile: 'strict',
      profileEffectiveAt: null,
    });
    const b = await cp.catalog.createSite({
      workspaceId: ws.id,
      name: 'B',
      hostnames: ['b.example.com'],
      collectionProfile: 'strict',
      profileEffectiveAt: null,
    });
    const asked: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let entered: () => void = () => {};
    const purging = new Promise<void>((r) => (entered = r));
    const store = {
      purgeDays: async (site: string, before: string): Promise<RemovedData> => {
        asked.push(`${site} ${before}`);
        entered();
        await gate;
        if (site === b.id) throw new Error('connect ECONNREFUSED clickhouse+http://user:hunter2@db:8123');
        return removedData([{ day: '2024-10-24', events: 5 }]);
      },
    } as unknown as LifecycleStore;
    const lines: string[] = [];
    const log = {
      info: (_o: object, m?: string) => lines.push(`info ${m}`),
      error: (o: object, m?: string) => lines.push(`error ${JSON.stringify(o)} ${m}`),
    };
    const deps = { catalog: cp.catalog, lifecycle: cp.lifecycle, store, clock };
    const one = startDailyPurge(deps, { log, firstDelayMs: 3_600_000 });
    const two = startDailyPurge(deps, { log, firstDelayMs: 3_600_000 });
    try {
      const first = one.runOnce();
      await purging; // the first process holds the lease: it purges
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

test('the daily purge runs first 10 minutes after start, then every 24 hours from start, until stopped', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-daily-purge-'));
  const clock = new FakeClock(Date.parse('2026-11-25T03:00:00Z'));
  const cp = await openSqliteControlPlane(path.join(dir, 'control.sqlite'), { clock });
  mock.timers.enable({ apis: ['setTimeout', 'setInterval'] });
  let elapsed = 0;
  const advance = (ms: number) => {
    elapsed += ms;
    mock.timers.tick(ms);
  };
  try {
    const ws = await cp.catalog.createWorkspace({ name: 'A', plan: 'pro' });
    await cp.catalog.createSite({
      workspaceId: ws.id,
      name: 'A',
      hostnames: ['a.example.com'],
      collectionProfile: 'strict',
      profileEffectiveAt: null,
    });
    // when each run began (it takes the lease first, at once), how many purged and gave the lease back
    const began: number[] = [];
    let purged = 0;
    let ended = 0;
    const lifecycle = Object.create(cp.lifecycle, {
      takeLease: { value: (...args: Parameters<typeof cp.lifecycle.takeLease>) => (began.push(elapsed), cp.lifecycle.takeLease(...args)) },
      releaseLease: {
        value: (...args: Parameters<typeof cp.lifecycle.releaseLease>) => cp.lifecycle.releaseLease(...args).finally(() => ended++),
      },
    });
    const store = { purgeDays: async (): Promise<RemovedData> => (purged++, removedData([])) } as unknown as LifecycleStore;
    const log = { info: () => {}, error: (o: object, m?: string) => assert.fail(`${m} ${JSON.stringify(o)}`) };
    const MIN = 60_000;
    const HOUR = 60 * MIN;
    // the defaults, as the server starts it (src/main.ts passes no delays)
    const purge = startDailyPurge({ catalog: cp.catalog, lifecycle, store, clock }, { log });
    try {
      advance(10 * MIN - 1);
      assert.deepEqual(began, [], 'nothing before 10 minutes');
      advance(1);
      assert.deepEqual(began, [10 * MIN]);
      await until(() => purged === 1 && ended === 1, 'the first run purged and ended');
      advance(24 * HOUR - 10 * MIN - 1);
      assert.deepEqual(began, [10 * MIN]);
      advance(1);
      assert.deepEqual(began, [10 * MIN, 24 * HOUR]);
      await until(() => purged === 2 && ended === 2, 'the second run purged and ended');
      advance(24 * HOUR - 1);
      assert.equal(began.length, 2);
      advance(1);
      assert.deepEqual(began, [10 * MIN, 24 * HOUR, 48 * HOUR]);
      await until(() => purged === 3 && ended === 3, 'the third run purged and ended');
    } finally {
      purge.stop();
    }
    advance(7 * 24 * HOUR);
    assert.deepEqual(began, [10 * MIN, 24 * HOUR, 48 * HOUR], 'stopped: no more runs');
  } finally {
    mock.timers.reset();
    await cp.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
