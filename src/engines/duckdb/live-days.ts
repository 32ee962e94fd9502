// The live days of the DuckDB store (docs/decisions/collection-at-the-floor.md). Live collection
// loads every few seconds into the same day, and moving the rollups by the exact delta of each load
// cost about as much as everything else the server does for an event. So the days from `liveFrom`
// on (today, UTC) are not rolled up while they are live: a load whose days are all
// live leaves the rollups and action rows alone (it keeps the page titles, a cheap merge), and reads
// count those days from the events and the other days from the rollups, adding the two partial
// results (duckdb-analytics-engine.ts; every rollup atom is a sum over visitor-days, so the sum is
// exact). When a day stops being live (the first commit after the next UTC midnight starts it, and
// the store runs it beside the loads: duckdb-event-store.ts rollUpEndedDays), its rows are built
// again from its events and sessions, then swapped in, replacing whatever they held, in the
// transaction that moves `liveFrom`. The rows of days before `liveFrom` are exact at every commit; the rows of live
// days are read only for sites with nothing there (liveSitesOf), where they are as empty as the day.
import type { DuckDBConnection } from '@duckdb/node-api';
import { DAY_MS, formatDay } from '../../domain/report-range.js';
import { ACTIONS_TABLE, PAGE_TITLES_COLUMNS, PAGE_TITLES_TABLE, ROLLUP_TABLE } from '../sql/rollup-tables.js';
import { duckdbDialect } from '../sql/dialect.js';
import { buildStoredDays, builtTables, type BuiltDays } from './rollups.js';

const q = duckdbDialect.quoteIdent;

/** footfall_meta's key of liveFrom (the first live day's start, ms) */
export const LIVE_FROM_KEY = 'rollups_live_from';

/**
 * Days counted from the events at read time: today (UTC) alone. Each live day costs every read of a
 * range holding it its raw count; yesterday's late events and engagement, which arrive for minutes
 * after midnight, move its rollups by their delta (in groups of their own: import-commit.ts).
 */
export const LIVE_DAYS = 1;

/** The first live day at `nowMs`. */
export function liveFromAt(nowMs: number): number {
  return Math.floor(nowMs / DAY_MS) * DAY_MS - (LIVE_DAYS - 1) * DAY_MS;
}

/**
 * The UTC day (YYYY-MM-DD) holding `ms`: liveFrom's day as the store writes days (`day::VARCHAR`,
 * DayRef.day). Days compare as these strings, and liveFrom always starts a day, so a day is live
 * when it is `>= liveDay(liveFrom)`.
 */
export function liveDay(ms: number): string {
  return formatDay(ms);
}

/** The stored liveFrom, or null: the store has never left a day out of its rollups (every day's rows are exact). */
export async function readLiveFrom(c: DuckDBConnection): Promise<number | null> {
  return liveFromValue((await c.runAndReadAll(`SELECT value FROM footfall_meta WHERE key = '${LIVE_FROM_KEY}'`)).getRowsJS()[0]?.[0]);
}

/** liveFrom from footfall_meta's value under LIVE_FROM_KEY (undefined: no such row): null when none is stored. */
export function liveFromValue(v: unknown): number | null {
  return v === undefined || v === null ? null : Number(v);
}

const storeLiveFrom = `INSERT INTO footfall_meta VALUES ('${LIVE_FROM_KEY}', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;

/**
 * Moves liveFrom from `from` to `target` when that is later, under the store's commit lock: the
 * days in between are rolled up from their events (every site's), their stored rows replaced, and
 * the new liveFrom stored, in one transaction. From null (every row exact) nothing needs building.
 * Returns liveFrom as it now stands.
 */
export async function advanceLiveDays(c: DuckDBConnection, from: number | null, target: number): Promise<number> {
  if (from !== null && from >= target) return from;
  if (from === null) {
    await c.run(storeLiveFrom, [String(target)]); // one statement: nothing to build
    return target;
  }
  const built = await buildEndedDays(c, from, target);
  try {
    await swapEndedDays(c, from, target, built);
  } finally {
    await dropEndedDays(c, built);
  }
  return target;
}

/**
 * The rollup, page-title and action rows of the days from `from` to `target` (which stopped being
 * live), built from their events and sessions into temp tables of `c`. Reads only: it may run
 * outside the commit lock, while loads into the live days go on (duckdb-event-store.ts).
 */
export async function buildEndedDays(c: DuckDBConnection, from: number, target: number): Promise<BuiltDays> {
  const built = await builtTables(c, `ff_live_${process.pid}`);
  try {
    const days = (
      await c.runAndReadAll(
        `SELECT site_id, day::VARCHAR, count(*) FROM events WHERE day >= DATE '${liveDay(from)}' AND day < DATE '${liveDay(target)}' GROUP BY 1, 2 ORDER BY 1, 2`,
      )
    ).getRowsJS();
    await buildStoredDays(c, days, `ff_live_${process.pid}`, built);
    return built;
  } catch (err) {
    await dropEndedDays(c, built);
    throw err;
  }
}

/**
 * Under the commit lock: replaces the stored rows of the days from `from` to `target` by `built`
 * (buildEndedDays on the same connection) and stores `target` as liveFrom, in one transaction.
 */
export async function swapEndedDays(c: DuckDBConnection, from: number, target: number, built: BuiltDays): Promise<void> {
  const cols = PAGE_TITLES_COLUMNS.map(q).join(', ');
  await c.run('BEGIN TRANSACTION');
  try {
    for (const t of [ROLLUP_TABLE, PAGE_TITLES_TABLE, ACTIONS_TABLE])
      await c.run(`DELETE FROM ${q(t)} WHERE day_ms >= ${from} AND day_ms < ${target}`);
    await c.run(`INSERT INTO ${q(ROLLUP_TABLE)} SELECT * FROM ${built.rollups}`);
    await c.run(`INSERT INTO ${q(PAGE_TITLES_TABLE)} (${cols}) SELECT ${cols} FROM ${built.titles}`);
    await c.run(`INSERT INTO ${q(ACTIONS_TABLE)} SELECT * FROM ${built.actions}`);
    await c.run(storeLiveFrom, [String(target)]);
    await c.run('COMMIT');
  } catch (err) {
    await c.run('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Drops buildEndedDays' tables (after any transaction: tables dropped inside one stay until it ends). */
export async function dropEndedDays(c: DuckDBConnection, built: BuiltDays): Promise<void> {
  for (const x of Object.values(built)) await c.run(`DROP TABLE IF EXISTS ${x}`).catch(() => undefined);
}

/**
 * Every site with events, sessions, rollup or action rows on a day from `liveFrom` on. A site not
 * among them reads its whole range from the rollups without a split: there is nothing of it there
 * for either half to count (duckdb-event-store.ts keeps the set, a superset between recounts).
 */
export async function liveSitesOf(c: DuckDBConnection, liveFrom: number | null): Promise<Set<string>> {
  if (liveFrom === null) return new Set();
  const day = `DATE '${liveDay(liveFrom)}'`;
  const rows = await c.runAndReadAll(
    `SELECT site_id FROM events WHERE day >= ${day} UNION SELECT site_id FROM sessions WHERE day >= ${day}
      UNION SELECT site_id FROM ${q(ROLLUP_TABLE)} WHERE day_ms >= ${liveFrom} UNION SELECT site_id FROM ${q(ACTIONS_TABLE)} WHERE day_ms >= ${liveFrom}`,
  );
  return new Set(rows.getRowsJS().map(([s]) => String(s)));
}
