// The actions rollup in the DuckDB store (sql/write/actions-build.ts; docs/decisions/rollups.md). Built
// with the other rollups: buildRollupRows (rollups.ts) also writes the action rows of its sources
// next to its own, and an import's delta (prepareActionsDelta) merges both the same way (rows of
// the touched visitor-days subtracted as they were, added as they are: distinct sessions are sums
// over visitor-days, since a session is one visitor's on one day). At open, a store without the
// table (or with another ACTIONS_ROLLUP_VERSION) builds it alone, a group of days at a time.
import type { DuckDBConnection } from '@duckdb/node-api';
import { compileActionsInput } from '../sql/write/actions-build.js';
import { ACTIONS_KEY_COLUMNS, ACTIONS_TABLE } from '../sql/rollup-tables.js';
import { actionsGroupingSql, actionsGroupingsSql, actionsSteps } from './actions-steps.js';
import { duckdbDialect } from '../sql/dialect.js';
import type { StatementScript } from './statement-script.js';
import type { RollupSources } from '../sql/write/rollup-build.js';
import { dropScratch, type ImportWrites } from './import-writes.js';
import { prepareDayDelta, storedDayRowsSql, type DayRollup } from './day-delta.js';
import { ACTIONS_DDL, ACTIONS_ROLLUP_VERSION, asTempTable } from './schema.js';

const q = duckdbDialect.quoteIdent;
const READ_COLUMNS = ['site_id', 'grp', 'dim', 'traffic', 'day_ms'];
const READ_ORDER = READ_COLUMNS.map(q).join(', ');
/** The actions table as the import's delta merges it (day-delta.ts). */
const ACTIONS: DayRollup = {
  table: q(ACTIONS_TABLE),
  keys: ACTIONS_KEY_COLUMNS,
  values: ['sessions', 'occurrences'],
  readOrder: READ_COLUMNS,
};
const VERSION_KEY = 'actions_rollup_version';

/** The action rows table buildRollupRows writes next to its rollup rows table `rows`. */
export const actionRowsOf = (rows: string) => `${rows}_act`;

/**
 * Creates the temp table `out`: the action rows (ACTIONS_COLUMNS) of exactly the events and
 * sessions of `src`. `masks` is the rollup build's traffic-mask table. Adds the statements to
 * `script` (after what it holds) and runs it. `few`: the sources are small (rollups.ts, TOGETHER_MAX_ROWS).
 */
export async function buildActionRows(
  c: DuckDBConnection,
  script: StatementScript,
  src: RollupSources,
  out: string,
  masks: string,
  few = false,
): Promise<void> {
  addActionRows(script, src, out, masks, few);
  await script.run(c);
}

/** buildActionRows' statements, added to `script` (which the caller runs). */
export function addActionRows(script: StatementScript, src: RollupSources, out: string, masks: string, few: boolean): void {
  const input = `${out}_in`;
  const x = compileActionsInput(duckdbDialect, src);
  script.add(`CREATE OR REPLACE TEMP TABLE ${input} AS ${x.sql}`, x.params);
  // of the layout this code writes (at open the stored table may be missing or older)
  script.add(asTempTable(ACTIONS_DDL(out)));
  // one statement per step and per grouping: a statement's memory grows with its operators
  // (rollups.ts); a statement of the twelve family groupings passed a 640 MB limit on 6,000 events
  const steps = actionsSteps(input, out);
  const held = new Set([input]);
  for (const [k, s] of steps.entries()) {
    script.add(`CREATE OR REPLACE TEMP TABLE ${s.table} AS ${s.build.sql}`, s.build.params);
    held.add(s.table);
    // few rows: a step's groupings in one statement (actionsGroupingsSql)
    for (const b of few ? [actionsGroupingsSql(s.groupings, out, masks)] : s.groupings.map((g) => actionsGroupingSql(g, out, masks))) {
      script.add(`INSERT INTO ${out} ${b.sql}`, b.params);
    }
    // a table no later step reads goes now (memory)
    for (const t of held) {
      if (steps.slice(k + 1).some((later) => later.reads === t)) continue;
      script.add(`DROP TABLE ${t}`);
      held.delete(t);
    }
  }
}

/** The stored action rows of the touched days (`dayMs`: site_id, day_ms), as a SELECT. */
export const storedActionRowsSql = (dayMs: string) => storedDayRowsSql(ACTIONS, dayMs);

/**
 * Adds an import's delta of the action rows of the touched days (`dayMs`: site_id, day_ms) to its
 * writes: `rows`, the action rows of the touched visitor-days as they are now, or with `tagged` of a
 * before-and-now build (before-and-now.ts: the rows as they were are subtracted), the `stored` rows of
 * those days (storedActionRowsSql) added (they are replaced), keys left at zero dropped; with `whole`,
 * `rows` are every action row of those days and replace the stored ones (prepareDayDelta). Drops `rows`
 * (unless a copy reads it). The statements go to `script`, which the caller runs.
 */
export function prepareActionsDelta(
  script: StatementScript,
  d: { rows: string; tagged: boolean; dayMs: string; stored: number; whole?: boolean },
  w: ImportWrites,
): void {
  prepareDayDelta(script, ACTIONS, d, w, 'actions', w.actionDays);
  dropScratch(script, w, [d.rows]);
}

/** Whether the table must be (re)built at open: missing, or of another version. */
export async function actionsRollupStale(c: DuckDBConnection): Promise<boolean> {
  const version = (await c.runAndReadAll(`SELECT value FROM footfall_meta WHERE key = '${VERSION_KEY}'`)).getRowsJS()[0]?.[0];
  if (version !== String(ACTIONS_ROLLUP_VERSION)) return true;
  const r = await c.runAndReadAll(`SELECT count(*) FROM duckdb_tables() WHERE table_name = '${ACTIONS_TABLE}' AND NOT temporary`);
  return Number(r.getRowsJS()[0]?.[0] ?? 0) === 0;
}

/** Inside the caller's transaction: an empty table of the current layout, marked current. */
export async function resetActionsRollup(c: DuckDBConnection): Promise<void> {
  await c.run(`DROP TABLE IF EXISTS ${q(ACTIONS_TABLE)}`);
  await c.run(ACTIONS_DDL(q(ACTIONS_TABLE)));
  await c.run(`INSERT INTO footfall_meta VALUES ('${VERSION_KEY}', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [
    String(ACTIONS_ROLLUP_VERSION),
  ]);
}

/** Appends the rows buildActionRows wrote to `rows` to `into` (default: the store's table), in read order, and drops `rows`. */
export async function insertActionRows(c: DuckDBConnection, rows: string, into: string = q(ACTIONS_TABLE)): Promise<void> {
  await c.run(`INSERT INTO ${into} SELECT * FROM ${rows} ORDER BY ${READ_ORDER}`);
  await c.run(`DROP TABLE ${rows}`);
}
