// A live load's shortcuts give the rows of the long way. A build of few source rows (rollups.ts takes
// the session groupings, and each per-session table's action groupings, in one statement each) writes
// exactly the rows of the statement-per-grouping build every bigger one runs, also for what imports
// rarely hold: sessions whose events have several traffic classes, an unknown class, actions without a
// name, simple and other actions mixed. An import whose visitor-days hold no action event leaves the
// action rows alone, as they would be after one import of everything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { buildRollupRows } from '../../src/engines/duckdb/rollups.js';
import { actionRowsOf } from '../../src/engines/duckdb/duckdb-actions-rollup.js';
import { ACTION_GROUPINGS, ROLLUP_GROUPINGS } from '../../src/engines/sql/rollup-tables.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { actionRows, assertSameBuiltRows, withEdgeRowsStore } from './actions-rollup-check.js';

const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;

test('a build of few rows writes the rollup and action rows of the per-grouping build, edge rows included', () =>
  withEdgeRowsStore(23, async (c) => {
    const src = { events: 'ev', sessions: 'sessions' };
    const many = await buildRollupRows(c, src, 'many');
    const few = await buildRollupRows(c, src, 'few', 900);
    // and the quarter-hour grouping, and the custom-property totals (the edge rows carry no property)
    await assertSameBuiltRows(c, many, few, ROLLUP_GROUPINGS.length + 2, '(dim, filter_dim)');
    await assertSameBuiltRows(c, actionRowsOf(many), actionRowsOf(few), ACTION_GROUPINGS.length, '(grp, eligible, dim)');
  }));

test('an import of visitor-days without action events leaves the action rows as one import of everything would', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-rollup-few-'));
  const rows = actionRows(29, 900);
  // visitors of the same days without an action event: the second import adds to their stored visitor-days
  const quiet = rows
    .filter((r) => r.type !== 'action')
    .map((r) => ({ ...r, visitor_key: `${r.visitor_key}-q`, event_id: `${r.event_id}-q` }));
  const first = [...rows, ...quiet.filter((_, i) => i % 2 === 0)];
  const later = quiet.filter((_, i) => i % 2 === 1);
  const dump = async (store: Awaited<ReturnType<typeof openDuckDbEventStore>>) => {
    const c = await store.instance.connect();
    try {
      const out: string[] = [];
      for (const t of ['daily_actions', 'daily_rollups', 'sessions']) {
        out.push(
          JSON.stringify((await c.runAndReadAll(`SELECT * FROM ${t} ORDER BY ALL`)).getRowsJS(), (_k, v) =>
            typeof v === 'bigint' ? String(v) : v,
          ),
        );
      }
      return out;
    } finally {
      c.closeSync();
    }
  };
  const a = await openDuckDbEventStore({ file: path.join(dir, 'a.duckdb'), threads: 2, tempDir: dir });
  const b = await openDuckDbEventStore({ file: path.join(dir, 'b.duckdb'), threads: 2, tempDir: dir });
  try {
    await a.importBatch(first, { reidentify });
    const stored = await dump(a);
    assert.ok(later.length > 100 && later.some((r) => stored[2].includes(r.visitor_key)), 'the later events meet stored visitor-days');
    assert.equal((await a.importBatch(later, { reidentify })).imported, later.length);
    await b.importBatch([...first, ...later], { reidentify });
    const [after, whole] = [await dump(a), await dump(b)];
    assert.ok(JSON.parse(after[0]).length > 100, 'there are action rows');
    assert.deepEqual(after, whole);
  } finally {
    await a.close();
    await b.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
