import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDBInstance } from '@duckdb/node-api';
import { EngineError } from '../../src/domain/errors.js';
import { DuckDbAnalyticsEngine, type DuckConnection } from '../../src/engines/duckdb/duckdb-analytics-engine.js';
import { SESSIONS_DDL } from '../../src/engines/duckdb/schema.js';
import type { QuerySpec } from '../../src/domain/query/query-spec.js';

const spec: QuerySpec = {
  siteId: 's',
  tenantIds: null,
  startMs: 0,
  endMs: 10_000_000_000_000,
  trafficClasses: ['human'],
  filters: {},
  metrics: ['visitors'],
};

async function kind(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof EngineError, `expected EngineError, got ${e}`);
    return e.kind;
  }
  return 'resolved';
}

test('a query running past its timeout is interrupted and fails as timeout', async () => {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    // an events "table" whose scan takes minutes: the real interrupt path, not a fake
    await conn.run(`CREATE VIEW events AS SELECT 's' AS site_id, (i % 1000)::BIGINT AS ts_ms, 'human' AS traffic_class,
      'pageview' AS type, md5(i::VARCHAR) AS visitor_key, NULL::VARCHAR AS path_canon, NULL::VARCHAR AS tenant_id,
      'x' AS session_id, 0::BIGINT AS engagement_time_ms FROM range(10000000000) t(i)`);
    await conn.run(SESSIONS_DDL);
    let interrupted = 0;
    const engine = new DuckDbAnalyticsEngine({
      connect: async () => ({
        prepare: (sql) => conn.prepare(sql),
        interrupt: () => {
          interrupted++;
          conn.interrupt();
        },
      }),
    });
    assert.equal(await kind(engine.run(spec, { timeoutMs: 200 })), 'timeout');
    assert.equal(interrupted, 1);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
});

test('a connection that cannot be opened or a store fault is unavailable; SQL bugs are not disguised', async () => {
  const refused = new DuckDbAnalyticsEngine({
    connect: async () => {
      throw new Error('IO Error: Could not set lock on file');
    },
  });
  assert.equal(await kind(refused.run(spec, { timeoutMs: 1000 })), 'unavailable');
  assert.equal(await kind(refused.newestEventAt('s')), 'unavailable');

  const broken: DuckConnection = {
    prepare: async () => {
      throw new Error('Connection Error: Connection already closed!');
    },
    interrupt: () => {},
  };
  assert.equal(await kind(new DuckDbAnalyticsEngine({ connect: async () => broken }).run(spec, { timeoutMs: 1000 })), 'unavailable');

  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    // no tables at all: the store is not initialised, which is an unavailable store
    const engine = new DuckDbAnalyticsEngine({ connect: async () => conn });
    assert.equal(await kind(engine.run(spec, { timeoutMs: 1000 })), 'unavailable');
    // a Binder error (a table of the wrong shape) is a bug and stays a plain Error (500)
    await conn.run('CREATE TABLE events (site_id VARCHAR)');
    await conn.run(SESSIONS_DDL);
    await assert.rejects(engine.run(spec, { timeoutMs: 1000 }), (e: unknown) => e instanceof Error && !(e instanceof EngineError));
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
});

test('connections are handed back after success and failure', async () => {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  let released = 0;
  try {
    const engine = new DuckDbAnalyticsEngine({ connect: async () => conn, release: () => released++ });
    await kind(engine.run(spec, { timeoutMs: 1000 }));
    await engine.firstEventAt('s').catch(() => {});
    assert.equal(released, 2);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
});

test('a connection per query from a shared instance, closed after use, as the container wires it', async () => {
  const instance = await DuckDBInstance.create(':memory:');
  const setup = await instance.connect();
  await setup.run(SESSIONS_DDL);
  await setup.run(`CREATE TABLE events AS SELECT 's' AS site_id, 5::BIGINT AS ts_ms`);
  let closed = 0;
  try {
    const engine = new DuckDbAnalyticsEngine({
      connect: () => instance.connect(),
      release: (c) => {
        c.closeSync();
        closed++;
      },
    });
    assert.equal((await engine.newestEventAt('s'))?.getTime(), 5);
    assert.equal((await engine.firstEventAt('s'))?.getTime(), 5);
    assert.equal(closed, 2);
  } finally {
    setup.closeSync();
    instance.closeSync();
  }
});
