// The rollups follow the imports: built in each import's transaction, equal whether the days
// arrived in one import or in several, untouched by a re-import, rebuilt at open when missing; the
// page-title rollup answers as the raw page-title query does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbAnalyticsEngine } from '../../src/engines/duckdb/duckdb-analytics-engine.js';
import { openDuckDbEventStore, type DuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { ROLLUP_TABLE } from '../../src/engines/sql/rollup-tables.js';
import type { EventRow } from '../../src/ports/event-store.js';
import type { QuerySpec } from '../../src/domain/query/query-spec.js';
import { TRAFFIC_FILTERS } from '../../src/domain/events.js';
import { duckdbDialect } from '../../src/engines/sql/dialect.js';
import { compilePageTitlesFromRollup } from '../../src/engines/sql/read/compile-page-titles.js';
import type { ReadScope } from '../../src/ports/analytics-engine.js';
import { BASE_MS, DAY, SITE, eventDrawArb, stamp } from './analytics-fixtures.js';
import { withRunHook } from './duckdb-run-hook.js';
import { runs, seeded } from '../helpers/property-runs.js';

const reidentify = (row: EventRow, occurrence: number) => `${row.event_id}~${occurrence}`;

/** Events drawn from `seed` (each test's from this run's seed: test/helpers/property-runs.ts). */
function fixedRows(seed: number, n: number): EventRow[] {
  const draws = fc.sample(eventDrawArb([SITE, 'site_b']), { seed, numRuns: n });
  const channel = new Map(draws.map((d, i) => [`ev${i}`, d.channel]));
  return stamp(draws, {}).map((e) => ({ ...e, channel: channel.get(e.event_id)!, prop_keys: [], prop_values: [] }));
}

async function snapshot(instance: DuckDBInstance): Promise<string> {
  const c = await instance.connect();
  try {
    const rows = (await c.runAndReadAll(`SELECT * FROM ${ROLLUP_TABLE} ORDER BY ALL`)).getRowsJS();
    return JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
  } finally {
    c.closeSync();
  }
}

async function tempStore(dir: string, name = 'events.duckdb'): Promise<DuckDbEventStore> {
  return openDuckDbEventStore({ file: path.join(dir, name), threads: 2, tempDir: dir });
}

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ff-rollups-import-'));
}

test('days imported in three overlapping batches give the same rollup rows as one import', () =>
  seeded(async (seed) => {
    const dir = tmp();
    const rows = fixedRows(seed + 99, 500);
    const once = await tempStore(dir, 'once.duckdb');
    const parts = await tempStore(dir, 'parts.duckdb');
    try {
      await once.importBatch(rows, { reidentify });
      // every batch touches every day: each later one rebuilds days already built
      for (let k = 0; k < 3; k++)
        await parts.importBatch(
          rows.filter((_, i) => i % 3 === k),
          { reidentify },
        );
      const expected = await snapshot(once.instance);
      assert.ok(JSON.parse(expected).length > 100, 'the rollups hold rows');
      assert.equal(await snapshot(parts.instance), expected);
    } finally {
      await once.close();
      await parts.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }));

test('an import commits its rollups with its events: the answer changes the moment it returns', () =>
  seeded(async (seed) => {
    const dir = tmp();
    const rows = fixedRows(seed + 5, 300).filter((r) => r.site_id === SITE);
    const store = await tempStore(dir);
    try {
      const engine = new DuckDbAnalyticsEngine({ connect: () => store.instance.connect(), release: (c) => c.closeSync() });
      const spec: QuerySpec = {
        siteId: SITE,
        tenantIds: null,
        startMs: BASE_MS,
        endMs: BASE_MS + 3 * DAY - 1,
        trafficClasses: ['human', 'ai_agent', 'bot', 'ai_bot'],
        filters: {},
        metrics: ['events', 'pageviews'],
      };
      await store.importBatch(rows.slice(0, 100), { reidentify });
      const [first] = await engine.run(spec, { timeoutMs: 10_000 });
      assert.equal(first.values.events, 100);
      await store.importBatch(rows.slice(100), { reidentify });
      const [second] = await engine.run(spec, { timeoutMs: 10_000 });
      assert.equal(second.values.events, rows.length);
      assert.equal(second.values.pageviews, rows.filter((r) => r.type === 'pageview').length);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }));

test('re-importing a batch changes no rollup row', () =>
  seeded(async (seed) => {
    const dir = tmp();
    const rows = fixedRows(seed + 11, 400);
    const store = await tempStore(dir);
    try {
      await store.importBatch(rows.slice(0, 250), { reidentify });
      await store.importBatch(rows.slice(250), { reidentify });
      const before = await snapshot(store.instance);
      const again = await store.importBatch(rows.slice(100, 300), { reidentify });
      assert.deepEqual([again.imported, again.duplicates], [0, 200]);
      assert.equal(await snapshot(store.instance), before);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }));

test('a store without rollups (an older file, or another version) builds them at open', () =>
  seeded(async (seed) => {
    const dir = tmp();
    const rows = fixedRows(seed + 3, 300);
    try {
      let store = await tempStore(dir);
      await store.importBatch(rows, { reidentify });
      const built = await snapshot(store.instance);
      await store.close();
      for (const breakIt of [`DROP TABLE ${ROLLUP_TABLE}`, `UPDATE footfall_meta SET value = '0' WHERE key = 'rollups_version'`]) {
        const raw = await DuckDBInstance.create(path.join(dir, 'events.duckdb'));
        const c = await raw.connect();
        await c.run(breakIt);
        if (breakIt.startsWith('UPDATE')) await c.run(`DELETE FROM ${ROLLUP_TABLE}`);
        c.closeSync();
        raw.closeSync();
        store = await tempStore(dir);
        assert.equal(await snapshot(store.instance), built, breakIt);
        await store.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }));

test('the rollups built at open are built before their transaction: it makes and drops no scratch table', () =>
  seeded(async (seed) => {
    // DuckDB keeps a table dropped inside a transaction until it ends (import-writes.ts): a build of
    // many days inside one would keep every group's scratch tables.
    const dir = tmp();
    const rows = fixedRows(seed + 5, 400);
    const inTx: string[] = [];
    let open = false;
    try {
      let store = await tempStore(dir);
      await store.importBatch(rows, { reidentify });
      const built = await snapshot(store.instance);
      await store.close();
      const raw = await DuckDBInstance.create(path.join(dir, 'events.duckdb'));
      const c = await raw.connect();
      await c.run(`UPDATE footfall_meta SET value = '0' WHERE key = 'rollups_version'`);
      c.closeSync();
      raw.closeSync();
      const watch = (sql: string) => {
        if (/^BEGIN/i.test(sql)) open = true;
        else if (/^(COMMIT|ROLLBACK)/i.test(sql)) open = false;
        else if (open && /^\s*(CREATE\s+(OR\s+REPLACE\s+)?TEMP|DROP\s+TABLE\s+(IF\s+EXISTS\s+)?ff_)/i.test(sql))
          inTx.push(sql.slice(0, 80));
      };
      store = await withRunHook(watch, () => tempStore(dir));
      assert.equal(await snapshot(store.instance), built);
      await store.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.deepEqual(inTx, []);
  }));

test('page titles from the rollup equal the raw page-title query on random scopes, windows and paths', () =>
  seeded(async (seed) => {
    const dir = tmp();
    // titles vary per event (and some are missing), so "the latest titled pageview" decides
    const rows = fixedRows(seed + 21, 600).map((r, i) => ({
      ...r,
      page_title: r.path_canon === null || i % 4 === 0 ? null : `${r.path_canon} v${i % 5}`,
    }));
    const store = await tempStore(dir);
    try {
      await store.importBatch(rows.slice(0, 300), { reidentify });
      await store.importBatch(rows.slice(300), { reidentify });
      const conn = { connect: () => store.instance.connect(), release: (c: { closeSync(): void }) => c.closeSync() };
      const raw = new DuckDbAnalyticsEngine({ ...conn, titleRollup: false });
      const served = new DuckDbAnalyticsEngine(conn); // as container.ts builds it
      const scopeArb = fc.record({
        siteId: fc.constantFrom(SITE, 'site_b'),
        tenantIds: fc.constantFrom(null, ['t1'], ['t1', 't2'], []),
        trafficClasses: fc.constantFrom(...Object.values(TRAFFIC_FILTERS)),
      });
      const windowArb = fc
        .tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 3 }))
        .map(([d, n]) => ({ startMs: BASE_MS + d * DAY, endMs: BASE_MS + (d + n) * DAY - 1 }));
      const pathsArb = fc.subarray(['/', '/a', '/b', '/café', '/Z', '/\uFFFD', '/😀', '/a/b', '/nope']);
      let titled = 0;
      await fc.assert(
        fc.asyncProperty(scopeArb, windowArb, pathsArb, async (scope, window, paths) => {
          const request = { scope: scope as ReadScope, window, paths };
          assert.match(compilePageTitlesFromRollup(duckdbDialect, request)!.sql, /daily_page_titles/);
          const fromEvents = await raw.pageTitles(request, { timeoutMs: 10_000 });
          const viaRollup = await served.pageTitles(request, { timeoutMs: 10_000 });
          const sorted = (m: Map<string, string>) => [...m].sort((a, b) => a[0].localeCompare(b[0]));
          assert.deepEqual(sorted(viaRollup), sorted(fromEvents));
          titled += fromEvents.size;
        }),
        { numRuns: runs(300) },
      );
      assert.ok(titled > 60, `only ${titled} titles found`);
      const partDay = {
        scope: { siteId: SITE, tenantIds: null, trafficClasses: ['human' as const] },
        window: { startMs: BASE_MS + 1, endMs: BASE_MS + DAY - 1 },
        paths: ['/'],
      };
      assert.equal(compilePageTitlesFromRollup(duckdbDialect, partDay), null);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }));
