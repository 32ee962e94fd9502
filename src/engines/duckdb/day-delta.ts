// The delta step every daily rollup of the DuckDB store shares (the rollups, the action rows): an
// import recounts the visitor-days it touches, and each touched day's stored rows become
//   stored + now - before
// summed by key, where `now` is the rollup of those visitor-days as they stand after the import and
// `before` as they stood (null: none was stored), both counted by one build (before-and-now.ts).
// Every value is a sum over visitor-days, so this is exact. Runs before the import's transaction
// (import-writes.ts): the rows the days will hold become a copy the transaction makes, and the days
// they replace are appended to a write table.
import { duckdbDialect } from '../sql/dialect.js';
import { addCopy, type CopiedTable, type ImportWrites } from './import-writes.js';
import { isBeforeRow, untaggedSite } from './before-and-now.js';
import type { StatementScript } from './statement-script.js';

const q = duckdbDialect.quoteIdent;

export interface DayRollup {
  /** the stored table (quoted as needed) */
  table: string;
  /** key columns, site_id and day_ms among them */
  keys: readonly string[];
  /** value columns, summed */
  values: readonly string[];
  /** the columns the rows are sorted by as they are written (the reads' order) */
  readOrder: readonly string[];
}

/** The stored rows of the touched days (`dayMs`: distinct site_id, day_ms), as a SELECT. */
export const storedDayRowsSql = (r: DayRollup, dayMs: string) =>
  `SELECT r.* FROM ${r.table} r SEMI JOIN ${dayMs} dd ON r.site_id = dd.site_id AND r.day_ms = dd.day_ms`;

/**
 * Adds to the import's writes the rows of the touched days (`dayMs`: distinct site_id, day_ms) after
 * the import, as a copy into `table`, and appends to `replacedDays` the days whose stored rows they
 * replace. `rows` holds `now`, or with `tagged` both halves of a before-and-now build
 * (before-and-now.ts); `stored`: how many rows the store holds of those days (storedDayRowsSql).
 * With `whole`, `rows` were built from every event of those days (not only of the touched
 * visitor-days) and replace the stored rows as they are. A key whose every value sums to zero has
 * no data left (a full build would have no row for it) and is dropped. The statements are added to
 * `script`, which the caller runs.
 */
export function prepareDayDelta(
  script: StatementScript,
  r: DayRollup,
  d: { rows: string; tagged: boolean; dayMs: string; stored: number; whole?: boolean },
  w: ImportWrites,
  table: CopiedTable,
  replacedDays: string,
): void {
  const order = r.readOrder.map(q).join(', ');
  if (d.whole || (!d.tagged && d.stored === 0)) {
    // the rows as they stand: the days as a build of all their events has them (as an open's would,
    // replacing what is stored), or days new to the store
    addCopy(w, table, `SELECT * FROM ${d.rows} ORDER BY ${order}`, [d.rows]);
    if (d.whole) script.add(`INSERT INTO ${replacedDays} SELECT site_id, day_ms FROM ${d.dayMs}`);
    return;
  }
  // merged now, while the stored rows are as this import found them (the transaction deletes them)
  const merged = `${d.rows}_merged`;
  const keys = r.keys.map(q).join(', ');
  const signed = r.values.map((v) => `CASE WHEN ${isBeforeRow('site_id')} THEN -${q(v)} ELSE ${q(v)} END AS ${q(v)}`);
  const parts = [
    d.tagged ? `SELECT * REPLACE (${untaggedSite('site_id')} AS site_id, ${signed.join(', ')}) FROM ${d.rows}` : `SELECT * FROM ${d.rows}`,
  ];
  if (d.stored > 0) parts.push(storedDayRowsSql(r, d.dayMs));
  script.add(`CREATE OR REPLACE TEMP TABLE ${merged} AS
    SELECT ${keys}, ${r.values.map((v) => `CAST(sum(${q(v)}) AS BIGINT) AS ${q(v)}`).join(', ')}
    FROM (${parts.join(' UNION ALL ')}) GROUP BY ${keys}
    HAVING ${r.values.map((v) => `sum(${q(v)}) <> 0`).join(' OR ')}`);
  addCopy(w, table, `SELECT * FROM ${merged} ORDER BY ${order}`, [merged]);
  if (d.stored > 0) script.add(`INSERT INTO ${replacedDays} SELECT site_id, day_ms FROM ${d.dayMs}`);
}
