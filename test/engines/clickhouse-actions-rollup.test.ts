// The actions rollup on ClickHouse (one server and two shards): its reads equal the event scan's for
// random selections after imports into existing days and a re-import, and a database of the release
// before it gets it built at open. Skips without the test servers (clickhouse-scratch.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClickHouseAnalyticsEngine } from '../../src/engines/clickhouse/clickhouse-analytics-engine.js';
import { openClickHouse } from '../../src/engines/clickhouse/open-clickhouse.js';
import { ident } from '../../src/engines/clickhouse/schema.js';
import { ACTIONS_COLUMNS } from '../../src/engines/sql/rollup-tables.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { SITE } from './analytics-fixtures.js';
import { actionRows, checkActionsRollup } from './actions-rollup-check.js';
import { committedRows, openScratch, skipReason, type Topology } from './clickhouse-scratch.js';
import { propertySeed, runs, seeded } from '../helpers/property-runs.js';

const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;

for (const topology of ['single', 'cluster'] as Topology[]) {
  test(
    `${topology}: action reads from the rollup equal the event scan after imports into existing days and a re-import`,
    { skip: skipReason(topology) },
    () =>
      seeded(async () => {
        const ch = await openScratch(topology);
        try {
          const rows = actionRows(propertySeed, 900);
          for (let k = 0; k < 3; k++)
            await ch.store.importBatch(
              rows.filter((_, i) => i % 3 === k),
              { reidentify },
            );
          const again = await ch.store.importBatch(rows.slice(100, 300), { reidentify });
          assert.equal(again.imported, 0);
          const scan = new ClickHouseAnalyticsEngine(
            { coordinator: ch.shards[0], shards: ch.shards, layout: ch.layout },
            { actionsRollup: false },
          );
          const before = ch.engine.statements;
          const fromRollup = await checkActionsRollup(scan, ch.engine, [SITE, 'site_b'], { numRuns: runs(25) });
          assert.ok(fromRollup > runs(25) * 2 && ch.engine.statements > before, `only ${fromRollup} reads were planned on the rollup`);
        } finally {
          await ch.close();
        }
      }),
  );
}

const snapshot = async (ch: Awaited<ReturnType<typeof openScratch>>) =>
  (await committedRows(ch, ch.layout.actions, ACTIONS_COLUMNS.map(ident).join(', '))).map((r) => JSON.stringify(r)).sort();

test('a ClickHouse database without the actions rollup (the release before it) builds it at open', {
  skip: skipReason('cluster'),
}, async () => {
  const ch = await openScratch('cluster');
  try {
    const rows = actionRows(3, 500);
    await ch.store.importBatch(rows.slice(0, 300), { reidentify });
    await ch.store.importBatch(rows.slice(200), { reidentify }); // a second generation of the same days
    const built = await snapshot(ch);
    assert.ok(built.length > 100, 'the rollup holds rows');
    for (const n of ch.nodes) await n.command(`DROP TABLE ${ident(ch.layout.actions)}`);
    const reopened = await openClickHouse(ch.scratch.url);
    try {
      assert.deepEqual(await snapshot({ ...ch, ...reopened }), built);
    } finally {
      await reopened.close();
    }
  } finally {
    await ch.close();
  }
});
