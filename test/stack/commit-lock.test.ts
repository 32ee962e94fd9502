// The commit lock of the shared control plane (PostgreSQL advisory lock), and what it is for: two
// processes importing into the same ClickHouse day at the same moment (two API processes' loaders of
// live events) never both commit from the same old generation, so an import that reports success is
// always readable; the other fails whole and is retried.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPostgresControlPlane } from '../../src/control/postgres/open.js';
import { openClickHouse } from '../../src/engines/clickhouse/open-clickhouse.js';
import { scratchDatabase } from '../http/helpers/stack.js';
import { committedRows, scratchUrl } from '../engines/clickhouse-scratch.js';
import { makeRow } from '../contract/event-store.contract.js';

const PG = process.env.FOOTFALL_TEST_POSTGRES_URL || undefined;
const CH = process.env.FOOTFALL_TEST_CLICKHOUSE_URL || undefined;
const pgSkip = PG ? false : 'FOOTFALL_TEST_POSTGRES_URL not set (scripts/services.sh start prints it)';
const bothSkip = PG && CH ? false : 'FOOTFALL_TEST_POSTGRES_URL and FOOTFALL_TEST_CLICKHOUSE_URL not both set (scripts/services.sh start prints them)';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('the PostgreSQL commit lock admits one holder at a time across control planes, and a failing holder releases it', { skip: pgSkip }, async () => {
  const db = await scratchDatabase(PG!);
  const a = await openPostgresControlPlane(db.url);
  const b = await openPostgresControlPlane(db.url);
  try {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const order: string[] = [];
    const first = a.commitLock(async () => {
      order.push('a in');
      await held;
      order.push('a out');
    });
    while (!order.includes('a in')) await sleep(10);
    const second = b.commitLock(async () => {
      order.push('b in');
    });
    await sleep(300);
    assert.deepEqual(order, ['a in'], 'b waits while a holds the lock');
    release();
    await Promise.all([first, second]);
    assert.deepEqual(order, ['a in', 'a out', 'b in']);

    await assert.rejects(a.commitLock(async () => Promise.reject(new Error('boom'))), /boom/);
    assert.equal(await b.commitLock(async () => 7), 7, 'the lock is free again after a holder failed');
  } finally {
    await a.close();
    await b.close();
    await db.drop();
  }
});

test('imports of two processes into one ClickHouse day at once: every import that succeeds stays readable', { skip: bothSkip }, async () => {
  const db = await scratchDatabase(PG!);
  const ch = scratchUrl('single');
  const cpA = await openPostgresControlPlane(db.url);
  const cpB = await openPostgresControlPlane(db.url);
  // two stores on one database, as two processes would open them, each with its own control plane's lock
  const A = await openClickHouse(ch.url, { commitLock: cpA.commitLock });
  const B = await openClickHouse(ch.url, { commitLock: cpB.commitLock });
  try {
    const day = Date.parse('2025-03-01T00:00:00.000Z');
    const rows = (p: string, round: number) =>
      Array.from({ length: 20 }, (_, i) =>
        makeRow({ event_id: `${p}-${round}-${i}`, ts_ms: day + round * 600_000 + i * 1000, visitor_key: `${p}${i}`, path_canon: `/${p}/${i}` }),
      );
    const succeeded: string[] = [];
    let conflicts = 0;
    for (let round = 0; round < 6; round++) {
      const batches = [rows('a', round), rows('b', round)];
      const results = await Promise.allSettled([A.store.importBatch(batches[0]), B.store.importBatch(batches[1])]);
      results.forEach((r, i) => {
        if (r.status === 'fulfilled') {
          assert.equal(r.value.imported, 20);
          succeeded.push(...batches[i].map((e) => e.event_id));
        } else {
          assert.match(String(r.reason?.message), /another import committed .* during this one; nothing was stored/);
          conflicts++;
        }
      });
    }
    assert.ok(succeeded.length >= 6 * 20, 'at least one import of each round commits');
    const visible = (await committedRows<{ event_id: string }>(A, A.layout.events, 'event_id')).map((r) => r.event_id).sort();
    assert.deepEqual(visible, [...succeeded].sort(), `every committed import is readable, nothing else (${conflicts} refused as conflicts)`);
  } finally {
    await A.close();
    await B.close();
    await cpA.close();
    await cpB.close();
    await Promise.all([db.drop(), ch.drop()]);
  }
});
