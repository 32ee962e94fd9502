// The actions rollup in the DuckDB store (sql/actions-rollup.ts; docs/decisions.md (rollups)). Built
// with the other rollups: buildRollupRows (rollups.ts) also writes the action rows of its sources
// next to its own, and an import's delta merges both the same way (rows of the touched visitor-days
// subtracted as they were, added as they are: distinct sessions are sums over visitor-days, since a
// session is one visitor's on one day). At open, a store without the table (or with another
// ACTIONS_ROLLUP_VERSION) builds it alone, a group of days at a time.
import type { DuckDBConnection } from '@duckdb/node-api';
import { ACTIONS_KEY_COLUMNS, ACTIONS_TABLE, compileActionsInput } from '../sql/actions-rollup.js';
import { actionsGroupingSql, actionsSteps } from './actions-steps.js';
import { duckdbDialect, type SqlParam } from '../sql/dialect.js';
import type { RollupSources } from '../sql/rollup-build.js';
import { ACTIONS_DDL, ACTIONS_ROLLUP_VERSION } from './schema.js';

const q = duckdbDialect.quoteIdent;
const READ_ORDER = ['site_id', 'grp', 'dim', 'traffic', 'day_ms'].map(q).join(', ');
const KEYS = ACTIONS_KEY_COLUMNS.map(q).join(', ');
const VERSION_KEY = 'actions_rollup_version';

/** The action rows table buildRollupRows writes next to its rollup rows table `rows`. */
export const actionRowsOf = (rows: string) => `${rows}_act`;

type Run = (c: DuckDBConnection, sql: string, params: readonly SqlParam[]) => Promise<unknown>;

/**
 * Creates the temp table `out`: the action rows (ACTIONS_COLUMNS) of exactly the events and
 * sessions of `src`. `masks` is the rollup build's traffic-mask table.
 */
export async function buildActionRows(c: DuckDBConnection, run: Run, src: RollupSources, out: string, masks: string): Promise<void> {
  const input = `${out}_in`;
  const x = compileActionsInput(duckdbDialect, src);
  await run(c, `CREATE OR REPLACE TEMP TABLE ${input} AS ${x.sql}`, x.params);
  await c.run(`CREATE OR REPLACE TEMP TABLE ${out} AS SELECT * FROM ${q(ACTIONS_TABLE)} LIMIT 0`);
  // one statement per step and per grouping: a statement's memory grows with its operators
  // (rollups.ts); a statement of the twelve family groupings passed the 640 MB default on 6,000 events
  const steps = actionsSteps(input, out);
  const held = new Set([input]);
  for (const [k, s] of steps.entries()) {
    await run(c, `CREATE OR REPLACE TEMP TABLE ${s.table} AS ${s.build.sql}`, s.build.params);
    held.add(s.table);
    for (const grouping of s.groupings) {
      const b = actionsGroupingSql(grouping, out, masks);
      await run(c, `INSERT INTO ${out} ${b.sql}`, b.params);
    }
    // a table no later step reads goes now (memory)
    for (const t of held) {
      if (steps.slice(k + 1).some((later) => later.reads === t)) continue;
      await c.run(`DROP TABLE ${t}`);
      held.delete(t);
    }
  }
}

/**
 * Merges an import's delta into the stored action rows of the touched days (`dayMs`: site_id,
 * day_ms): `now` added, `before` (null: none stored) subtracted, keys left at zero dropped.
 */
export async function applyActionsDelta(c: DuckDBConnection, now: string, before: string | null, dayMs: string, p: string): Promise<void> {
  const t = q(ACTIONS_TABLE);
  const onDays = `r.site_id = dd.site_id AND r.day_ms = dd.day_ms`;
  const stored = Number((await c.runAndReadAll(`SELECT count(*) FROM ${t} r SEMI JOIN ${dayMs} dd ON ${onDays}`)).getRowsJS()[0]?.[0] ?? 0);
  if (before === null && stored === 0) {
    await c.run(`INSERT INTO ${t} SELECT * FROM ${now} ORDER BY ${READ_ORDER}`);
    await c.run(`DROP TABLE ${now}`);
    return;
  }
  const parts = [`SELECT * FROM ${now}`];
  if (before !== null) parts.push(`SELECT ${KEYS}, -sessions, -occurrences FROM ${before}`);
  if (stored > 0) parts.push(`SELECT r.* FROM ${t} r SEMI JOIN ${dayMs} dd ON ${onDays}`);
  await c.run(`CREATE OR REPLACE TEMP TABLE ${p}_act_merged AS
    SELECT ${KEYS}, CAST(sum(sessions) AS BIGINT) AS sessions, CAST(sum(occurrences) AS BIGINT) AS occurrences
    FROM (${parts.join(' UNION ALL ')}) GROUP BY ${KEYS} HAVING sum(sessions) <> 0 OR sum(occurrences) <> 0`);
  await c.run(`DELETE FROM ${t} r USING ${dayMs} dd WHERE ${onDays}`);
  await c.run(`INSERT INTO ${t} SELECT * FROM ${p}_act_merged ORDER BY ${READ_ORDER}`);
  for (const x of [`${p}_act_merged`, now, ...(before ? [before] : [])]) await c.run(`DROP TABLE IF EXISTS ${x}`);
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
  await c.run(
    `INSERT INTO footfall_meta VALUES ('${VERSION_KEY}', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    [String(ACTIONS_ROLLUP_VERSION)],
  );
}

/** Stores the rows buildActionRows wrote to `rows` and drops that table. */
export async function insertActionRows(c: DuckDBConnection, rows: string): Promise<void> {
  await c.run(`INSERT INTO ${q(ACTIONS_TABLE)} SELECT * FROM ${rows} ORDER BY ${READ_ORDER}`);
  await c.run(`DROP TABLE ${rows}`);
}
