// A store written by the release before the data lifecycle (no import ids, no event counts, no custom
// properties) opens as one of this release: the columns are added (its events without props) and the event
// counts built once from what it holds.
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

/**
 * What an upgraded store must answer: counts from its events, imports new and old; `withProps` counts the
 * events holding props and the events holding two empty arrays (what a read sees).
 */
async function checkUpgraded(
  store: EventStore,
  a: EventRow[],
  b: EventRow[],
  withProps: () => Promise<{ props: number; none: number }>,
): Promise<void> {
  assert.deepEqual(await withProps(), { props: 0, none: a.length + b.length });
  assert.deepEqual(
    (await store.eventCounts({ siteIds: ['site_a', 'site_b'], months: MONTHS })).map((c) => c.events),
    [...perMonth(a), ...perMonth(b)],
  );
  await assert.rejects(store.undoImport('imp_before'), { code: 'IMPORT_NOT_FOUND' });
  const more = manyRows({ siteId: 'site_a', n: 50, days: 2, startMs: Date.parse('2025-02-10T00:00:00Z'), seed: 9 }).map((r) => ({
    ...r,
    prop_keys: ['plan'],
    prop_values: ['pro'],
  }));
  await store.importBatch(more, { importId: 'imp_after' });
  assert.deepEqual(await withProps(), { props: more.length, none: a.length + b.length });
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

test('duckdb: a store without import ids, event counts and custom properties gets them at open', async () => {
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
      'ALTER TABLE events DROP COLUMN prop_keys',
      'ALTER TABLE events DROP COLUMN prop_values',
    ])
      await c.run(sql);
    c.closeSync();
    raw.closeSync();
    store = await openDuckDbEventStore({ file });
    const opened = store;
    try {
      await checkUpgraded(store, a, b, async () => {
        const c = await opened.instance.connect();
        try {
          const [[props, none]] = (
            await c.runAndReadAll(
              `SELECT count(*) FILTER (WHERE len(prop_keys) = 1 AND prop_values = ['pro']), count(*) FILTER (WHERE prop_keys = [] AND prop_values = []) FROM events`,
            )
          ).getRowsJS();
          return { props: Number(props), none: Number(none) };
        } finally {
          c.closeSync();
        }
      });
    } finally {
      await store.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

for (const topology of ['single', 'cluster'] as Topology[]) {
  test(`clickhouse ${topology}: a database without import ids, event counts and custom properties gets them at open`, {
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
        await n.command(`ALTER TABLE ${ident(ch.layout.events)} DROP COLUMN import_id, DROP COLUMN prop_keys, DROP COLUMN prop_values`);
      }
      await ch.close();
      ch = await openClickHouse(scratch.url);
      const opened = ch;
      try {
        await checkUpgraded(ch.store, a, b, async () => {
          let props = 0;
          let none = 0;
          // the current generation of each day on each server (what a read sees)
          for (const n of opened.nodes) {
            const [r] = await n.query<{ p: number; e: number }>(
              `SELECT countIf(prop_keys = ['plan'] AND prop_values = ['pro']) AS p, countIf(empty(prop_keys) AND empty(prop_values)) AS e
               FROM ${ident(opened.layout.events)}
               WHERE (site_id, day, gen) IN (SELECT site_id, day, max(gen) FROM ${ident(opened.layout.events)} GROUP BY site_id, day)`,
            );
            props += Number(r.p);
            none += Number(r.e);
          }
          return { props, none };
        });
      } finally {
        await ch.close();
      }
    } finally {
      await scratch.drop();
    }
  });
}
