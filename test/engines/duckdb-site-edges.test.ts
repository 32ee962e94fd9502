// A site's first and newest event (every analytics request's site facts) as the DuckDB store keeps
// them (site-edges.ts): widened by each import instead of scanned again, scanned again after a
// purge, a deletion or an undo. Random sequences of those operations over two sites: after each one,
// the engine's answers through the store's edges equal a scan of the events, and an import that
// adds to known edges costs no scan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { DuckDbAnalyticsEngine } from '../../src/engines/duckdb/duckdb-analytics-engine.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { makeRow } from '../contract/event-store.contract.js';
import { runs } from '../helpers/property-runs.js';

const SITES = ['site_a', 'site_b'] as const;
const DAY = 86_400_000;
const T0 = Date.parse('2025-03-01T00:00:00.000Z');

type Op =
  | { kind: 'import'; rows: { site: number; day: number; ms: number; visitor: number }[]; repeat: number; engagement: boolean }
  | { kind: 'purge'; site: number; beforeDay: number }
  | { kind: 'delete'; site: number }
  | { kind: 'undo'; nth: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('import' as const),
      rows: fc.array(fc.record({ site: fc.nat(1), day: fc.nat(9), ms: fc.nat(DAY - 1), visitor: fc.nat(3) }), { maxLength: 6 }),
      // how many stored events the import sends again (duplicates, left out by the commit)
      repeat: fc.nat(2),
      engagement: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('purge' as const), site: fc.nat(1), beforeDay: fc.nat(10) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), site: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('undo' as const), nth: fc.nat(20) }) },
);

const day = (n: number) => new Date(T0 + n * DAY).toISOString().slice(0, 10);

test("duckdb store: a site's first and newest event follow imports without a scan, and removals with one", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), async (ops) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-edges-'));
      const store = await openDuckDbEventStore({ file: path.join(dir, 'events.duckdb'), tempDir: dir });
      try {
        const connect = () => store.instance.connect();
        const release = (c: { closeSync(): void }) => c.closeSync();
        const kept = new DuckDbAnalyticsEngine({
          connect,
          release,
          dataVersion: (s) => store.dataVersion(s),
          edges: (s) => store.edges.of(s),
        });
        const scanned = new DuckDbAnalyticsEngine({ connect, release });
        const stored: EventRow[] = [];
        const imports: string[] = [];
        const check = async (step: string) => {
          for (const site of SITES) {
            const [first, newest, scanFirst, scanNewest] = await Promise.all([
              kept.firstEventAt(site),
              kept.newestEventAt(site),
              scanned.firstEventAt(site),
              scanned.newestEventAt(site),
            ]);
            assert.deepEqual(
              [first?.getTime() ?? null, newest?.getTime() ?? null],
              [scanFirst?.getTime() ?? null, scanNewest?.getTime() ?? null],
              `${site} after ${step}`,
            );
          }
        };
        await check('open');
        for (const [i, op] of ops.entries()) {
          const scans = store.edges.scans;
          if (op.kind === 'import') {
            const rows = op.rows.map((r) =>
              makeRow({ site_id: SITES[r.site], ts_ms: T0 + r.day * DAY + r.ms, visitor_key: `v${r.visitor}`, path_canon: '/a' }),
            );
            const again = stored.slice(0, op.repeat);
            const importId = `imp${i}`;
            const session = await store.beginImport({ importId });
            await session.append([...rows, ...again]);
            if (op.engagement && stored.length > 0) {
              const to = stored[stored.length - 1];
              await session.appendEngagement([
                {
                  site_id: to.site_id,
                  visitor_key: to.visitor_key,
                  ts_ms: to.ts_ms + 1_000,
                  path_canon: to.path_canon ?? '/a',
                  engagement_ms: 2_000,
                },
              ]);
            }
            await session.commit();
            stored.push(...rows);
            imports.push(importId);
            await check(`import ${i}`);
            // both sites' edges were known before (check), so the import widened them: no scan
            assert.equal(store.edges.scans, scans, `an import costs no scan (${i})`);
          } else {
            if (op.kind === 'purge') await store.purgeDays(SITES[op.site], day(op.beforeDay));
            else if (op.kind === 'delete') await store.deleteSiteData(SITES[op.site]);
            else if (imports.length > 0) await store.undoImport(imports[op.nth % imports.length]);
            await check(`${op.kind} ${i}`);
          }
        }
      } finally {
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }),
    { numRuns: runs(25) },
  );
});

test('duckdb store: readers asking at once share one scan, and a new version is scanned again', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-edges-'));
  const store = await openDuckDbEventStore({ file: path.join(dir, 'events.duckdb'), tempDir: dir });
  try {
    await store.importBatch([makeRow({ ts_ms: T0 + 5_000 }), makeRow({ ts_ms: T0 + 9_000 })]);
    const all = await Promise.all(Array.from({ length: 12 }, () => store.edges.of('site_a')));
    assert.equal(store.edges.scans, 1);
    for (const e of all) assert.deepEqual(e, { firstMs: T0 + 5_000, newestMs: T0 + 9_000 });
    await store.purgeDays('site_a', day(1));
    assert.deepEqual(await store.edges.of('site_a'), { firstMs: null, newestMs: null });
    assert.equal(store.edges.scans, 2, 'a purge makes the next read scan');
    await store.importBatch([makeRow({ ts_ms: T0 + 2 * DAY })]);
    assert.deepEqual(await store.edges.of('site_a'), { firstMs: T0 + 2 * DAY, newestMs: T0 + 2 * DAY });
    assert.equal(store.edges.scans, 2, 'an import after a scan widens the edges');
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
