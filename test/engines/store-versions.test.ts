// The event stores record their layout (docs/decisions/upgrades.md): DuckDB in footfall_meta's
// schema_version, ClickHouse in each server's ff_schema. A store a newer footfall wrote (a higher
// version) is refused before anything is written to it, saying what to do; an older one is brought up
// and marked with this code's version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { SCHEMA_VERSION } from '../../src/engines/duckdb/schema.js';
import { openClickHouse } from '../../src/engines/clickhouse/open-clickhouse.js';
import { CLICKHOUSE_SCHEMA_VERSION, SCHEMA_TABLE } from '../../src/engines/clickhouse/schema-version.js';
import { ident } from '../../src/engines/clickhouse/schema.js';
import { ClickHouseNode } from '../../src/engines/clickhouse/node.js';
import { manyRows } from './duckdb-import-fixtures.js';
import { scratchUrl, skipReason, type Topology } from './clickhouse-scratch.js';

const rows = manyRows({ siteId: 'site_a', n: 60, days: 3, startMs: Date.parse('2025-01-28T00:00:00Z'), seed: 5 });

/** Runs SQL on the DuckDB file outside the store; returns the rows of the last statement. */
async function duck(file: string, ...statements: string[]): Promise<unknown[][]> {
  const raw = await DuckDBInstance.create(file);
  const c = await raw.connect();
  try {
    let out: unknown[][] = [];
    for (const s of statements) out = (await c.runAndReadAll(s)).getRowsJS();
    return out;
  } finally {
    c.closeSync();
    raw.closeSync();
  }
}

const refusal = (what: RegExp) => (err: Error & { code?: string }) => {
  assert.equal(err.code, 'DATA_NEWER_THAN_CODE');
  assert.match(err.message, what);
  assert.match(err.message, /newer footfall than this one \(0\.2\.0\)/);
  assert.match(err.message, /Run the footfall release that wrote it \(or a later one\), or restore a backup made by footfall 0\.2\.0/);
  return true;
};

test('duckdb: a store of a newer schema_version is refused and left as it was; an older one is marked with this version', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-versions-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'events.duckdb');
  const store = await openDuckDbEventStore({ file });
  await store.importBatch(rows);
  await store.close();
  assert.deepEqual(await duck(file, "SELECT value FROM footfall_meta WHERE key = 'schema_version'"), [[String(SCHEMA_VERSION)]]);

  // a newer release's store, which also lacks a table this code would make at open
  await duck(file, `UPDATE footfall_meta SET value = '${SCHEMA_VERSION + 1}' WHERE key = 'schema_version'`, 'DROP TABLE imports');
  await assert.rejects(
    openDuckDbEventStore({ file }),
    refusal(new RegExp(`events store .*events\\.duckdb.*schema_version is ${SCHEMA_VERSION + 1}`)),
  );
  assert.deepEqual(await duck(file, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'imports'"), [[0n]], 'imports was not made');
  assert.deepEqual(await duck(file, "SELECT value FROM footfall_meta WHERE key = 'schema_version'"), [[String(SCHEMA_VERSION + 1)]]);

  // a store of a release before versions were kept: opened, brought up, marked
  await duck(file, "DELETE FROM footfall_meta WHERE key = 'schema_version'");
  const reopened = await openDuckDbEventStore({ file });
  try {
    assert.equal((await reopened.siteCoverage('site_a')).events, rows.length);
  } finally {
    await reopened.close();
  }
  assert.deepEqual(await duck(file, "SELECT value FROM footfall_meta WHERE key = 'schema_version'"), [[String(SCHEMA_VERSION)]]);
  assert.deepEqual(await duck(file, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'imports'"), [[1n]]);
});

for (const topology of ['single', 'cluster'] as Topology[]) {
  test(`clickhouse ${topology}: a database of a newer version on any server is refused before anything is written to any`, {
    skip: skipReason(topology),
  }, async (t) => {
    const scratch = scratchUrl(topology);
    t.after(() => scratch.drop());
    let ch = await openClickHouse(scratch.url);
    await ch.store.importBatch(rows);
    const versions = async () =>
      Promise.all(ch.nodes.map(async (n) => (await n.query<{ v: number }>(`SELECT max(version) AS v FROM ${ident(SCHEMA_TABLE)}`))[0].v));
    assert.deepEqual(
      await versions(),
      ch.nodes.map(() => CLICKHOUSE_SCHEMA_VERSION),
    );
    // the last server says a newer release wrote it; the first lacks a view this code would make
    const last = ch.nodes[ch.nodes.length - 1];
    await last.command(`INSERT INTO ${ident(SCHEMA_TABLE)} VALUES (${CLICKHOUSE_SCHEMA_VERSION + 1}, 0)`);
    await ch.nodes[0].command(`DROP TABLE ${ident(ch.layout.trafficMap)}`);
    const nodes = ch.nodes.map((n) => n.opts);
    const trafficMap = ch.layout.trafficMap;
    await ch.close();
    await assert.rejects(
      openClickHouse(scratch.url),
      refusal(new RegExp(`ClickHouse database "${scratch.database}" on .*version is ${CLICKHOUSE_SCHEMA_VERSION + 1}`)),
    );
    // nothing made on the first server: the view is still missing
    const probe = new ClickHouseNode(nodes[0]);
    try {
      const [r] = await probe.query<{ n: number }>(
        `SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = '${trafficMap}'`,
      );
      assert.equal(Number(r.n), 0, 'the view was not made again');
    } finally {
      await probe.close();
    }
    // a database older than ff_schema: opened and marked on every server
    for (const n of nodes) {
      const p = new ClickHouseNode(n);
      await p.command(`DROP TABLE ${ident(SCHEMA_TABLE)}`);
      await p.close();
    }
    ch = await openClickHouse(scratch.url);
    try {
      assert.equal((await ch.store.siteCoverage('site_a')).events, rows.length);
      assert.deepEqual(
        await versions(),
        ch.nodes.map(() => CLICKHOUSE_SCHEMA_VERSION),
      );
    } finally {
      await ch.close();
    }
  });
}
