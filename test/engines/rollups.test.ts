// Daily rollups against the raw tables and the reference model: random data imported through the
// store in two batches, random specs (ranges, filters, tenants, traffic filters); the rollup answer,
// the raw answer and the reference answer must be identical. The reference counts the test's own
// sessions (analytics-fixtures.ts sessionize), never the store's, and the store's sessions must be those.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { DuckDbAnalyticsEngine } from '../../src/engines/duckdb/duckdb-analytics-engine.js';
import { openDuckDbEventStore, type DuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import type { StoredSession } from '../../src/domain/events.js';
import { normalizeSpec } from '../../src/domain/query/query-spec.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { planRollup } from '../../src/engines/sql/read/rollup-plan.js';
import { SITE, dataset, eventDrawArb, type TestEvent } from './analytics-fixtures.js';
import { referenceQuery } from './reference-metrics.js';
import { everyDimension, plain, referenceOf, rowsIn, rowsOf, specArb, specIn } from './rollup-specs.js';
import { runs } from '../helpers/property-runs.js';

const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;

const num = (v: unknown) => (typeof v === 'bigint' ? Number(v) : (v as number));

/** The store's own events and sessions, in the reference model's shapes. */
async function storedRows(store: DuckDbEventStore): Promise<{ events: TestEvent[]; sessions: StoredSession[] }> {
  const c = await store.instance.connect();
  try {
    const events = (await c.runAndReadAll('SELECT * EXCLUDE (day) FROM events'))
      .getRowObjectsJS()
      .map((r) => ({ ...r, ts_ms: num(r.ts_ms), engagement_time_ms: num(r.engagement_time_ms) }) as unknown as TestEvent);
    const sessions = (await c.runAndReadAll('SELECT * EXCLUDE (day), day::VARCHAR AS day FROM sessions')).getRowObjectsJS().map(
      (r) =>
        ({
          ...r,
          start_ms: num(r.start_ms),
          end_ms: num(r.end_ms),
          pageviews: num(r.pageviews),
          events: num(r.events),
          engagement_ms: num(r.engagement_ms),
          meaningful_actions: num(r.meaningful_actions),
        }) as unknown as StoredSession,
    );
    return { events, sessions };
  } finally {
    c.closeSync();
  }
}

/** Sessions as a sorted list of their contents: ids are each sessionizer's own. */
function sessionsAsSet(sessions: readonly StoredSession[]): string[] {
  return sessions.map(({ session_id: _id, ...s }) => JSON.stringify(s, Object.keys(s).sort())).sort();
}

async function withStore<T>(fn: (store: DuckDbEventStore, dir: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-rollups-'));
  const store = await openDuckDbEventStore({ file: ':memory:', threads: 2, tempDir: dir });
  try {
    return await fn(store, dir);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Datasets checked in one store per run (rollup-specs.ts): runs x DATASETS datasets per suite run. */
const DATASETS = 4;

test('rollup answers equal raw answers and the reference model on random data, ranges, filters, tenants and traffic', async () => {
  let viaRollup = 0;
  let checked = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          draws: fc.array(eventDrawArb([SITE, 'site_b']), { minLength: 1, maxLength: 300, size: 'max' }),
          splitPct: fc.integer({ min: 0, max: 100 }),
          // a few random specs and a few of every dimension's per dataset: every spec met often
          specs: fc.array(specArb, { minLength: 5, maxLength: 5 }),
          dimensions: fc.shuffledSubarray(everyDimension(), { minLength: 3, maxLength: 3 }),
        }),
        { minLength: DATASETS, maxLength: DATASETS },
      ),
      async (sets) =>
        withStore(async (store) => {
          // two imports into the same days: the second rebuilds days the first already built
          const first: EventRow[] = [];
          const second: EventRow[] = [];
          sets.forEach(({ draws, splitPct }, j) => {
            const rows = rowsIn(rowsOf(draws), j);
            const cut = Math.floor((rows.length * splitPct) / 100);
            first.push(...rows.slice(0, cut));
            second.push(...rows.slice(cut));
          });
          await store.importBatch(first, { reidentify });
          await store.importBatch(second, { reidentify });
          const rollup = new DuckDbAnalyticsEngine({ connect: () => store.instance.connect(), release: (c) => c.closeSync() });
          const raw = new DuckDbAnalyticsEngine({ connect: () => store.instance.connect(), release: (c) => c.closeSync(), rollups: false });
          // the reference: the drawn events, sessionized by the test (docs/product.md §4.2, §8.3)
          const data = referenceOf(sets.map(({ draws }) => dataset(draws, {})));
          const stored = await storedRows(store);
          assert.deepEqual(
            sessionsAsSet(stored.sessions),
            sessionsAsSet(data.sessions),
            "the importer's sessions are the test sessionizer's",
          );
          for (const [j, { specs, dimensions }] of sets.entries()) {
            for (const spec of [...dimensions, ...specs].map((s) => specIn(s, j))) {
              if (planRollup(normalizeSpec(spec)).use === 'rollup') viaRollup++;
              checked++;
              const [r, w] = await Promise.all([rollup.run(spec, { timeoutMs: 20_000 }), raw.run(spec, { timeoutMs: 20_000 })]);
              const ref = referenceQuery(spec, data.events, data.sessions);
              const label = JSON.stringify(spec);
              assert.deepEqual(plain(spec, r), plain(spec, w), `rollup vs raw: ${label}`);
              assert.deepEqual(plain(spec, r), plain(spec, ref), `rollup vs reference: ${label}`);
            }
          }
        }),
    ),
    { numRuns: runs(40), endOnFailure: true },
  );
  assert.ok(viaRollup >= checked / 3, `only ${viaRollup} of ${checked} specs were answered from the rollups`);
});
