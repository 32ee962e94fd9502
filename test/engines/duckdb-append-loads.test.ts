// Loads that only append (src/engines/duckdb/append-load.ts): a day that arrives in time order, in
// several imports (as live collection hands it over) with engagement for earlier pageviews, leaves
// the store exactly as one import of it all does: events (their sessions and engagement), sessions,
// every rollup, the action rows, page titles and event counts. And the imports after the first
// do take the append path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { openDuckDbEventStore, type DuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { ACTIONS_TABLE, PAGE_TITLES_TABLE, ROLLUP_TABLE } from '../../src/engines/sql/rollup-tables.js';
import type { EngagementRow, EventRow } from '../../src/ports/event-store.js';
import { SITE, eventDrawArb, stamp } from './analytics-fixtures.js';
import { rowsIn, siteIn } from './rollup-specs.js';
import { runs } from '../helpers/property-runs.js';

/** Datasets sharing each run's stores (rollup-specs.ts): runs x DATASETS datasets per suite run. */
const DATASETS = 4;
import { withRunHook } from './duckdb-run-hook.js';
import { makeRow } from '../contract/event-store.contract.js';

const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;

/** Every table an import writes, as text (engine-independent), each in a fixed order. */
async function storeState(store: DuckDbEventStore): Promise<Record<string, string>> {
  const c = await store.instance.connect();
  try {
    const out: Record<string, string> = {};
    for (const table of ['events', 'sessions', `"${ROLLUP_TABLE}"`, `"${ACTIONS_TABLE}"`, `"${PAGE_TITLES_TABLE}"`, 'event_counts']) {
      const rows = (await c.runAndReadAll(`SELECT * FROM ${table} ORDER BY ALL`)).getRowsJS();
      out[table] = JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
    }
    return out;
  } finally {
    c.closeSync();
  }
}

async function load(store: DuckDbEventStore, events: readonly EventRow[], engagement: readonly EngagementRow[]): Promise<void> {
  const session = await store.beginImport({ reidentify });
  await session.append(events);
  if (engagement.length) await session.appendEngagement(engagement);
  await session.commit();
}

/** Engagement for some pageviews: the page's time, reported a little later the same day. */
function engagementFor(rows: readonly EventRow[], seed: number): EngagementRow[] {
  const picks = fc.sample(
    fc.tuple(fc.nat(rows.length - 1), fc.integer({ min: 0, max: 40 * 60_000 }), fc.constantFrom(300, 9_000, 60_000)),
    {
      seed,
      numRuns: Math.ceil(rows.length / 3),
    },
  );
  return picks
    .map(([i, later, ms]) => ({ row: rows[i], later, ms }))
    .filter(
      ({ row, later }) =>
        row.type === 'pageview' &&
        row.path_canon !== null &&
        Math.floor((row.ts_ms + later) / 86_400_000) === Math.floor(row.ts_ms / 86_400_000),
    )
    .map(({ row, later, ms }) => ({
      site_id: row.site_id,
      visitor_key: row.visitor_key,
      ts_ms: row.ts_ms + later,
      path_canon: row.path_canon!,
      engagement_ms: ms,
    }));
}

test('a day imported in time order, in parts with engagement, leaves the store as one import does, by the append path', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-append-loads-'));
  let appends = 0;
  try {
    await withRunHook(
      (sql) => {
        // the append's view of the new events with their sessions (append-load.ts)
        if (/CREATE TEMP VIEW \S+_nev AS/.test(sql)) appends++;
      },
      () =>
        fc.assert(
          fc.asyncProperty(
            fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: DATASETS, maxLength: DATASETS }),
            fc.integer({ min: 2, max: 5 }),
            async (seeds, parts) => {
              // several datasets (rollup-specs.ts) in each store: their days arrive together, part by part
              const rows: EventRow[] = [];
              const engagement: EngagementRow[] = [];
              for (const [j, seed] of seeds.entries()) {
                const draws = fc.sample(eventDrawArb([SITE, 'site_b']), { seed, numRuns: 120 });
                const mine = stamp(draws, {}).map((e, i) => ({ ...e, channel: draws[i]?.channel ?? 'Direct' }) as EventRow);
                rows.push(...rowsIn(mine, j));
                engagement.push(...engagementFor(mine, seed).map((g) => ({ ...g, site_id: siteIn(g.site_id, j) })));
              }
              rows.sort((a, b) => a.ts_ms - b.ts_ms);
              engagement.sort((a, b) => a.ts_ms - b.ts_ms);
              const once = await openDuckDbEventStore({ file: ':memory:', threads: 2, tempDir: dir });
              const split = await openDuckDbEventStore({ file: ':memory:', threads: 2, tempDir: dir });
              try {
                await load(once, rows, engagement);
                // parts cut at times: every event and engagement row of a part comes before the next part's
                const first = rows[0].ts_ms;
                const last = rows[rows.length - 1].ts_ms + 40 * 60_000;
                for (let k = 0; k < parts; k++) {
                  const from = first + ((last - first + 1) * k) / parts;
                  const to = first + ((last - first + 1) * (k + 1)) / parts;
                  const inPart = (ts: number) => ts >= from && ts < to;
                  await load(
                    split,
                    rows.filter((r) => inPart(r.ts_ms)),
                    engagement.filter((e) => inPart(e.ts_ms)),
                  );
                }
                const expected = await storeState(once);
                assert.ok(JSON.parse(expected.sessions).length > 5 * DATASETS, 'the store holds sessions');
                assert.deepEqual(await storeState(split), expected);
              } finally {
                await once.close();
                await split.close();
              }
            },
          ),
          { numRuns: runs(20) },
        ),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(appends >= runs(20), `the later parts took the append path (${appends} times)`);
});

test('a pageview without a path stays the entry or exit page of its session when a later import grows the session', async () => {
  // A pageview's path may be NULL: the session's entry page is then NULL, and an append that grows
  // the session must not take the new part's first path in its place (nor a NULL exit page from the
  // stored part when the new part has pageviews).
  const base = Date.UTC(2025, 2, 1, 10);
  const row = (id: string, minute: number, type: 'pageview' | 'action', page: string | null): EventRow =>
    makeRow({
      event_id: id,
      site_id: SITE,
      visitor_key: 'k1',
      ts_ms: base + minute * 60_000,
      type,
      path_canon: page,
      family: type === 'action' ? 'forms' : null,
      action_name: type === 'action' ? 'x' : null,
    });
  const parts = [
    [row('a', 0, 'pageview', null)],
    [row('b', 10, 'pageview', '/a'), row('c', 12, 'action', '/a')],
    [row('d', 15, 'pageview', '/b'), row('e', 20, 'pageview', null)],
  ];
  let appends = 0;
  const once = await openDuckDbEventStore({ file: ':memory:' });
  const split = await openDuckDbEventStore({ file: ':memory:' });
  try {
    await load(once, parts.flat(), []);
    await withRunHook(
      (sql) => {
        if (/CREATE TEMP VIEW \S+_nev AS/.test(sql)) appends++;
      },
      async () => {
        for (const part of parts) await load(split, part, []);
      },
    );
    assert.equal(appends, 2, 'the second and third imports took the append path');
    const c = await split.instance.connect();
    try {
      const sessions = (await c.runAndReadAll('SELECT entry_page, exit_page, pageviews, events FROM sessions')).getRowObjectsJS();
      assert.deepEqual(sessions, [{ entry_page: null, exit_page: null, pageviews: 4n, events: 5n }]);
    } finally {
      c.closeSync();
    }
    assert.deepEqual(await storeState(split), await storeState(once));
  } finally {
    await once.close();
    await split.close();
  }
});
