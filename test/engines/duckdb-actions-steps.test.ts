// The DuckDB build of the action rows (duckdb/actions-steps.ts: per-session tables per level, then
// the groupings) writes exactly the rows of the one-statement-per-grouping form ClickHouse runs
// (compileActionsBuild), also for what imports rarely hold: sessions whose events have several
// traffic classes, an unknown class, actions without a name, simple and other actions mixed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildActionRows } from '../../src/engines/duckdb/duckdb-actions-rollup.js';
import { runCompiled } from '../../src/engines/duckdb/rollups.js';
import { StatementScript } from '../../src/engines/duckdb/statement-script.js';
import { compileActionsBuild, compileActionsInput } from '../../src/engines/sql/write/actions-build.js';
import { ACTION_GROUPINGS, ACTIONS_TABLE } from '../../src/engines/sql/rollup-tables.js';
import { duckdbDialect } from '../../src/engines/sql/dialect.js';
import { compileRollupExpansions } from '../../src/engines/sql/write/rollup-build.js';
import { assertSameBuiltRows, withEdgeRowsStore } from './actions-rollup-check.js';

test('the per-level DuckDB build of the action rows equals the per-grouping build, edge rows included', () =>
  withEdgeRowsStore(11, async (c) => {
    const stats = (
      await c.runAndReadAll(`SELECT count(DISTINCT traffic_class), count(*) FILTER (WHERE action_name IS NULL AND type = 'action') FROM ev`)
    ).getRowsJS()[0];
    assert.ok(Number(stats[0]) >= 4 && Number(stats[1]) > 0, 'the edge rows are there');

    const x = compileRollupExpansions(duckdbDialect);
    await runCompiled(c, `CREATE TEMP TABLE masks AS ${x.trafficMasks.sql}`, x.trafficMasks.params);
    const src = { events: 'ev', sessions: 'sessions' };
    const input = compileActionsInput(duckdbDialect, src);
    await runCompiled(c, `CREATE TEMP TABLE inp AS ${input.sql}`, input.params);
    const expected = compileActionsBuild(duckdbDialect, ACTION_GROUPINGS, 'inp', 'masks');
    await runCompiled(c, `CREATE TEMP TABLE expected AS ${expected.sql}`, expected.params);
    await buildActionRows(c, new StatementScript(), src, 'actual', 'masks');

    await assertSameBuiltRows(c, 'expected', 'actual', ACTION_GROUPINGS.length, '(grp, eligible, dim)');
    const count = async (sql: string) => Number((await c.runAndReadAll(sql)).getRowsJS()[0]?.[0]);
    // the build leaves only its output behind
    assert.equal(await count(`SELECT count(*) FROM duckdb_tables() WHERE temporary AND table_name LIKE 'actual_%'`), 0);
    assert.ok((await count(`SELECT count(*) FROM ${ACTIONS_TABLE}`)) > 0);
  }));
