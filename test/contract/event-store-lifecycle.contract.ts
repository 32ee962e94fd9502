// The EventStore's data lifecycle, on every engine: purging days before a horizon, deleting a site's
// data, undoing an import, and the event counts kept at commit. "Consistent" is checked the strongest
// way: every table of the store equals the tables of a fresh store into which only the events that
// should remain were imported. Kill -9 of a child process in the middle of a purge or a deletion leaves
// every day whole or gone, and calling again finishes it.
import { skippable } from '../helpers/services.js';
import assert from 'node:assert/strict';
import { ImportNotFoundError, type EventRow, type EventStore } from '../../src/ports/event-store.js';
import { manyRows } from '../engines/duckdb-import-fixtures.js';
import { storeTest, type EventStoreUnderTest, type TableRows } from './event-store.contract.js';
import { killMidway } from './lifecycle-child.js';

const SITE = 'site_l';
const OTHER = 'site_o';
const START = Date.parse('2025-01-28T00:00:00Z');
const DAY = 86_400_000;
const MONTHS = ['2025-01', '2025-02', '2025-03'];

const dayOf = (r: EventRow) => new Date(r.ts_ms).toISOString().slice(0, 10);
const rowsOf = (site: string, seed: number, n = 500) =>
  manyRows({ siteId: site, n, days: 8, startMs: START, seed, visitors: 40, tenants: [null, 't1'] });

/** The tables as one comparable value: each table's rows sorted. */
function canonical(t: TableRows): Record<string, string[]> {
  return Object.fromEntries(Object.entries(t).map(([table, rows]) => [table, rows.map((r) => `${r.day} ${r.row}`).sort()]));
}

/** Per UTC day, that day's rows of every table. */
function byDay(t: TableRows): Map<string, string> {
  const days = new Map<string, string[]>();
  for (const [table, rows] of Object.entries(t)) for (const r of rows) days.set(r.day, [...(days.get(r.day) ?? []), `${table} ${r.row}`]);
  return new Map([...days].map(([d, rows]) => [d, rows.sort().join('\n')]));
}

function monthCounts(rows: readonly EventRow[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) out.set(dayOf(r).slice(0, 7), (out.get(dayOf(r).slice(0, 7)) ?? 0) + 1);
  return out;
}

async function counts(s: EventStore, site: string): Promise<number[]> {
  return (await s.eventCounts({ siteIds: [site], months: MONTHS })).map((c) => c.events);
}

const expectedCounts = (rows: readonly EventRow[]) => MONTHS.map((m) => monthCounts(rows).get(m) ?? 0);

/**
 * `inMemory`: the store lives in this process only, so no other process can be killed in the middle of its
 * work; the kill -9 cases are then not registered (they run on the file and the ClickHouse stores).
 */
export function runLifecycleContract(
  name: string,
  factory: () => Promise<EventStoreUnderTest>,
  opts: { inMemory?: boolean; skip?: string | false } = {},
): void {
  // a suite that cannot run here lists each of its tests as skipped, with the reason
  const test = skippable(opts.skip);
  const withStore = storeTest(factory);
  /** The tables of a fresh store holding exactly `rows`. */
  const reference = async (rows: readonly EventRow[], site = SITE): Promise<Record<string, string[]>> => {
    const ref = await factory();
    try {
      if (rows.length) await ref.store.importBatch(rows);
      const t = canonical(await ref.tables(site));
      assert.equal(t.events.length, rows.filter((r) => r.site_id === site).length, 'the reference holds the events');
      assert.ok(rows.length === 0 || Object.values(t).every((table) => table.length > 0), 'the reference fills every table');
      return t;
    } finally {
      await ref.close();
    }
  };

  test(
    `${name}: a purge removes the days before the horizon from every table and keeps the boundary day`,
    withStore(async (s, sut) => {
      const rows = rowsOf(SITE, 1);
      const other = rowsOf(OTHER, 2);
      await s.importBatch([...rows, ...other], { importId: 'imp_p' });
      const horizon = '2025-02-01';
      const gone = rows.filter((r) => dayOf(r) < horizon);
      const kept = rows.filter((r) => dayOf(r) >= horizon);
      const otherTables = canonical(await sut.tables(OTHER));
      const before = canonical(await sut.tables(SITE));
      const countsBefore = await counts(s, SITE);
      const v0 = await s.dataVersion(SITE);

      const preview = await s.previewPurge(SITE, horizon);
      assert.deepEqual(canonical(await sut.tables(SITE)), before, 'a preview changes nothing');
      assert.deepEqual(preview, {
        days: 4,
        firstDay: '2025-01-28',
        lastDay: '2025-01-31',
        events: gone.length,
        byMonth: [{ month: '2025-01', events: gone.length }],
      });
      assert.deepEqual(await s.purgeDays(SITE, horizon), preview, 'the purge removes what the preview said');

      const after = await sut.tables(SITE);
      const days = [...byDay(after).keys()];
      assert.ok(days.includes('2025-02-01') && !days.includes('2025-01-31'), `days left: ${days.join(', ')}`);
      assert.deepEqual(canonical(after), await reference(kept), 'every table holds what a store of the kept events holds');
      assert.deepEqual(canonical(await sut.tables(OTHER)), otherTables, 'another site is untouched');
      assert.equal((await s.siteCoverage(SITE)).firstEventAt, new Date(Math.min(...kept.map((r) => r.ts_ms))).toISOString());
      assert.equal((await s.siteCoverage(SITE)).events, kept.length);
      assert.notEqual(await s.dataVersion(SITE), v0, 'reads made before the purge are not reused');
      assert.deepEqual(await counts(s, SITE), countsBefore, 'event counts are usage history: a purge keeps them');
      assert.deepEqual(await s.purgeDays(SITE, horizon), { days: 0, firstDay: null, lastDay: null, events: 0, byMonth: [] }, 'idempotent');

      // the dedupe does not remember purged events: importing them again stores them again
      const again = await s.importBatch(rows);
      assert.equal(again.imported, gone.length);
      assert.deepEqual(canonical(await sut.tables(SITE)), await reference(rows));
    }),
  );

  test(
    `${name}: deleting a site's data removes every row and count of it, and nothing else`,
    withStore(async (s, sut) => {
      const rows = rowsOf(SITE, 3);
      const other = rowsOf(OTHER, 4);
      await s.importBatch([...rows, ...other], { importId: 'imp_d' });
      const otherTables = canonical(await sut.tables(OTHER));
      const otherCounts = await counts(s, OTHER);
      const removed = await s.deleteSiteData(SITE);
      assert.equal(removed.events, rows.length);
      assert.equal(removed.days, 8);
      assert.deepEqual(
        removed.byMonth,
        [...monthCounts(rows)].map(([month, events]) => ({ month, events })),
      );
      assert.deepEqual(canonical(await sut.tables(SITE)), await reference([]), 'nothing of the site is left');
      assert.deepEqual(await s.siteCoverage(SITE), { firstEventAt: null, lastEventAt: null, events: 0 });
      assert.deepEqual(await counts(s, SITE), [0, 0, 0]);
      assert.deepEqual(canonical(await sut.tables(OTHER)), otherTables);
      assert.deepEqual(await counts(s, OTHER), otherCounts);
      assert.equal((await s.deleteSiteData(SITE)).events, 0, 'idempotent');
      assert.equal((await s.importBatch(rows)).imported, rows.length, 'the dedupe does not remember deleted events');
      assert.deepEqual(canonical(await sut.tables(SITE)), await reference(rows));
    }),
  );

  test(
    `${name}: event counts follow imports, live commits and undo, not purges`,
    withStore(async (s) => {
      const a = rowsOf(SITE, 5);
      const live = rowsOf(SITE, 6, 120).map((r) => ({ ...r, ts_ms: r.ts_ms + 40 * DAY })); // into March
      await s.importBatch(a, { importId: 'imp_c1' });
      assert.deepEqual(await counts(s, SITE), expectedCounts(a));
      assert.equal((await s.importBatch(a, { importId: 'imp_c2' })).imported, 0);
      assert.deepEqual(await counts(s, SITE), expectedCounts(a), 'a re-import counts nothing');
      await s.importBatch(live, { checkpoint: { source: 'spool', position: 9 } });
      assert.deepEqual(await counts(s, SITE), expectedCounts([...a, ...live]), 'live collection counts');
      const all = await s.eventCounts({ siteIds: [SITE, 'nobody'], months: ['2025-02', '2025-01'] });
      assert.deepEqual(
        all.map((c) => [c.site_id, c.month]),
        [
          [SITE, '2025-02'],
          [SITE, '2025-01'],
          ['nobody', '2025-02'],
          ['nobody', '2025-01'],
        ],
      );

      const undone = await s.undoImport('imp_c1');
      assert.equal(undone.events, a.length);
      assert.deepEqual(
        undone.bySiteMonth,
        [...monthCounts(a)].map(([month, events]) => ({ site_id: SITE, month, events })),
      );
      assert.deepEqual(await counts(s, SITE), expectedCounts(live), 'undo takes its events off');
      assert.equal((await s.undoImport('imp_c2')).events, 0, 'an import that stored nothing is known and removes nothing');
      await assert.rejects(s.undoImport('imp_unknown'), (e: unknown) => e instanceof ImportNotFoundError && e.code === 'IMPORT_NOT_FOUND');
      await s.importBatch(a, { importId: 'imp_c3' });
      await s.purgeDays(SITE, '2025-03-01');
      assert.deepEqual(await counts(s, SITE), expectedCounts([...a, ...live]), 'a purge keeps the counts');
      await s.deleteSiteData(SITE);
      assert.deepEqual(await counts(s, SITE), [0, 0, 0]);
    }),
  );

  test(
    `${name}: undoing an import removes its events only and rebuilds the days they were on`,
    withStore(async (s, sut) => {
      const a = rowsOf(SITE, 7);
      const b = rowsOf(SITE, 8, 300);
      await s.importBatch(a, { importId: 'imp_a' });
      // b's import re-imports part of a: those events keep the id of the import that stored them first
      await s.importBatch([...b, ...a.slice(0, 60)], { importId: 'imp_b' });
      const ids = await sut.importIdsOf(SITE);
      assert.ok(a.every((r) => ids.get(r.event_id) === 'imp_a'));
      assert.ok(b.every((r) => ids.get(r.event_id) === 'imp_b'));
      const v0 = await s.dataVersion(SITE);

      const undone = await s.undoImport('imp_b');
      assert.equal(undone.events, b.length);
      assert.deepEqual(
        undone.days.map((d) => d.day),
        [...new Set(b.map(dayOf))].sort(),
      );
      assert.deepEqual(canonical(await sut.tables(SITE)), await reference(a), 'every table holds what a store of the other import holds');
      assert.notEqual(await s.dataVersion(SITE), v0);
      assert.equal((await s.undoImport('imp_b')).events, 0, 'undone twice removes nothing more');
      // a re-import of undone events imports them again
      assert.equal((await s.importBatch(b, { importId: 'imp_b2' })).imported, b.length);
      assert.deepEqual(canonical(await sut.tables(SITE)), await reference([...a, ...b]));
      const live = await s.importBatch(rowsOf(SITE, 9, 50), { checkpoint: { source: 'spool', position: 1 } });
      assert.ok(live.imported > 0);
      assert.ok(
        [...(await sut.importIdsOf(SITE)).values()].filter((id) => id === null).length === live.imported,
        'live events carry no import id',
      );
    }),
  );

  for (const op of opts.inMemory ? [] : (['purge', 'delete'] as const)) {
    test(
      `${name}: kill -9 in the middle of a ${op === 'purge' ? 'purge' : 'site deletion'} leaves every day whole or gone, and calling again finishes it`,
      { timeout: 240_000 },
      withStore(async (_, sut) => {
        assert.ok(
          sut.location && sut.release && sut.reopen,
          `${name} must give a location, release and reopen for another process to open it`,
        );
        const rows = rowsOf(SITE, 10, 3000);
        await sut.store.importBatch([...rows, ...rowsOf(OTHER, 11, 300)], { importId: 'imp_k' });
        const before = byDay(await sut.tables(SITE));
        const otherTables = canonical(await sut.tables(OTHER));
        // every round has work to do: a purge one day further, a deletion of data imported again; until
        // two kills have landed in the middle (a kill may come before the child starts, or after it ends)
        let horizon: string | null = null;
        let midway = 0;
        for (let round = 0; round < 7 && midway < 2; round++) {
          if (op === 'purge') horizon = new Date(START + (round + 1) * DAY).toISOString().slice(0, 10);
          else if ((await sut.store.siteCoverage(SITE)).events === 0) await sut.store.importBatch(rows);
          await sut.release();
          const { midway: mid, when: killed } = await killMidway(sut.location, { op, site: SITE, beforeDay: horizon });
          if (mid) midway++;
          await sut.reopen(); // and whatever opening a store finishes
          const now = byDay(await sut.tables(SITE));
          for (const [day, rowsOfDay] of now)
            assert.equal(rowsOfDay, before.get(day), `after a kill ${killed}, day ${day} is whole (or gone)`);
          for (const day of before.keys())
            if (horizon !== null && day >= horizon) assert.ok(now.has(day), `day ${day} is kept after a kill ${killed}`);
        }
        assert.ok(midway > 0, 'a kill landed while the operation ran');
        if (horizon === null) await sut.store.deleteSiteData(SITE);
        else await sut.store.purgeDays(SITE, horizon);
        const kept = horizon === null ? [] : rows.filter((r) => dayOf(r) >= horizon);
        assert.deepEqual(canonical(await sut.tables(SITE)), await reference(kept), 'finished by calling again');
        assert.deepEqual(canonical(await sut.tables(OTHER)), otherTables);
        assert.deepEqual(await counts(sut.store, SITE), horizon === null ? [0, 0, 0] : expectedCounts(rows));
      }),
    );
  }
}
