// The commit lock of the shared control plane (PostgreSQL advisory lock), and what it is for: two
// processes importing into the same ClickHouse day at the same moment (two API processes' loaders of
// live events) never both commit from the same old generation, so an import that reports success is
// always readable; the other fails whole and is retried.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openPostgresControlPlane } from '../../src/control/postgres/open.js';
import { openClickHouse } from '../../src/engines/clickhouse/open-clickhouse.js';
import { scratchDatabase } from '../http/helpers/stack.js';
import { committedRows, scratchUrl } from '../engines/clickhouse-scratch.js';
import { makeRow } from '../contract/event-store.contract.js';
import type { CommitLock } from '../../src/ports/commit-lock.js';
import { until } from '../helpers/until.js';
import { needs } from '../helpers/services.js';

const PG = process.env.FOOTFALL_TEST_POSTGRES_URL || undefined;
const pgSkip = needs('FOOTFALL_TEST_POSTGRES_URL');
const bothSkip = needs('FOOTFALL_TEST_POSTGRES_URL', 'FOOTFALL_TEST_CLICKHOUSE_URL');

test('the PostgreSQL commit lock admits one holder at a time across control planes, and a failing holder releases it', {
  skip: pgSkip,
}, async () => {
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
    await until(() => order.includes('a in'), 'a holds the lock');
    // b asks for the lock (pg_try_advisory_lock, polled) while a holds it: PostgreSQL shows both
    // connections' last statement as that ask, and b's answer was no
    const watcher = new pg.Client({ connectionString: db.url });
    await watcher.connect();
    try {
      const asking = async () =>
        (
          await watcher.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'select pg_try_advisory_lock(%'`,
          )
        ).rows[0].n;
      assert.equal(await asking(), 1, 'only a has asked');
      const second = b.commitLock(async () => {
        order.push('b in');
      });
      await until(async () => (await asking()) === 2, 'b has asked for the lock');
      assert.deepEqual(order, ['a in'], 'b waits while a holds the lock');
      release();
      await Promise.all([first, second]);
    } finally {
      await watcher.end();
    }
    assert.deepEqual(order, ['a in', 'a out', 'b in']);

    await assert.rejects(
      a.commitLock(async () => Promise.reject(new Error('boom'))),
      /boom/,
    );
    assert.equal(await b.commitLock(async () => 7), 7, 'the lock is free again after a holder failed');
  } finally {
    await a.close();
    await b.close();
    await db.drop();
  }
});

/**
 * Holds each commit at the lock's door until both imports of a round stand there: by then each has
 * read the generation of its days and staged its rows, and they ask for the lock at the same moment.
 */
function meetAtTheDoor(): { guard(lock: CommitLock): CommitLock; open(): void } {
  const waiting: (() => void)[] = [];
  let open = false;
  return {
    guard: (lock) => async (fn) => {
      if (!open)
        await new Promise<void>((arrived) => {
          waiting.push(arrived);
          if (waiting.length === 2) for (const go of waiting.splice(0)) go();
        });
      return lock(fn);
    },
    open: () => void (open = true),
  };
}

test('imports of two processes into one ClickHouse day at once: exactly one commits, the other fails whole, and every import that succeeds stays readable', {
  skip: bothSkip,
}, async () => {
  const db = await scratchDatabase(PG!);
  const ch = scratchUrl('single');
  const cpA = await openPostgresControlPlane(db.url);
  const cpB = await openPostgresControlPlane(db.url);
  const door = meetAtTheDoor();
  // two stores on one database, as two processes would open them, each with its own control plane's lock
  const A = await openClickHouse(ch.url, { commitLock: door.guard(cpA.commitLock) });
  const B = await openClickHouse(ch.url, { commitLock: door.guard(cpB.commitLock) });
  try {
    const day = Date.parse('2025-03-01T00:00:00.000Z');
    const rows = (p: string, round: number) =>
      Array.from({ length: 20 }, (_, i) =>
        makeRow({
          event_id: `${p}-${round}-${i}`,
          ts_ms: day + round * 600_000 + i * 1000,
          visitor_key: `${p}${i}`,
          path_canon: `/${p}/${i}`,
        }),
      );
    const succeeded: string[] = [];
    const refused: ReturnType<typeof rows>[] = [];
    const winners: string[] = [];
    for (let round = 0; round < 4; round++) {
      const batches = [rows('a', round), rows('b', round)];
      const results = await Promise.allSettled([A.store.importBatch(batches[0]), B.store.importBatch(batches[1])]);
      assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected'], `round ${round}: one commits, the other is refused`);
      results.forEach((r, i) => {
        if (r.status === 'fulfilled') {
          assert.equal(r.value.imported, 20);
          succeeded.push(...batches[i].map((e) => e.event_id));
          winners.push('ab'[i]);
        } else {
          assert.match(String(r.reason?.message), /another import committed .* during this one; nothing was stored/);
          refused.push(batches[i]);
        }
      });
    }
    const visible = async () => (await committedRows<{ event_id: string }>(A, A.layout.events, 'event_id')).map((r) => r.event_id).sort();
    assert.deepEqual(
      await visible(),
      [...succeeded].sort(),
      `every committed import is readable, nothing else (winners: ${winners.join('')})`,
    );
    // a refused import, run again (alone), commits: nothing of it was stored the first time
    door.open();
    for (const [i, batch] of refused.entries()) assert.equal((await (i % 2 ? A : B).store.importBatch(batch)).imported, 20);
    assert.equal((await visible()).length, 4 * 2 * 20);
  } finally {
    await A.close();
    await B.close();
    await cpA.close();
    await cpB.close();
    await Promise.all([db.drop(), ch.drop()]);
  }
});
