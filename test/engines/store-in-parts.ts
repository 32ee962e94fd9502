// A DuckDB store holding random rows imported in parts (a general import of a random share, then the rest
// in time order, a few at a time: late events into stored days, and loads that only append), with its
// clock on a given instant so that the days from it on are live; and two engines over it: one reading
// the rollups where they answer (the live days from the events), one reading the events only. The
// property tests of the query API's rollup reads (query-quarters, query-props-rollup) compare the two.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DuckDbAnalyticsEngine } from '../../src/engines/duckdb/duckdb-analytics-engine.js';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import type { EventRow } from '../../src/ports/event-store.js';

const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;

export async function withStoreInParts(
  rows: readonly EventRow[],
  splitPct: number,
  nowMs: number,
  fn: (engines: { fromRollups: DuckDbAnalyticsEngine<DuckDBConnection>; events: DuckDbAnalyticsEngine<DuckDBConnection> }) => Promise<void>,
): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-parts-'));
  const store = await openDuckDbEventStore({ file: ':memory:', threads: 2, tempDir: dir, clock: () => nowMs });
  try {
    const cut = Math.floor((rows.length * splitPct) / 100);
    await store.importBatch(rows.slice(0, cut), { reidentify });
    const rest = rows.slice(cut).sort((a, b) => a.ts_ms - b.ts_ms);
    for (let i = 0; i < rest.length; i += 40) await store.importBatch(rest.slice(i, i + 40), { reidentify });
    const connect = { connect: () => store.instance.connect(), release: (c: { closeSync(): void }) => c.closeSync() };
    await fn({
      fromRollups: new DuckDbAnalyticsEngine({ ...connect, liveFrom: (siteId) => store.liveFromFor(siteId) }),
      events: new DuckDbAnalyticsEngine({ ...connect, rollups: false }),
    });
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
