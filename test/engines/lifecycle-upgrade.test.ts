// A store written by the release before the data lifecycle (no import ids, no event counts) opens as
// one of this release: the columns are added and the event counts built once from what it holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { openClickHouse } from '../../src/engines/clickhouse/open-clickhouse.js';
import type { EventRow, EventStore } from '../../src/ports/event-store.js';
import { manyRows } from './duckdb-import-fixtures.js';
import { scratchUrl, skipReason, type Topology } from './clickhouse-scratch.js';
import { ident } from '../../src/engines/clickhouse/schema.js';

const MONTHS = ['2025-01', '2025-02'];
const rows = (site: string, seed: number) => manyRows({ siteId: site, n: 400, days: 8, startMs: Date.parse('2025-01-28T00:00:00Z'), seed });

function perMonth(events: readonly EventRow[]): number[] {
  return MONTHS.map((m) => events.filter((r) => new Date(r.ts_ms).toISOString().startsWith(m)).length);
}

/** What an upgraded store must answer: counts from its events, imports new and old. */
async function checkUpgraded(store: EventStore, a: EventRow[], b: EventRow[]): Promise<void> {
  assert.deepEqual(
    (await store.eventCounts({ siteIds: ['site_a', 'site_b'], months: MONTHS })).map((c) => c.events),
    [...perMonth(a), ...perMonth(b)],
  );
  await assert.rejects(store.undoImport('imp_before'), { code: 'IMPORT_NOT_FOUND' });
  const more = manyRows({ siteId: 'site_a', n: 50, days: 2, startMs: Date.parse('2025-02-10T00:00:00Z'), seed: 9 });
  await store.importBatch(more, { importId: 'imp_after' });
  assert.deepEqual(
    (await store.eventCounts({ siteIds: ['site_a'], months: MONTHS })).map((c) => c.events),
    perMonth([...a, ...more]),
  );
  assert.equal((await store.undoImport('imp_after')).events, more.length);
  assert.deepEqual(
    (await store.eventCounts({ siteIds: ['site_a'], months: MONTHS })).map((c) => c.events),
    perMonth(a),
  );
}

test('duckdb: a store without import ids and event counts gets them at open', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-upgrade-'));
  const file = path.join(dir, 'events.duckdb');
  const a = rows('site_a', 1);
  const b = rows('site_b', 2);
  try {
    let store = await openDuckDbEventStore({ file });
    await store.importBatch([...a, ...b]);
    await store.close();
    const raw = await DuckDBInstance.create(file);
    const c = await raw.connect();
    for (const sql of [
      'DROP TABLE event_counts',
      'DROP TABLE imports',
      "DELETE FROM footfall_meta WHERE key = 'event_counts_version'",
      'ALTER TABLE events DROP COLUMN import_id',
    ])
      await c.run(sql);
    c.closeSync();
    raw.closeSync();
    store = await openDuckDbEventStore({ file });
    try {
      await checkUpgraded(store, a, b);
    } finally {
      await store.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

for (const topology of ['single', 'cluster'] as Topology[]) {
  test(`clickhouse ${topology}: a database without import ids and event counts gets them at open`, {
    skip: skipReason(topology),
  }, async () => {
    const scratch = scratchUrl(topology);
    const a = rows('site_a', 3);
    const b = rows('site_b', 4);
    try {
      let ch = await openClickHouse(scratch.url);
      await ch.store.importBatch([...a, ...b]);
      // back to the layout of the release before: no records in the log, no lifecycle columns
      for (const n of ch.nodes) {
        await n.command(`ALTER TABLE ${ident(ch.layout.days)} DELETE WHERE startsWith(site_id, '#')`);
        for (;;) {
          const [r] = await n.query<{ n: number }>(
            'SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND is_done = 0',
          );
          if (Number(r.n) === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        await n.command(`ALTER TABLE ${ident(ch.layout.days)} DROP COLUMN delta, DROP COLUMN import_id`);
        await n.command(`ALTER TABLE ${ident(ch.layout.events)} DROP COLUMN import_id`);
      }
      await ch.close();
      ch = await openClickHouse(scratch.url);
      try {
        await checkUpgraded(ch.store, a, b);
      } finally {
        await ch.close();
      }
    } finally {
      await scratch.drop();
    }
  });
}
