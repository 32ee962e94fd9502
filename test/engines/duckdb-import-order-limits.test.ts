// The DuckDB import's answers do not depend on how the rows arrive (order, chunks, commit groups,
// one import or several), and an import stopped by a memory or disk limit leaves the store exactly
// as it was, with a message naming the cause and the setting to change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDuckDbEventStore, type DuckDbEventStore, type DuckDbEventStoreOptions } from '../../src/engines/duckdb/duckdb-event-store.js';
import { ImportResourceError } from '../../src/engines/duckdb/duckdb-instance.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { manyRows, shuffled } from './duckdb-import-fixtures.js';
import { withRunHook } from './duckdb-run-hook.js';
import type { DuckDBConnection } from '@duckdb/node-api';

const START = Date.UTC(2025, 0, 1);
const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;

/** Everything a reader can see, in a canonical order (rowids and insertion order aside). */
async function snapshot(store: DuckDbEventStore): Promise<Record<string, string>> {
  const c = await store.instance.connect();
  try {
    const out: Record<string, string> = {};
    for (const t of ['events', 'sessions', 'daily_rollups', 'daily_page_titles']) {
      const rows = (await c.runAndReadAll(`SELECT * FROM ${t} ORDER BY ALL`)).getRowsJS();
      out[t] = JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
    }
    return out;
  } finally {
    c.closeSync();
  }
}

async function withStore<T>(opts: Partial<DuckDbEventStoreOptions>, fn: (store: DuckDbEventStore) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-import-order-'));
  const store = await openDuckDbEventStore({ file: path.join(dir, 'events.duckdb'), threads: 2, ...opts });
  try {
    return await fn(store);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function importInChunks(store: DuckDbEventStore, rows: readonly EventRow[], chunk: number) {
  const s = await store.beginImport({ reidentify });
  for (let i = 0; i < rows.length; i += chunk) await s.append(rows.slice(i, i + chunk));
  return s.commit();
}

test('unordered input gives the same events, sessions, rollups and titles as ordered input, in any chunks and commit groups', async () => {
  const rows = manyRows({ siteId: 'site_o', n: 6_000, days: 9, startMs: START, seed: 11, visitors: 900, tenants: [null, 't1', 't2'] });
  // a few exact repeats: their identities are numbered whatever the order
  const input = [...rows, rows[10], rows[10], rows[200]];
  const ordered = await withStore({}, async (store) => {
    const r = await importInChunks(store, input, 100_000);
    assert.equal(r.imported, input.length);
    return snapshot(store);
  });
  for (const [label, opts, order, chunk] of [
    ['shuffled, one commit group', {}, shuffled(input, 1), 1_000],
    ['shuffled, commit groups of ~700 rows', { commitGroupRows: 700 }, shuffled(input, 2), 777],
    ['reversed, one row per chunk at the start', { commitGroupRows: 2_500 }, [...input].reverse(), 1_500],
  ] as const) {
    await withStore(opts, async (store) => {
      const r = await importInChunks(store, order, chunk);
      assert.equal(r.imported, input.length, label);
      assert.deepEqual(await snapshot(store), ordered, label);
    });
  }
});

test('the same rows in several imports, late days and late visitors included, equal one import', async () => {
  const rows = manyRows({ siteId: 'site_o', n: 4_000, days: 6, startMs: START, seed: 12, visitors: 500, tenants: [null, 't1'] });
  const once = await withStore({}, async (store) => {
    await importInChunks(store, rows, 4_000);
    return snapshot(store);
  });
  const mixed = shuffled(rows, 3);
  await withStore({ commitGroupRows: 900 }, async (store) => {
    let imported = 0;
    for (const part of [mixed.slice(0, 1_500), mixed.slice(1_500, 1_510), mixed.slice(1_510, 3_000), mixed.slice(3_000)]) {
      imported += (await importInChunks(store, part, 600)).imported;
    }
    assert.equal(imported, rows.length);
    // re-importing everything adds nothing and changes nothing
    const again = await importInChunks(store, mixed, 1_000);
    assert.equal(again.imported, 0);
    assert.equal(again.duplicates, rows.length);
    assert.deepEqual(await snapshot(store), once);
  });
});

/** A store file with a first import in it, then reopened under `limits` for the test. */
async function withLimitedStore(
  limits: Partial<DuckDbEventStoreOptions>,
  fn: (store: DuckDbEventStore, first: EventRow[]) => Promise<void>,
) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-import-limits-'));
  const file = path.join(dir, 'events.duckdb');
  const first = manyRows({ siteId: 'site_m', n: 2_000, days: 3, startMs: START, seed: 21 });
  try {
    const plain = await openDuckDbEventStore({ file, threads: 2 });
    await importInChunks(plain, first, 2_000);
    await plain.close();
    const limited = await openDuckDbEventStore({ file, threads: 2, ...limits });
    try {
      await fn(limited, first);
    } finally {
      await limited.close();
    }
    // once the limits are raised, the store takes the same import
    const again = await openDuckDbEventStore({ file, threads: 2 });
    try {
      const more = manyRows({ siteId: 'site_m', n: 300, days: 1, startMs: START + 5 * 86_400_000, seed: 23 });
      assert.equal((await importInChunks(again, more, 300)).imported, 300);
      assert.equal((await again.siteCoverage('site_m')).events, first.length + more.length);
    } finally {
      await again.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const big = () => manyRows({ siteId: 'site_m', n: 150_000, days: 20, startMs: START, seed: 22, visitors: 30_000 });

test('an import that runs out of memory leaves the store unchanged, names the memory setting, and the store keeps serving', async () => {
  await withLimitedStore({ memoryLimit: '64MB', tempLimit: '1GB' }, async (store, first) => {
    const before = await snapshot(store);
    await assert.rejects(importInChunks(store, big(), 25_000), (err: unknown) => {
      assert.ok(err instanceof ImportResourceError, String(err));
      assert.equal(err.code, 'IMPORT_OUT_OF_MEMORY');
      assert.match(err.message, /limit of 64MB/);
      assert.match(err.message, /FOOTFALL_DUCKDB_MEMORY_LIMIT/);
      assert.match(err.message, /Nothing of this import was stored/);
      return true;
    });
    assert.deepEqual(await snapshot(store), before);
    assert.equal((await store.siteCoverage('site_m')).events, first.length);
  });
});

test('an import whose temp space runs out during its commit leaves the store unchanged, names the temp cap, and leaves no temp files', async () => {
  await withLimitedStore({ memoryLimit: '100MB', tempLimit: '1MB' }, async (store, first) => {
    const before = await snapshot(store);
    await assert.rejects(importInChunks(store, big(), 25_000), (err: unknown) => {
      assert.ok(err instanceof ImportResourceError, String(err));
      assert.equal(err.code, 'IMPORT_OUT_OF_DISK');
      assert.match(err.message, /cap of 1MB/);
      assert.match(err.message, /FOOTFALL_DUCKDB_TEMP_LIMIT/);
      return true;
    });
    assert.deepEqual(await snapshot(store), before);
    assert.equal((await store.siteCoverage('site_m')).events, first.length);
    assert.deepEqual(fs.readdirSync(store.tempDir), []);
  });
});

test('commit groups leave no scratch tables behind but those the commit copies from, the same few per group', async () => {
  // Every group names its own scratch tables; kept until the import's connection closes, they
  // added up past the memory limit on 10M events. A group keeps only the tables the transaction
  // copies its rows from (its new events, their session ids, its sessions, its rollup rows, its
  // action rows: import-writes.ts) and drops the rest. Counted as each group starts.
  const seen: number[] = [];
  const countTemps = async (sql: string, c: DuckDBConnection) => {
    if (/^CREATE TEMP TABLE \S+_v AS SELECT DISTINCT site_id, day, visitor_key/.test(sql)) {
      const r = await c.runAndReadAll('SELECT count(*) FROM duckdb_tables() WHERE temporary');
      seen.push(Number(r.getRowsJS()[0][0]));
    }
  };
  const rows = manyRows({ siteId: 'site_t', n: 3_000, days: 8, startMs: START, seed: 13, visitors: 400, tenants: [null, 't1'] });
  await withRunHook(countTemps, () =>
    withStore({ commitGroupRows: 400 }, async (store) => {
      const r = await importInChunks(store, rows, 100_000);
      assert.equal(r.imported, rows.length);
    }),
  );
  assert.ok(seen.length >= 4, `only ${seen.length} commit groups`);
  // from the second group on: the first also makes the rollups' expansion maps, which later groups replace
  const added = seen.slice(2).map((n, i) => n - seen[i + 1]);
  assert.deepEqual(
    added,
    added.map(() => 5),
    `temp tables at each group: ${seen.join(', ')}`,
  );
});

test('the commit transaction makes and drops no table: every scratch table is made and dropped before it', async () => {
  // DuckDB keeps a table dropped inside a transaction until the transaction ends: with the commit
  // groups' scratch tables inside it, 10M events ran out of the 640 MB limit in the sixth group.
  const inTx: string[] = [];
  let open = false;
  let writes = 0;
  let armed = false; // from the first import on (opening a new store makes its tables in a transaction)
  const watch = (sql: string) => {
    if (!armed) return;
    // each statement of a script (the transaction goes as one: statement-script.ts)
    for (const statement of sql.split(';\n')) {
      if (/^\s*BEGIN/i.test(statement)) open = true;
      else if (/^\s*(COMMIT|ROLLBACK)/i.test(statement)) open = false;
      else if (open && /^\s*(CREATE|DROP|ALTER)\b/i.test(statement)) inTx.push(statement.slice(0, 80));
      else if (open && /^\s*(INSERT|UPDATE|DELETE)\b/i.test(statement)) writes++;
    }
  };
  const rows = manyRows({ siteId: 'site_x', n: 2_000, days: 6, startMs: START, seed: 17, visitors: 300, tenants: [null, 't1'] });
  await withRunHook(watch, () =>
    withStore({ commitGroupRows: 500 }, async (store) => {
      armed = true;
      // a first import, then one into the same days (stored visitor-days: updates, merged rollups)
      assert.equal((await importInChunks(store, rows.slice(0, 1_200), 100_000)).imported, 1_200);
      assert.equal((await importInChunks(store, rows.slice(800), 100_000)).imported, rows.length - 1_200);
    }),
  );
  assert.ok(writes > 0, 'no write ran inside a transaction');
  assert.deepEqual(inTx, []);
});
