// The control plane's driver boundary (src/control/db-errors.ts, postgres/pool.ts, sqlite/dialect.ts): which
// driver failures are "the store cannot serve now" (503 CONTROL_PLANE_UNAVAILABLE) and which a value it
// cannot hold (422), turned into typed errors where every statement passes, whatever asked for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { CompiledQuery } from 'kysely';
import { isPostgresUnavailable, isSqliteUnavailable, postgresFault } from '../../src/control/db-errors.js';
import { withTypedFaults } from '../../src/control/postgres/pool.js';
import { synchronousRunner } from '../../src/control/sqlite/dialect.js';
import { ControlPlaneUnavailableError } from '../../src/domain/errors.js';
import { UnstorableTextError } from '../../src/domain/storable-text.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

test('PostgreSQL: the network, class 08, shutdowns, too many connections and the pool giving up are unavailable; query faults are not', () => {
  for (const code of [
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    'EHOSTUNREACH',
    'ENOTFOUND',
    '08006',
    '08001',
    '08P01',
    '57P01',
    '57P02',
    '57P03',
    '53300',
    '28P01',
    '3D000',
  ])
    assert.equal(isPostgresUnavailable(withCode(code)), true, code);
  for (const message of [
    'timeout exceeded when trying to connect',
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'Client has encountered a connection error and is not queryable',
  ])
    assert.equal(isPostgresUnavailable(new Error(message)), true, message);
  for (const code of ['23505', '42601', '40001', '22021', '57014', '42P01'])
    assert.equal(isPostgresUnavailable(withCode(code)), false, code);
  assert.equal(isPostgresUnavailable(new Error('driver has already been destroyed')), false);
});

test('PostgreSQL: 22021 and 22P05 become UnstorableTextError, connection faults ControlPlaneUnavailableError, anything else is left as it is', () => {
  assert.ok(postgresFault(withCode('22021', 'invalid byte sequence for encoding "UTF8": 0x00')) instanceof UnstorableTextError);
  assert.ok(postgresFault(withCode('22P05')) instanceof UnstorableTextError);
  const down = postgresFault(withCode('57P01', 'terminating connection due to administrator command'));
  assert.ok(down instanceof ControlPlaneUnavailableError);
  assert.equal((down as ControlPlaneUnavailableError).code, 'CONTROL_UNAVAILABLE', 'what a command prints with --json');
  const unique = withCode('23505');
  assert.equal(postgresFault(unique), unique);
});

test('the pool Kysely is given types the faults of connect and of every query, keeps one wrapper per pooled client, and drops a lost one', async () => {
  const refused = {
    connect: async () => {
      throw withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1');
    },
    end: async () => {},
  };
  await assert.rejects(withTypedFaults(refused as unknown as pg.Pool).connect(), ControlPlaneUnavailableError);
  const acquire = {
    connect: async () => {
      throw new Error('timeout exceeded when trying to connect');
    },
    end: async () => {},
  };
  await assert.rejects(withTypedFaults(acquire as unknown as pg.Pool).connect(), ControlPlaneUnavailableError);

  let next: unknown;
  const released: unknown[] = [];
  const client = {
    query: async () => {
      throw next;
    },
    release: (lost?: boolean) => void released.push(lost),
    on: () => client,
  };
  const pool = withTypedFaults({ connect: async () => client, end: async () => {} } as unknown as pg.Pool);
  const conn = await pool.connect();
  assert.equal(await pool.connect(), conn, 'the same client, the same wrapper');
  next = withCode('22021');
  await assert.rejects(conn.query('select $1', ['a\u0000']), UnstorableTextError);
  next = withCode('08006', 'connection failure');
  await assert.rejects(conn.query('select 1', []), ControlPlaneUnavailableError);
  next = withCode('23505');
  await assert.rejects(conn.query('insert', []), (err: { code?: string }) => err.code === '23505');
  conn.release();
  assert.deepEqual(released, [true], 'a client whose statement lost its connection is dropped, not lent again');
});

test('SQLite: SQLITE_BUSY past the busy timeout is unavailable; a full disk or an I/O error is not', async () => {
  for (const code of ['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_TIMEOUT'])
    assert.equal(isSqliteUnavailable(withCode(code)), true, code);
  for (const code of ['SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_IOERR_WRITE', 'SQLITE_CORRUPT', 'SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_LOCKED'])
    assert.equal(isSqliteUnavailable(withCode(code)), false, code);

  // for real: another connection holds the write lock; this one waits no time at all (busy_timeout 0)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-busy-'));
  const file = path.join(dir, 'control.sqlite');
  const holder = new Database(file);
  const waiter = new Database(file, { timeout: 0 });
  try {
    holder.pragma('journal_mode = WAL');
    holder.exec('create table t (x text)');
    holder.exec('begin immediate');
    const run = synchronousRunner(waiter)(() => Promise.reject(new Error('no Kysely transaction here')));
    await assert.rejects(run(CompiledQuery.raw("insert into t values ('x')")), ControlPlaneUnavailableError);
    holder.exec('commit');
    await run(CompiledQuery.raw("insert into t values ('x')"));
  } finally {
    holder.close();
    waiter.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
