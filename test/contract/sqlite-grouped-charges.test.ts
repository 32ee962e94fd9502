// groupedChargeRunner (src/control/sqlite/dialect.ts): the charges of one event-loop turn in one
// transaction, each with its own outcome, settled only once committed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { createSqliteDialect, groupedChargeRunner, openSqliteDatabase } from '../../src/control/sqlite/dialect.js';

interface DB {
  counter: { id: number; used: number; cap: number };
}

async function withFile(fn: (db: Kysely<DB>, raw: Database.Database, file: string) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-grouped-'));
  const file = path.join(dir, 'control.sqlite');
  const raw = openSqliteDatabase(file);
  const db = new Kysely<DB>({ dialect: createSqliteDialect(raw) });
  try {
    await sql`create table counter (id integer primary key, used integer not null check (used <= cap), cap integer not null)`.execute(db);
    await db.insertInto('counter').values({ id: 1, used: 0, cap: 10 }).execute();
    await fn(db, raw, file);
  } finally {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The ledger's shape of charge: a conditional update that answers the new total, or no row when refused. */
const charge = (db: Kysely<DB>, units: number) =>
  db
    .updateTable('counter')
    .set((eb) => ({ used: eb('used', '+', units) }))
    .where('id', '=', 1)
    .where(sql<boolean>`used + ${units} <= cap`)
    .returning('used')
    .compile();

test('the charges of one turn commit together, each with the outcome it would have had alone', async () => {
  await withFile(async (db, raw, file) => {
    let begins = 0;
    const exec = raw.exec.bind(raw);
    raw.exec = ((s: string) => (s === 'begin immediate' && begins++, exec(s))) as typeof raw.exec;
    const run = groupedChargeRunner(raw)(() => Promise.reject(new Error('no transaction is open')));
    const outcomes = await Promise.all([4, 4, 4, 2, 1].map((units) => run(charge(db, units))));
    assert.deepEqual(
      outcomes.map((o) => o.rows.map((r) => (r as { used: number }).used)),
      [[4], [8], [], [10], []],
      'in order: the third and the last would pass the cap of 10 and take nothing',
    );
    assert.equal(begins, 1, 'one transaction for the turn');
    // what another connection (another process) reads: committed
    const other = new Database(file, { readonly: true });
    try {
      assert.equal((other.prepare('select used from counter').get() as { used: number }).used, 10);
    } finally {
      other.close();
    }
    await run(charge(db, 0));
    assert.equal(begins, 2, 'a later turn commits on its own');
  });
});

test('a charge settles only once its turn is committed, and a failing statement fails only its own charge', async () => {
  await withFile(async (db, raw, file) => {
    const run = groupedChargeRunner(raw)(() => Promise.reject(new Error('no transaction is open')));
    const other = new Database(file, { readonly: true });
    try {
      const first = run(charge(db, 3)).then((r) => ({
        r,
        seen: (other.prepare('select used from counter').get() as { used: number }).used,
      }));
      // breaks the table's check: SQLite undoes this statement only
      const broken = run(db.updateTable('counter').set({ used: 99, cap: 0 }).where('id', '=', 1).compile());
      const third = run(charge(db, 2));
      const [a, b, c] = await Promise.allSettled([first, broken, third]);
      assert.equal(a.status, 'fulfilled');
      assert.equal(a.status === 'fulfilled' && a.value.seen, 5, 'settled after the commit: another connection sees the whole turn');
      assert.equal(b.status, 'rejected');
      assert.match(String(b.status === 'rejected' && b.reason), /CHECK constraint failed/);
      assert.deepEqual(c.status === 'fulfilled' && c.value.rows, [{ used: 5 }]);
    } finally {
      other.close();
    }
  });
});

test('charges of a turn while a Kysely transaction is open wait their turn through the fallback, outside it', async () => {
  await withFile(async (db, raw) => {
    let fellBack = 0;
    const run = groupedChargeRunner(raw)((q) => {
      fellBack++;
      // waits for the connection like any Kysely query, so it runs after the transaction ended
      return db.executeQuery(q);
    });
    await db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('counter').set({ cap: 100 }).where('id', '=', 1).execute();
        const later = run(charge(db, 50));
        // the flush comes after this turn's I/O: keep the transaction open across it
        await new Promise((r) => setImmediate(r));
        await new Promise((r) => setImmediate(r));
        throw Object.assign(new Error('roll back'), { later });
      })
      .catch(async (err: Error & { later: Promise<{ rows: unknown[] }> }) => {
        assert.equal(err.message, 'roll back');
        assert.deepEqual((await err.later).rows, [], 'the cap of 10 held: the charge did not run inside the rolled-back raise');
      });
    assert.equal(fellBack, 1);
  });
});
