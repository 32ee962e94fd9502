// The DuckDB build of the action rows (duckdb/actions-steps.ts: per-session tables per level, then
// the groupings) writes exactly the rows of the one-statement-per-grouping form ClickHouse runs
// (compileActionsBuild), also for what imports rarely hold: sessions whose events have several
// traffic classes, an unknown class, actions without a name, simple and other actions mixed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { buildActionRows } from '../../src/engines/duckdb/duckdb-actions-rollup.js';
import { runCompiled } from '../../src/engines/duckdb/rollups.js';
import { StatementScript } from '../../src/engines/duckdb/statement-script.js';
import { compileActionsBuild, compileActionsInput } from '../../src/engines/sql/build/actions-build.js';
import { ACTION_GROUPINGS, ACTIONS_TABLE } from '../../src/engines/sql/rollup-tables.js';
import { duckdbDialect } from '../../src/engines/sql/dialect.js';
import { compileRollupExpansions } from '../../src/engines/sql/build/rollup-build.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { actionRows, edgeEventsTable } from './actions-rollup-check.js';

const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;

test('the per-level DuckDB build of the action rows equals the per-grouping build, edge rows included', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-actions-steps-'));
  const store = await openDuckDbEventStore({ file: path.join(dir, 'events.duckdb'), threads: 2, tempDir: dir });
  const c = await store.instance.connect();
  try {
    await store.importBatch(actionRows(11, 900), { reidentify });
    await edgeEventsTable(c);
    const stats = (await c.runAndReadAll(`SELECT count(DISTINCT traffic_class), count(*) FILTER (WHERE action_name IS NULL AND type = 'action') FROM ev`)).getRowsJS()[0];
    assert.ok(Number(stats[0]) >= 4 && Number(stats[1]) > 0, 'the edge rows are there');

    const x = compileRollupExpansions(duckdbDialect);
    await runCompiled(c, `CREATE TEMP TABLE masks AS ${x.trafficMasks.sql}`, x.trafficMasks.params);
    const src = { events: 'ev', sessions: 'sessions' };
    const input = compileActionsInput(duckdbDialect, src);
    await runCompiled(c, `CREATE TEMP TABLE inp AS ${input.sql}`, input.params);
    const expected = compileActionsBuild(duckdbDialect, ACTION_GROUPINGS, 'inp', 'masks');
    await runCompiled(c, `CREATE TEMP TABLE expected AS ${expected.sql}`, expected.params);
    await buildActionRows(c, new StatementScript(), src, 'actual', 'masks');

    const count = async (sql: string) => Number((await c.runAndReadAll(sql)).getRowsJS()[0]?.[0]);
    const n = await count(`SELECT count(*) FROM expected`);
    assert.ok(n > 1000, `the build writes rows (${n})`);
    assert.equal(await count(`SELECT count(*) FROM actual`), n);
    assert.equal(await count(`SELECT count(*) FROM (SELECT * FROM expected EXCEPT ALL SELECT * FROM actual)`), 0);
    assert.equal(await count(`SELECT count(*) FROM (SELECT * FROM actual EXCEPT ALL SELECT * FROM expected)`), 0);
    // every grouping has rows
    assert.equal(await count(`SELECT count(DISTINCT (grp, eligible, dim)) FROM actual`), ACTION_GROUPINGS.length);
    // the build leaves only its output behind
    assert.equal(await count(`SELECT count(*) FROM duckdb_tables() WHERE temporary AND table_name LIKE 'actual_%'`), 0);
    assert.ok((await count(`SELECT count(*) FROM ${ACTIONS_TABLE}`)) > 0);
  } finally {
    c.closeSync();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
