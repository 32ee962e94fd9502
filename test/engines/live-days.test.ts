// Live days (src/engines/duckdb/live-days.ts): loads into the day the store's clock calls live
// (today) leave its rollups and action rows alone, and reads count the live day from
// the events: every answer equals the raw answer, while the rollup rows alone would answer otherwise.
// When the days stop being live, the next commit rolls them up: the rollup, action and title rows
// then equal those of a store that never had a live day.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { DuckDbAnalyticsEngine } from '../../src/engines/duckdb/duckdb-analytics-engine.js';
import { openDuckDbEventStore, type DuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { normalizeSpec } from '../../src/domain/query/query-spec.js';
import type { EventRow } from '../../src/ports/event-store.js';
import type { AnalyticsEngine } from '../../src/ports/analytics-engine.js';
import { TRAFFIC_FILTERS } from '../../src/domain/events.js';
import { planRollup } from '../../src/engines/sql/read/rollup-plan.js';
import { ACTIONS_TABLE, PAGE_TITLES_TABLE, ROLLUP_TABLE } from '../../src/engines/sql/rollup-tables.js';
import { BASE_MS, DAY, SITE, eventDrawArb } from './analytics-fixtures.js';
import { actionRows, checkActionsRollup } from './actions-rollup-check.js';
import { makeRow } from '../contract/event-store.contract.js';
import { everyDimension, plain, rowsOf, specArb } from './rollup-specs.js';

const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;
const HOUR = 3_600_000;

async function tables(store: DuckDbEventStore): Promise<Record<string, string>> {
  const c = await store.instance.connect();
  try {
    const out: Record<string, string> = {};
    for (const t of [ROLLUP_TABLE, ACTIONS_TABLE, PAGE_TITLES_TABLE]) {
      out[t] = JSON.stringify((await c.runAndReadAll(`SELECT * FROM "${t}" ORDER BY ALL`)).getRowsJS(), (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
    }
    return out;
  } finally {
    c.closeSync();
  }
}

function enginesOf(store: DuckDbEventStore) {
  const conn = { connect: () => store.instance.connect(), release: (c: { closeSync(): void }) => c.closeSync() };
  return {
    // as container.ts builds it, and without the store's word (reads footfall_meta)
    served: new DuckDbAnalyticsEngine({ ...conn, liveFrom: (siteId) => store.liveFromFor(siteId) }),
    fromMeta: new DuckDbAnalyticsEngine(conn),
    raw: new DuckDbAnalyticsEngine({ ...conn, rollups: false }),
    // the rollup rows alone, live days and all
    stale: new DuckDbAnalyticsEngine({ ...conn, liveFrom: () => null }),
  };
}

/** Imports `rows` (time-ordered) in `parts` cut at times, as live collection hands them over. */
async function loadInParts(store: DuckDbEventStore, rows: readonly EventRow[], parts: number): Promise<void> {
  const first = rows[0].ts_ms;
  const last = rows[rows.length - 1].ts_ms;
  for (let k = 0; k < parts; k++) {
    const from = first + ((last - first + 1) * k) / parts;
    const to = first + ((last - first + 1) * (k + 1)) / parts;
    await store.importBatch(
      rows.filter((r) => r.ts_ms >= from && r.ts_ms < to),
      { reidentify },
    );
  }
}

test('reads that reach the live days equal the raw reads; the days are rolled up exactly when they stop being live', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-live-days-'));
  let staleDiffers = 0;
  let reachedLive = 0;
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventDrawArb([SITE, 'site_b']), { minLength: 30, maxLength: 300, size: 'max' }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(specArb, { minLength: 30, maxLength: 30 }),
        async (draws, parts, specs) => {
          // noon of the fixtures' third day: that day is live
          let now = BASE_MS + 2 * DAY + 12 * HOUR;
          const rows = rowsOf(draws).sort((a, b) => a.ts_ms - b.ts_ms);
          const live = await openDuckDbEventStore({ file: ':memory:', threads: 2, tempDir: dir, clock: () => now });
          const never = await openDuckDbEventStore({ file: ':memory:', threads: 2, tempDir: dir });
          try {
            await loadInParts(live, rows, parts);
            await never.importBatch(rows, { reidentify });
            assert.equal(live.liveFrom(), BASE_MS + 2 * DAY);
            const e = enginesOf(live);
            for (const spec of [...everyDimension(), ...specs]) {
              const label = JSON.stringify(spec);
              const opts = { timeoutMs: 20_000 };
              const [served, fromMeta, raw, stale] = await Promise.all([e.served.run(spec, opts), e.fromMeta.run(spec, opts), e.raw.run(spec, opts), e.stale.run(spec, opts)]);
              assert.deepEqual(plain(spec, served), plain(spec, raw), `served vs raw: ${label}`);
              assert.deepEqual(plain(spec, fromMeta), plain(spec, raw), `liveFrom from footfall_meta vs raw: ${label}`);
              if (spec.endMs >= BASE_MS + 2 * DAY && planRollup(normalizeSpec(spec)).use === 'rollup') {
                reachedLive++;
                if (JSON.stringify(plain(spec, stale)) !== JSON.stringify(plain(spec, raw))) staleDiffers++;
              }
            }

            // two days later the days before the new today are rolled up at the next commit, even an empty one
            now += 2 * DAY;
            await live.importBatch([], { reidentify });
            assert.equal(live.liveFrom(), BASE_MS + 4 * DAY);
            assert.deepEqual(await tables(live), await tables(never), 'rolled up: the rows of a store that never had a live day');
            for (const spec of everyDimension()) {
              const [served, raw] = await Promise.all([e.served.run(spec, { timeoutMs: 20_000 }), e.raw.run(spec, { timeoutMs: 20_000 })]);
              assert.deepEqual(plain(spec, served), plain(spec, raw), `after the roll-up: ${JSON.stringify(spec)}`);
            }
          } finally {
            await live.close();
            await never.close();
          }
        },
      ),
      { numRuns: 6, seed: 20261127, endOnFailure: true },
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(reachedLive > 100, `${reachedLive} rollup reads reached the live days`);
  assert.ok(staleDiffers > reachedLive / 4, `the live days' rollup rows were left alone: ${staleDiffers} of ${reachedLive} differ when read alone`);
});

test('action reads that reach the live days equal the event scan', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-live-days-'));
  const now = BASE_MS + 2 * DAY + 12 * HOUR;
  const store = await openDuckDbEventStore({ file: path.join(dir, 'events.duckdb'), threads: 2, tempDir: dir, clock: () => now });
  try {
    const rows = actionRows(31, 900).sort((a, b) => a.ts_ms - b.ts_ms);
    await loadInParts(store, rows, 4);
    assert.equal(store.liveFrom(), BASE_MS + 2 * DAY);
    const { served, raw, stale } = enginesOf(store);
    const fromRollup = await checkActionsRollup(raw, served, [SITE, 'site_b'], { numRuns: 60, seed: 405 });
    assert.ok(fromRollup > 300, `only ${fromRollup} reads were planned on the rollup`);
    // and the action rows of the live days were left alone: read alone, they miss the live days' actions
    const all = { scope: { siteId: SITE, tenantIds: null, trafficClasses: TRAFFIC_FILTERS.all }, window: { startMs: BASE_MS, endMs: BASE_MS + 3 * DAY - 1 }, advanced: null };
    // (in day order: the order of the rows is not part of the answer)
    const totals = async (engine: AnalyticsEngine) =>
      JSON.stringify((await engine.actionTotals({ selection: all, byDay: true }, { timeoutMs: 20_000 })).sort((a, b) => a.day! - b.day!));
    assert.notEqual(await totals(stale), await totals(raw));
    assert.equal(await totals(served), await totals(raw));
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a site with nothing on the live day reads from the rollups alone, in one statement; one with data there splits, also after a reopen', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-live-days-'));
  const now = BASE_MS + 2 * DAY + 12 * HOUR;
  const file = path.join(dir, 'events.duckdb');
  const open = () => openDuckDbEventStore({ file, threads: 2, tempDir: dir, clock: () => now });
  const row = (site: string, day: number, i: number) => makeRow({ event_id: `${site}-${day}-${i}`, site_id: site, visitor_key: `k${i}`, ts_ms: BASE_MS + day * DAY + (i + 1) * 60_000 });
  const spec = (siteId: string) => ({ siteId, tenantIds: null, startMs: BASE_MS, endMs: BASE_MS + 3 * DAY - 1, trafficClasses: TRAFFIC_FILTERS.all, filters: {}, metrics: ['pageviews' as const], interval: 'day' as const });
  /** the site's daily pageviews, and the statements the read took */
  const read = async (store: DuckDbEventStore, siteId: string) => {
    const engine = enginesOf(store).served;
    const rows = await engine.run(spec(siteId), { timeoutMs: 20_000 });
    return { pageviews: rows.map((r) => [r.bucketMs, r.values.pageviews]), statements: engine.statements };
  };
  let store = await open();
  try {
    await store.importBatch([0, 1, 2].flatMap((d) => [row('site_a', d, 1), row('site_a', d, 2)]), { reidentify });
    await store.importBatch([0, 1].map((d) => row('site_b', d, 1)), { reidentify });
    assert.deepEqual(await read(store, 'site_b'), { pageviews: [[BASE_MS, 1], [BASE_MS + DAY, 1]], statements: 1 });
    assert.deepEqual(await read(store, 'site_a'), { pageviews: [[BASE_MS, 2], [BASE_MS + DAY, 2], [BASE_MS + 2 * DAY, 2]], statements: 2 });
    // the live day's first event of site_b: its reads split from that commit on
    await store.importBatch([row('site_b', 2, 1)], { reidentify });
    assert.deepEqual(await read(store, 'site_b'), { pageviews: [[BASE_MS, 1], [BASE_MS + DAY, 1], [BASE_MS + 2 * DAY, 1]], statements: 2 });
    await store.close();
    store = await open();
    assert.deepEqual(await read(store, 'site_b'), { pageviews: [[BASE_MS, 1], [BASE_MS + DAY, 1], [BASE_MS + 2 * DAY, 1]], statements: 2 });
    assert.deepEqual(await read(store, 'site_c'), { pageviews: [], statements: 1 });
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
