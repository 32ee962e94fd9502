// The UsageLedger suite against SQLite, plus the cap under several processes sharing one file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely } from 'kysely';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';
import { createSqliteDialect, openSqliteDatabase, synchronousPairRunner, synchronousRunner } from '../../src/control/sqlite/dialect.js';
import { runUsageLedgerContract } from './usage-ledger.contract.js';
import { strandReservations } from './fixtures/race-children.js';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-ledger-'));

runUsageLedgerContract('sqlite :memory:', async (opts) => {
  const cp = await openSqliteControlPlane(':memory:', opts);
  return { ledger: cp.ledger, close: cp.close };
});

runUsageLedgerContract('sqlite file', async (opts) => {
  const dir = tempDir();
  const cp = await openSqliteControlPlane(path.join(dir, 'control.sqlite'), opts);
  return {
    ledger: cp.ledger,
    close: async () => {
      await cp.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

const CHILD = fileURLToPath(new URL('./fixtures/ledger-race-child.ts', import.meta.url));
const HOLD_CHILD = fileURLToPath(new URL('./fixtures/ledger-hold-child.ts', import.meta.url));
const HOUR = String(3_600_000);

interface Child {
  ready: Promise<void>;
  done: Promise<{ granted: number }>;
  go(): void;
}

function startChild(args: string[]): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let onReady!: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  proc.stdout.on('data', (d) => {
    out += d;
    if (out.startsWith('ready\n')) onReady();
  });
  proc.stderr.on('data', (d) => (err += d));
  const done = new Promise<{ granted: number }>((resolve, reject) => {
    proc.on('close', (code) => {
      if (code !== 0) return reject(new Error(`child exited ${code}: ${err}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!));
    });
  });
  done.catch(() => onReady());
  return { ready, done, go: () => proc.stdin.write('go\n') };
}

test('sqlite file: 4 processes racing 200 reservations on room for 50 grant exactly 50, after a killed one stranded 30', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'control.sqlite');
  try {
    // A process killed with its leases held (an hour long, so only its death can free them).
    assert.equal(await strandReservations(HOLD_CHILD, ['sqlite', file, '-', 'ws_mp', '2025-08', '30', '50', HOUR]), 30);
    // The children open a fresh file together, so they also race to apply the migrations.
    const seedCap = 50;
    const children = [0, 1, 2, 3].map(() => startChild([file, 'ws_mp', '2025-08', '50', String(seedCap)]));
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.go();
    const results = await Promise.all(children.map((c) => c.done));
    assert.equal(
      results.reduce((sum, r) => sum + r.granted, 0),
      50,
    );
    const cp = await openSqliteControlPlane(file);
    try {
      assert.equal(await cp.ledger.used('ws_mp', '2025-08'), 50);
      assert.equal(await cp.ledger.reserve({ workspaceId: 'ws_mp', period: '2025-08', units: 1, included: 0, hardCap: seedCap }), null);
    } finally {
      await cp.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('sqlite file: reopening keeps the data and applies no migration twice', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'control.sqlite');
  try {
    const first = await openSqliteControlPlane(file);
    await first.ledger.commit((await first.ledger.reserve({ workspaceId: 'ws_a', period: '2025-01', units: 3, included: 5, hardCap: 9 }))!);
    const ws = await first.catalog.createWorkspace({ name: 'Kept', plan: 'starter' });
    await first.close();
    await first.close();
    const second = await openSqliteControlPlane(file);
    try {
      assert.equal(await second.ledger.used('ws_a', '2025-01'), 3);
      assert.equal((await second.catalog.getWorkspace(ws.id))?.name, 'Kept');
    } finally {
      await second.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('sqlite file: a reopened control plane reclaims at once what a killed process held, never what a live one holds', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'control.sqlite');
  const terms = { workspaceId: 'ws_k', period: '2025-09', included: 0, hardCap: 40 };
  try {
    const live = await openSqliteControlPlane(file, { leaseMs: 3_600_000 });
    try {
      const mine = await live.ledger.reserve({ ...terms, units: 10 });
      assert.ok(mine);
      assert.equal(await strandReservations(HOLD_CHILD, ['sqlite', file, '-', 'ws_k', '2025-09', '30', '40', HOUR]), 30);
      const reopened = await openSqliteControlPlane(file);
      try {
        // The dead child's 30 are back; the live holder's 10 are not.
        assert.ok(await reopened.ledger.reserve({ ...terms, units: 30 }));
        assert.equal(await reopened.ledger.reserve({ ...terms, units: 1 }), null);
      } finally {
        await reopened.close();
      }
      assert.equal(await live.ledger.commit(mine), 10, 'the live lease is still held and commits');
    } finally {
      await live.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('sqlite: the synchronous lease step never joins a Kysely transaction open on the same connection', async () => {
  const raw = openSqliteDatabase(':memory:');
  const db = new Kysely<{ t: { v: number } }>({ dialect: createSqliteDialect(raw) });
  try {
    await db.schema.createTable('t').addColumn('v', 'integer').execute();
    const pair = synchronousPairRunner(raw)(async () => {
      throw new Error('fallback called');
    });
    const insert = (v: number) => db.insertInto('t').values({ v }).compile();
    let fellBack = false;
    const viaFallback = synchronousPairRunner(raw)(async (first, second) => {
      fellBack = true;
      // waits for the connection like any Kysely query, so it runs after the transaction ended
      await db.executeQuery(first);
      return db.executeQuery(second);
    });
    await db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('t').values({ v: 1 }).execute();
        const later = viaFallback(insert(2), insert(3));
        await trx.insertInto('t').values({ v: 4 }).execute();
        throw Object.assign(new Error('roll back'), { later });
      })
      .catch(async (err: Error & { later: Promise<unknown> }) => {
        assert.equal(err.message, 'roll back');
        await err.later;
      });
    assert.ok(fellBack);
    assert.ok(await pair(insert(5), insert(6)), 'outside a transaction it runs by itself');
    const rows = (await db.selectFrom('t').select('v').orderBy('v').execute()).map((r) => r.v);
    assert.deepEqual(rows, [2, 3, 5, 6], 'the rolled-back transaction took nothing of the lease steps with it');
  } finally {
    await db.destroy();
  }
});

test('sqlite: a request-path statement run straight on the connection never joins a Kysely transaction open on it', async () => {
  const raw = openSqliteDatabase(':memory:');
  const db = new Kysely<{ t: { v: number } }>({ dialect: createSqliteDialect(raw) });
  try {
    await db.schema.createTable('t').addColumn('v', 'integer').execute();
    let fellBack = 0;
    const run = synchronousRunner(raw)((q) => {
      fellBack++;
      // waits for the connection like any Kysely query, so it runs after the transaction ended
      return db.executeQuery(q);
    });
    const insert = (v: number) => db.insertInto('t').values({ v }).compile();
    await db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('t').values({ v: 1 }).execute();
        const later = run(insert(2));
        // a read inside the open transaction would see v = 1; one that waits its turn does not
        const seen = run(db.selectFrom('t').select('v').compile());
        throw Object.assign(new Error('roll back'), { later, seen });
      })
      .catch(async (err: Error & { later: Promise<unknown>; seen: Promise<{ rows: { v: number }[] }> }) => {
        assert.equal(err.message, 'roll back');
        await err.later;
        assert.deepEqual(
          (await err.seen).rows.map((r) => r.v),
          [2],
          'the read ran after the rollback, not inside the transaction',
        );
      });
    assert.equal(fellBack, 2);
    await run(insert(3));
    assert.equal(fellBack, 2, 'outside a transaction it runs by itself');
    const rows = (await db.selectFrom('t').select('v').orderBy('v').execute()).map((r) => r.v);
    assert.deepEqual(rows, [2, 3], 'the rolled-back transaction took nothing of the straight statements with it');
  } finally {
    await db.destroy();
  }
});

test('sqlite: Kysely and the straight runners prepare a statement once per connection, whichever runs it first', async () => {
  const raw = openSqliteDatabase(':memory:');
  const db = new Kysely<{ t: { v: number } }>({ dialect: createSqliteDialect(raw) });
  try {
    await db.schema.createTable('t').addColumn('v', 'integer').execute();
    const prepared: string[] = [];
    const prepare = raw.prepare.bind(raw);
    raw.prepare = ((sql: string) => (prepared.push(sql), prepare(sql))) as typeof raw.prepare;
    const insert = (v: number) => db.insertInto('t').values({ v }).compile();
    const select = db.selectFrom('t').select('v').compile();
    const run = synchronousRunner(raw)(() => Promise.reject(new Error('no transaction is open')));
    const pair = synchronousPairRunner(raw)(() => Promise.reject(new Error('no transaction is open')));
    await db.executeQuery(insert(1));
    await run(insert(2));
    await pair(insert(3), insert(4));
    await run(select);
    assert.deepEqual((await db.executeQuery(select)).rows, [{ v: 1 }, { v: 2 }, { v: 3 }, { v: 4 }]);
    assert.deepEqual(prepared, [insert(0).sql, select.sql], 'one prepare per SQL text on the connection');
  } finally {
    await db.destroy();
  }
});

test('sqlite: a straight read answers the rows better-sqlite3 would, and Kysely still reads objects from the shared statement', async () => {
  const raw = openSqliteDatabase(':memory:');
  const db = new Kysely<{ t: { a: number; b: string | null; c: number | null } }>({ dialect: createSqliteDialect(raw) });
  try {
    await db.schema.createTable('t').addColumn('a', 'integer').addColumn('b', 'text').execute();
    await db
      .insertInto('t')
      .values([
        { a: 1, b: 'x' },
        { a: 2, b: null },
      ])
      .execute();
    const run = synchronousRunner(raw)(() => Promise.reject(new Error('no transaction is open')));
    const named = db.selectFrom('t').select(['a', 'b', 'a as again']).orderBy('a').compile();
    const expected = raw.prepare(named.sql).all(...(named.parameters as unknown[]));
    assert.deepEqual((await run(named)).rows, expected);
    assert.deepEqual((await db.executeQuery(named)).rows, expected, 'the statement reads objects again after a straight read');
    // a `*` follows the schema: a column added later is in the row
    const star = db.selectFrom('t').selectAll().orderBy('a').compile();
    await run(star);
    await db.schema.alterTable('t').addColumn('c', 'integer').execute();
    assert.deepEqual((await run(star)).rows, [
      { a: 1, b: 'x', c: null },
      { a: 2, b: null, c: null },
    ]);
  } finally {
    await db.destroy();
  }
});
