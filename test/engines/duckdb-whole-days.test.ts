// An import into days the store holds moves their rollups either by a delta of the touched
// visitor-days (counted as they were and as they are) or, when those hold most of the days' events,
// by building the days again whole (import-commit.ts). Each path leaves every rollup table, the
// sessions and the page titles exactly as one import of all the rows does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import type { DuckDBInstance } from '@duckdb/node-api';
import { openDuckDbEventStore, type DuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { ACTIONS_TABLE, PAGE_TITLES_TABLE, ROLLUP_TABLE } from '../../src/engines/sql/rollup-tables.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { SITE, eventDrawArb, stamp } from './analytics-fixtures.js';
import { withRunHook } from './duckdb-run-hook.js';

const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;

function fixedRows(seed: number, n: number): EventRow[] {
  const draws = fc.sample(eventDrawArb([SITE, 'site_b']), { seed, numRuns: n });
  const channel = new Map(draws.map((d, i) => [`ev${i}`, d.channel]));
  return stamp(draws, {}).map((e) => ({ ...e, channel: channel.get(e.event_id)!, prop_keys: [], prop_values: [] }));
}

/** Every table an import writes besides the events, as sorted rows. */
async function snapshot(instance: DuckDBInstance): Promise<Record<string, string>> {
  const c = await instance.connect();
  try {
    const out: Record<string, string> = {};
    const tables: Record<string, string> = { events: 'SELECT event_id, session_id, engagement_time_ms FROM events' };
    for (const table of [ROLLUP_TABLE, ACTIONS_TABLE, PAGE_TITLES_TABLE, 'sessions']) tables[table] = `SELECT * FROM "${table}"`;
    for (const [name, select] of Object.entries(tables)) {
      const rows = (await c.runAndReadAll(`${select} ORDER BY ALL`)).getRowsJS();
      out[name] = JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
    }
    return out;
  } finally {
    c.closeSync();
  }
}

/** The SQL scripts run while `fn` runs (an import's statements go in a few scripts). */
async function scriptsOf(fn: () => Promise<unknown>): Promise<string> {
  const seen: string[] = [];
  await withRunHook((sql) => void seen.push(sql), fn);
  return seen.join(';\n');
}

async function importedTwice(
  first: EventRow[],
  second: EventRow[],
): Promise<{ scripts: string; twice: Record<string, string>; once: Record<string, string> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-whole-days-'));
  const open = (name: string): Promise<DuckDbEventStore> => openDuckDbEventStore({ file: path.join(dir, name), threads: 2, tempDir: dir });
  const once = await open('once.duckdb');
  const twice = await open('twice.duckdb');
  try {
    await once.importBatch([...first, ...second], { reidentify });
    await twice.importBatch(first, { reidentify });
    const scripts = await scriptsOf(() => twice.importBatch(second, { reidentify }));
    return { scripts, twice: await snapshot(twice.instance), once: await snapshot(once.instance) };
  } finally {
    await once.close();
    await twice.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const rows = fixedRows(17, 600);

test('a second import whose visitor-days hold most of the days builds the days again whole, as one import would', async () => {
  // every other row of three visitors of four: the second import touches most of every day, and
  // the fourth visitor's visitor-days come into the build as stored
  const second = (r: EventRow, i: number) => i % 2 === 1 && r.visitor_key !== 'k4';
  const { scripts, twice, once } = await importedTwice(
    rows.filter((r, i) => !second(r, i)),
    rows.filter(second),
  );
  assert.match(scripts, /_wdev AS/, 'the days were built whole');
  assert.doesNotMatch(scripts, /_b_ev AS/, 'no before-half was taken');
  assert.ok(JSON.parse(once[ROLLUP_TABLE]).length > 100 && JSON.parse(once[ACTIONS_TABLE]).length > 10, 'the rollups hold rows');
  assert.deepEqual(twice, once);
});

test('a second import of a few visitor-days moves the days by their delta, as one import would', async () => {
  // one visitor of four, a fifth of its rows: far less than half of any day
  const few = (r: EventRow, i: number) => r.visitor_key === 'k1' && i % 5 === 0;
  const { scripts, twice, once } = await importedTwice(
    rows.filter((r, i) => !few(r, i)),
    rows.filter(few),
  );
  assert.match(scripts, /_b_ev AS/, 'the touched visitor-days were counted as they were');
  assert.doesNotMatch(scripts, /_wdev AS/, 'no day was built whole');
  assert.deepEqual(twice, once);
});
