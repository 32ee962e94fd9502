// Faults of the ClickHouse engine and opener: refused connections, timeouts, an uninitialised
// database, a cluster URL that does not list every shard; and the URL format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineError } from '../../src/domain/errors.js';
import type { QuerySpec } from '../../src/domain/query/query-spec.js';
import { ClickHouseAnalyticsEngine } from '../../src/engines/clickhouse/clickhouse-analytics-engine.js';
import { ClickHouseNode } from '../../src/engines/clickhouse/node.js';
import { openClickHouse } from '../../src/engines/clickhouse/open-clickhouse.js';
import { tableLayout } from '../../src/engines/clickhouse/schema.js';
import { parseClickHouseUrl } from '../../src/engines/clickhouse/url.js';
import { CH_CLUSTER, CH_URL, openScratch, scratchUrl, skipReason } from './clickhouse-scratch.js';

const spec: QuerySpec = {
  siteId: 's',
  tenantIds: null,
  startMs: 0,
  endMs: Date.UTC(2030, 0, 1),
  trafficClasses: ['human'],
  filters: {},
  metrics: ['visitors', 'sessions'],
  dimension: 'page',
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

test('the URL names one server, or every shard of a cluster', () => {
  assert.deepEqual(parseClickHouseUrl('clickhouse+http://ch:8123/footfall'), {
    nodes: ['http://ch:8123'],
    database: 'footfall',
    cluster: null,
    username: 'default',
    password: '',
  });
  assert.deepEqual(parseClickHouseUrl('clickhouse+https://u:p%40ss@a:8443,b:8443/db?cluster=c1'), {
    nodes: ['https://a:8443', 'https://b:8443'],
    database: 'db',
    cluster: 'c1',
    username: 'u',
    password: 'p@ss',
  });
  assert.deepEqual(parseClickHouseUrl('clickhouse+http://ch').nodes, ['http://ch:8123']);
  assert.throws(() => parseClickHouseUrl('clickhouse+http://a:1,b:2/db'), /cluster/);
  assert.throws(() => parseClickHouseUrl('clickhouse+http://a:1,a:1/db?cluster=x'), /twice/);
  assert.throws(() => parseClickHouseUrl('clickhouse+http://a:1/db-x'), /expected/);
  assert.throws(() => parseClickHouseUrl('clickhouse+http://a:1/db?cluster=x;DROP'), /expected/);
});

test('a server that refuses connections is unavailable, at open and per query', async () => {
  await assert.rejects(
    openClickHouse('clickhouse+http://127.0.0.1:1/footfall'),
    (e: Error & { code?: string }) => e.code === 'EVENTS_UNAVAILABLE' && /127\.0\.0\.1:1/.test(e.message),
  );
  const node = new ClickHouseNode({ url: 'http://127.0.0.1:1', database: 'footfall', username: 'default', password: '' });
  try {
    const one = { node, num: 1 };
    const engine = new ClickHouseAnalyticsEngine({ coordinator: one, shards: [one], layout: tableLayout(null) });
    assert.equal(await kind(engine.run(spec, { timeoutMs: 5_000 })), 'unavailable');
    assert.equal(await kind(engine.newestEventAt('s')), 'unavailable');
    const sharded = new ClickHouseAnalyticsEngine({ coordinator: one, shards: [one, { node, num: 2 }], layout: tableLayout('c') });
    assert.equal(await kind(sharded.firstEventAt('s')), 'unavailable');
  } finally {
    await node.close();
  }
});

test('a query past its timeout fails as timeout; a database without tables is unavailable', { skip: skipReason('single') }, async () => {
  const ch = await openScratch('single');
  try {
    assert.equal(await kind(ch.engine.run(spec, { timeoutMs: 1 })), 'timeout');
    assert.equal((await ch.engine.run(spec, { timeoutMs: 10_000 })).length, 0, 'the engine still works afterwards');
    const empty = new ClickHouseNode({ url: ch.nodes[0].opts.url, database: 'system', username: 'default', password: '' });
    try {
      const one = { node: empty, num: 1 };
      const engine = new ClickHouseAnalyticsEngine({ coordinator: one, shards: [one], layout: tableLayout(null) });
      assert.equal(await kind(engine.run(spec, { timeoutMs: 5_000 })), 'unavailable');
    } finally {
      await empty.close();
    }
  } finally {
    await ch.close();
  }
});

test('a cluster URL must list each shard once', { skip: skipReason('cluster') }, async () => {
  const scratch = scratchUrl('single');
  try {
    const oneShard = `${scratch.url}?cluster=${CH_CLUSTER}`;
    await assert.rejects(
      openClickHouse(oneShard),
      (e: Error & { code?: string }) => e.code === 'EVENTS_MISCONFIGURED' && /2 shard/.test(e.message),
    );
    const host = /\/\/([^/]+)\//.exec(CH_URL!)![1];
    await assert.rejects(
      openClickHouse(oneShard.replace(host, `${host},localhost:${host.split(':')[1]}`)),
      /same shard|not one of the shards|twice/,
    );
    await assert.rejects(openClickHouse(`${scratch.url}?cluster=no_such_cluster`), /not in the first server/);
  } finally {
    await scratch.drop();
  }
});
