// The actions rollup (sql/write/actions-build.ts) on DuckDB: its reads equal the event scan's for random
// selections, after imports into existing days (the delta) and a re-import (dedupe); its rows are the
// same whether the days came in one import or several; a store without it builds it at open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbAnalyticsEngine } from '../../src/engines/duckdb/duckdb-analytics-engine.js';
import { openDuckDbEventStore, type DuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { ACTIONS_TABLE } from '../../src/engines/sql/rollup-tables.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { SITE } from './analytics-fixtures.js';
import { actionRows, checkActionsRollup } from './actions-rollup-check.js';
import { runs, seeded } from '../helpers/property-runs.js';

const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;

async function snapshot(instance: DuckDBInstance): Promise<string> {
  const c = await instance.connect();
  try {
    const rows = (await c.runAndReadAll(`SELECT * FROM ${ACTIONS_TABLE} ORDER BY ALL`)).getRowsJS();
    return JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
  } finally {
    c.closeSync();
  }
}

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ff-actions-rollup-'));
const open = (dir: string, name = 'events.duckdb'): Promise<DuckDbEventStore> =>
  openDuckDbEventStore({ file: path.join(dir, name), threads: 2, tempDir: dir });

/** An engine that reads the actions rollup where it answers, and one that always scans; both record their SQL. */
function engines(store: DuckDbEventStore) {
  const sql: string[] = [];
  const conn = {
    connect: async () => {
      const c = await store.instance.connect();
      const prepare = c.prepare.bind(c);
      return Object.assign(c, { prepare: (s: string) => (sql.push(s), prepare(s)) });
    },
    release: (c: { closeSync(): void }) => c.closeSync(),
  };
  return { sql, scan: new DuckDbAnalyticsEngine({ ...conn, rollups: false }), served: new DuckDbAnalyticsEngine(conn) };
}

test('action reads from the rollup equal the event scan after imports into existing days and a re-import', () =>
  seeded(async (seed) => {
    const dir = tmp();
    const rows = actionRows(seed, 900);
    const store = await open(dir);
    try {
      // every batch touches every day: later ones move stored rows by their delta
      for (let k = 0; k < 3; k++)
        await store.importBatch(
          rows.filter((_, i) => i % 3 === k),
          { reidentify },
        );
      const again = await store.importBatch(rows.slice(100, 300), { reidentify });
      assert.equal(again.imported, 0);
      const { sql, scan, served } = engines(store);
      const fromRollup = await checkActionsRollup(scan, served, [SITE, 'site_b'], { numRuns: runs(200) });
      assert.ok(fromRollup > runs(200) * 3, `only ${fromRollup} reads were planned on the rollup`);
      assert.ok(sql.filter((s) => s.includes(ACTIONS_TABLE)).length >= fromRollup, 'the served engine read the rollup');
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }));

test('the actions rollup rows are the same for one import, several overlapping ones, and a re-import', () =>
  seeded(async (seed) => {
    const dir = tmp();
    const rows = actionRows(seed + 1, 600);
    const once = await open(dir, 'once.duckdb');
    const parts = await open(dir, 'parts.duckdb');
    try {
      await once.importBatch(rows, { reidentify });
      for (let k = 0; k < 4; k++)
        await parts.importBatch(
          rows.filter((_, i) => i % 4 === k),
          { reidentify },
        );
      const expected = await snapshot(once.instance);
      assert.ok(JSON.parse(expected).length > 200, 'the rollup holds rows');
      assert.equal(await snapshot(parts.instance), expected);
      await parts.importBatch(rows.slice(0, 200), { reidentify });
      assert.equal(await snapshot(parts.instance), expected, 're-import');
    } finally {
      await once.close();
      await parts.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }));

test('a store without the actions rollup (the release before it, or another version) builds it at open', async () => {
  const dir = tmp();
  try {
    let store = await open(dir);
    await store.importBatch(actionRows(3, 400), { reidentify });
    const built = await snapshot(store.instance);
    await store.close();
    for (const breakIt of [`DROP TABLE ${ACTIONS_TABLE}`, `DELETE FROM footfall_meta WHERE key = 'actions_rollup_version'`]) {
      const raw = await DuckDBInstance.create(path.join(dir, 'events.duckdb'));
      const c = await raw.connect();
      await c.run(breakIt);
      if (breakIt.startsWith('DELETE')) await c.run(`DELETE FROM ${ACTIONS_TABLE}`);
      c.closeSync();
      raw.closeSync();
      store = await open(dir);
      assert.equal(await snapshot(store.instance), built, breakIt);
      await store.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
