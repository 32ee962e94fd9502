// Live days (src/engines/duckdb/live-days.ts): loads into the day the store's clock calls live
// (today) leave its rollups and action rows alone, and reads count the live day from
// the events: every answer equals the raw answer, while the rollup rows alone would answer otherwise.
// When the days stop being live, the next commit starts their roll-up beside the loads (a commit that
// touches them meanwhile makes it build them again under the lock): the rollup, action and title rows
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
import { everyDimension, plain, rowsIn, rowsOf, specArb, specIn } from './rollup-specs.js';
import { propertySeed, runs } from '../helpers/property-runs.js';
import { withRunHook } from './duckdb-run-hook.js';

const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;
const HOUR = 3_600_000;

/** The rollup, action and title rows (of the days before `beforeMs`, when given), sorted. */
async function tables(store: DuckDbEventStore, beforeMs?: number): Promise<Record<string, string>> {
  const c = await store.instance.connect();
  try {
    const out: Record<string, string> = {};
    for (const t of [ROLLUP_TABLE, ACTIONS_TABLE, PAGE_TITLES_TABLE]) {
      out[t] = JSON.stringify(
        (
          await c.runAndReadAll(`SELECT * FROM "${t}" ${beforeMs === undefined ? '' : `WHERE day_ms < ${beforeMs}`} ORDER BY ALL`)
        ).getRowsJS(),
        (_k, v) => (typeof v === 'bigint' ? Number(v) : v),
      );
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

/** Datasets sharing each run's stores (rollup-specs.ts): runs x DATASETS datasets per suite run. */
const DATASETS = 4;

test('reads that reach the live days equal the raw reads; the days are rolled up exactly when they stop being live', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-live-days-'));
  let staleDiffers = 0;
  let reachedLive = 0;
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            draws: fc.array(eventDrawArb([SITE, 'site_b']), { minLength: 30, maxLength: 300, size: 'max' }),
            // a few random specs and a few of every dimension's per dataset: every spec met often
            specs: fc.array(specArb, { minLength: 4, maxLength: 4 }),
            dimensions: fc.shuffledSubarray(everyDimension(), { minLength: 3, maxLength: 3 }),
            settled: fc.shuffledSubarray(everyDimension(), { minLength: 2, maxLength: 2 }),
          }),
          { minLength: DATASETS, maxLength: DATASETS },
        ),
        fc.integer({ min: 1, max: 4 }),
        async (sets, parts) => {
          // noon of the fixtures' third day: that day is live
          let now = BASE_MS + 2 * DAY + 12 * HOUR;
          const rows = sets.flatMap(({ draws }, j) => rowsIn(rowsOf(draws), j)).sort((a, b) => a.ts_ms - b.ts_ms);
          const live = await openDuckDbEventStore({ file: ':memory:', threads: 2, tempDir: dir, clock: () => now });
          const never = await openDuckDbEventStore({ file: ':memory:', threads: 2, tempDir: dir });
          try {
            await loadInParts(live, rows, parts);
            await never.importBatch(rows, { reidentify });
            assert.equal(live.liveFrom(), BASE_MS + 2 * DAY);
            const e = enginesOf(live);
            for (const [j, { specs, dimensions }] of sets.entries()) {
              for (const spec of [...dimensions, ...specs].map((s) => specIn(s, j))) {
                const label = JSON.stringify(spec);
                const opts = { timeoutMs: 20_000 };
                const [served, fromMeta, raw, stale] = await Promise.all([
                  e.served.run(spec, opts),
                  e.fromMeta.run(spec, opts),
                  e.raw.run(spec, opts),
                  e.stale.run(spec, opts),
                ]);
                assert.deepEqual(plain(spec, served), plain(spec, raw), `served vs raw: ${label}`);
                assert.deepEqual(plain(spec, fromMeta), plain(spec, raw), `liveFrom from footfall_meta vs raw: ${label}`);
                if (spec.endMs >= BASE_MS + 2 * DAY && planRollup(normalizeSpec(spec)).use === 'rollup') {
                  reachedLive++;
                  if (JSON.stringify(plain(spec, stale)) !== JSON.stringify(plain(spec, raw))) staleDiffers++;
                }
              }
            }

            // two days later the days before the new today are rolled up beside the loads, started by
            // the next commit, even an empty one, which does not wait for it: until then they stay live
            now += 2 * DAY;
            await live.importBatch([], { reidentify });
            assert.equal(live.liveFrom(), BASE_MS + 2 * DAY, 'the commit did not wait for the roll-up');
            await live.liveDaysSettled();
            assert.equal(live.liveFrom(), BASE_MS + 4 * DAY);
            assert.deepEqual(await tables(live), await tables(never), 'rolled up: the rows of a store that never had a live day');
            for (const [j, { settled }] of sets.entries()) {
              for (const spec of settled.map((s) => specIn(s, j))) {
                const [served, raw] = await Promise.all([
                  e.served.run(spec, { timeoutMs: 20_000 }),
                  e.raw.run(spec, { timeoutMs: 20_000 }),
                ]);
                assert.deepEqual(plain(spec, served), plain(spec, raw), `after the roll-up: ${JSON.stringify(spec)}`);
              }
            }
          } finally {
            await live.close();
            await never.close();
          }
        },
      ),
      { numRuns: runs(25), endOnFailure: true },
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(reachedLive > 100, `${reachedLive} rollup reads reached the live days`);
  assert.ok(
    staleDiffers > reachedLive / 4,
    `the live days' rollup rows were left alone: ${staleDiffers} of ${reachedLive} differ when read alone`,
  );
});

test('action reads that reach the live days equal the event scan', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-live-days-'));
  const now = BASE_MS + 2 * DAY + 12 * HOUR;
  const store = await openDuckDbEventStore({ file: path.join(dir, 'events.duckdb'), threads: 2, tempDir: dir, clock: () => now });
  try {
    const rows = actionRows(propertySeed, 900).sort((a, b) => a.ts_ms - b.ts_ms);
    await loadInParts(store, rows, 4);
    assert.equal(store.liveFrom(), BASE_MS + 2 * DAY);
    const { served, raw, stale } = enginesOf(store);
    const fromRollup = await checkActionsRollup(raw, served, [SITE, 'site_b'], { numRuns: runs(150) });
    assert.ok(fromRollup > runs(150) * 2, `only ${fromRollup} reads were planned on the rollup`);
    // and the action rows of the live days were left alone: read alone, they miss the live days' actions
    const all = {
      scope: { siteId: SITE, tenantIds: null, trafficClasses: TRAFFIC_FILTERS.all },
      window: { startMs: BASE_MS, endMs: BASE_MS + 3 * DAY - 1 },
      advanced: null,
    };
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
  const row = (site: string, day: number, i: number) =>
    makeRow({ event_id: `${site}-${day}-${i}`, site_id: site, visitor_key: `k${i}`, ts_ms: BASE_MS + day * DAY + (i + 1) * 60_000 });
  const spec = (siteId: string) => ({
    siteId,
    tenantIds: null,
    startMs: BASE_MS,
    endMs: BASE_MS + 3 * DAY - 1,
    trafficClasses: TRAFFIC_FILTERS.all,
    filters: {},
    metrics: ['pageviews' as const],
    interval: 'day' as const,
  });
  /** the site's daily pageviews, and the statements the read took */
  const read = async (store: DuckDbEventStore, siteId: string) => {
    const engine = enginesOf(store).served;
    const rows = await engine.run(spec(siteId), { timeoutMs: 20_000 });
    return { pageviews: rows.map((r) => [r.bucketMs, r.values.pageviews]), statements: engine.statements };
  };
  let store = await open();
  try {
    await store.importBatch(
      [0, 1, 2].flatMap((d) => [row('site_a', d, 1), row('site_a', d, 2)]),
      { reidentify },
    );
    await store.importBatch(
      [0, 1].map((d) => row('site_b', d, 1)),
      { reidentify },
    );
    assert.deepEqual(await read(store, 'site_b'), {
      pageviews: [
        [BASE_MS, 1],
        [BASE_MS + DAY, 1],
      ],
      statements: 1,
    });
    assert.deepEqual(await read(store, 'site_a'), {
      pageviews: [
        [BASE_MS, 2],
        [BASE_MS + DAY, 2],
        [BASE_MS + 2 * DAY, 2],
      ],
      statements: 2,
    });
    // the live day's first event of site_b: its reads split from that commit on
    await store.importBatch([row('site_b', 2, 1)], { reidentify });
    assert.deepEqual(await read(store, 'site_b'), {
      pageviews: [
        [BASE_MS, 1],
        [BASE_MS + DAY, 1],
        [BASE_MS + 2 * DAY, 1],
      ],
      statements: 2,
    });
    await store.close();
    store = await open();
    assert.deepEqual(await read(store, 'site_b'), {
      pageviews: [
        [BASE_MS, 1],
        [BASE_MS + DAY, 1],
        [BASE_MS + 2 * DAY, 1],
      ],
      statements: 2,
    });
    assert.deepEqual(await read(store, 'site_c'), { pageviews: [], statements: 1 });
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// (a build under the commit lock would hold the loads below for ever: the timeout fails it)
test('an ended day is rolled up beside the loads; a late event for it meanwhile has it built again under the lock', {
  timeout: 120_000,
}, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-live-days-'));
  const row = (day: number, i: number, site = 'site_a') =>
    makeRow({
      event_id: `${site}-${day}-${i}`,
      site_id: site,
      visitor_key: `k${i % 3}`,
      path_canon: `/p${i % 2}`,
      ts_ms: BASE_MS + day * DAY + (i + 1) * 60_000,
    });
  const early = [0, 1, 2].flatMap((d) => [0, 1, 2, 3].map((i) => row(d, i)));
  const late = [row(2, 10), row(2, 11, 'site_b')];
  const today = [row(3, 0), row(3, 1)];
  try {
    for (const lateEvent of [false, true]) {
      let now = BASE_MS + 2 * DAY + 12 * HOUR;
      const live = await openDuckDbEventStore({ file: ':memory:', threads: 2, tempDir: dir, clock: () => now });
      const never = await openDuckDbEventStore({ file: ':memory:', threads: 2, tempDir: dir });
      try {
        await live.importBatch(early, { reidentify });
        await never.importBatch([...early, ...(lateEvent ? late : []), ...today], { reidentify });
        assert.equal(live.liveFrom(), BASE_MS + 2 * DAY);
        // the first build of the ended day, once it has read the day's events and sessions, waits until let go
        let letGo!: () => void;
        const held = new Promise<void>((resolve) => (letGo = resolve));
        let builds = 0;
        let holds = 0;
        await withRunHook(
          async (sql) => {
            if (/^CREATE OR REPLACE TEMP TABLE ff_live_\d+_b_rollups/.test(sql)) builds++;
            if (/^DROP TABLE ff_live_\d+_days$/.test(sql) && ++holds === 1) await held;
          },
          async () => {
            now += DAY;
            await live.importBatch(today, { reidentify }); // starts the roll-up of day 2, and does not wait for it
            assert.equal(live.liveFrom(), BASE_MS + 2 * DAY, 'day 2 stays live until its roll-up is done');
            // loads go on while the build is held: it does not hold the commit lock
            if (lateEvent) await live.importBatch(late, { reidentify });
            else await live.importBatch([], { reidentify });
            const e = enginesOf(live);
            for (const spec of everyDimension()) {
              const [served, raw] = await Promise.all([e.served.run(spec, { timeoutMs: 20_000 }), e.raw.run(spec, { timeoutMs: 20_000 })]);
              assert.deepEqual(plain(spec, served), plain(spec, raw), `during the roll-up: ${JSON.stringify(spec)}`);
            }
            letGo();
            await live.liveDaysSettled();
          },
        );
        assert.equal(live.liveFrom(), BASE_MS + 3 * DAY);
        assert.equal(holds, builds, 'each build read the day and was seen');
        assert.equal(builds, lateEvent ? 2 : 1, lateEvent ? 'built again under the lock' : 'the build was swapped in');
        // (day 3 is live now: its rows wait for its own roll-up)
        assert.deepEqual(
          await tables(live, BASE_MS + 3 * DAY),
          await tables(never, BASE_MS + 3 * DAY),
          'rolled up: the rows of a store that never had a live day',
        );
      } finally {
        await live.close();
        await never.close();
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
