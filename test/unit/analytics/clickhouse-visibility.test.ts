// commit-log.ts visibleRows: the row filter of one server's reads. Pinned to a version whose
// generations are known, runs of consecutive days of one generation as literals; otherwise (or past
// 8 runs) a subquery of the server's log.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { visibleRows } from '../../../src/engines/clickhouse/commit-log.js';

const DAY = 86_400_000;
const D0 = Date.UTC(2026, 0, 1) / DAY; // 2026-01-01 as a day number
const ms = (day: number) => (D0 + day) * DAY;

test('known generations become runs of consecutive days of one generation; days without log rows show nothing', () => {
  const known = new Map([
    [D0 - 1, 7], // before the window: not spelled out
    [D0, 5],
    [D0 + 1, 5],
    [D0 + 2, 6],
    // D0 + 3: no log rows
    [D0 + 4, 6],
  ]);
  const sql = visibleRows(1, 'ff_days', 's', ms(0), ms(4) + 5, 9, known)('events', 'e');
  assert.equal(
    sql,
    "e.`day` >= toDate('2026-01-01') AND e.`day` <= toDate('2026-01-05') AND (" +
      "(e.`day` >= toDate('2026-01-01') AND e.`day` <= toDate('2026-01-02') AND e.`gen` = 5) OR " +
      "(e.`day` >= toDate('2026-01-03') AND e.`day` <= toDate('2026-01-03') AND e.`gen` = 6) OR " +
      "(e.`day` >= toDate('2026-01-05') AND e.`day` <= toDate('2026-01-05') AND e.`gen` = 6))",
  );
});

test('no known day in the window shows no rows', () => {
  const sql = visibleRows(2, 'ff_days', 's', ms(10), ms(12), 9, new Map([[D0, 5]]))('sessions', 's');
  assert.match(sql!, /AND \(0 = 1\)$/);
});

test('without known generations, or past 8 runs, the subquery of the server log pinned to the generation', () => {
  const alternating = new Map(Array.from({ length: 9 }, (_, i) => [D0 + i, i % 2 ? 5 : 6] as [number, number]));
  for (const known of [undefined, alternating]) {
    const sql = visibleRows(2, 'ff_days', 's', ms(0), ms(8), 9, known)('rollups', 'r');
    assert.equal(
      sql,
      "r.`day` >= toDate('2026-01-01') AND r.`day` <= toDate('2026-01-09') AND (r.`day`, r.`gen`) IN (SELECT day, max(gen) FROM `ff_days` " +
        "WHERE site_id = 's' AND shard = 2 AND day >= toDate('2026-01-01') AND day <= toDate('2026-01-09') AND gen <= 9 GROUP BY day)",
    );
  }
  // 8 runs are still spelled out
  const eight = new Map([...alternating].slice(0, 8));
  assert.doesNotMatch(visibleRows(2, 'ff_days', 's', ms(0), ms(8), 9, eight)('rollups', 'r')!, /SELECT/);
});
