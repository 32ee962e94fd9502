// The delta step every daily rollup of the DuckDB store shares (the rollups, the action rows): an
// import recounts the visitor-days it touches, and each touched day's stored rows become
//   stored + now - before
// summed by key, where `now` is the rollup of those visitor-days as they stand after the import and
// `before` as they stood (null: none was stored), both counted by one build (before-and-now.ts).
// Every value is a sum over visitor-days, so this is exact. Runs before the import's transaction
// (import-writes.ts): the rows the days will hold become a copy the transaction makes, and the days
// they replace are appended to a write table.
import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdbDialect } from '../sql/dialect.js';
import { addCopy, type CopiedTable, type ImportWrites } from './import-writes.js';
import { isBeforeRow, untaggedSite } from './before-and-now.js';

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

/**
 * Adds to the import's writes the rows of the touched days (`dayMs`: distinct site_id, day_ms) after
 * the import, as a copy into `table`, and appends to `replacedDays` the days whose stored rows they
 * replace. `rows` holds `now`, or with `tagged` both halves of a before-and-now build
 * (before-and-now.ts). A key whose every value sums to zero has no data left (a full build would
 * have no row for it) and is dropped.
 */
export async function prepareDayDelta(
  c: DuckDBConnection,
  r: DayRollup,
  d: { rows: string; tagged: boolean; dayMs: string },
  w: ImportWrites,
  table: CopiedTable,
  replacedDays: string,
): Promise<void> {
  const onDays = `r.site_id = dd.site_id AND r.day_ms = dd.day_ms`;
  const storedRows = `SELECT r.* FROM ${r.table} r SEMI JOIN ${d.dayMs} dd ON ${onDays}`;
  const order = r.readOrder.map(q).join(', ');
  const stored = Number((await c.runAndReadAll(`SELECT count(*) FROM (${storedRows})`)).getRowsJS()[0]?.[0] ?? 0);
  if (!d.tagged && stored === 0) {
    // days new to the store: the rows are the new counts as they stand
    addCopy(w, table, `SELECT * FROM ${d.rows} ORDER BY ${order}`, [d.rows]);
    return;
  }
  // merged now, while the stored rows are as this import found them (the transaction deletes them)
  const merged = `${d.rows}_merged`;
  const keys = r.keys.map(q).join(', ');
  const signed = r.values.map((v) => `CASE WHEN ${isBeforeRow('site_id')} THEN -${q(v)} ELSE ${q(v)} END AS ${q(v)}`);
  const parts = [d.tagged ? `SELECT * REPLACE (${untaggedSite('site_id')} AS site_id, ${signed.join(', ')}) FROM ${d.rows}` : `SELECT * FROM ${d.rows}`];
  if (stored > 0) parts.push(storedRows);
  await c.run(`CREATE OR REPLACE TEMP TABLE ${merged} AS
    SELECT ${keys}, ${r.values.map((v) => `CAST(sum(${q(v)}) AS BIGINT) AS ${q(v)}`).join(', ')}
    FROM (${parts.join(' UNION ALL ')}) GROUP BY ${keys}
    HAVING ${r.values.map((v) => `sum(${q(v)}) <> 0`).join(' OR ')}`);
  addCopy(w, table, `SELECT * FROM ${merged} ORDER BY ${order}`, [merged]);
  if (stored > 0) await c.run(`INSERT INTO ${replacedDays} SELECT site_id, day_ms FROM ${d.dayMs}`);
}
