// Daily rollups in the DuckDB store: rebuilt inside an import's commit transaction for every
// (site, day) it touched (so a report sees today's events the moment the import returns), built
// for every stored day when the store opens without them, and detected by the engine.
import { BIGINT, BOOLEAN, DOUBLE, VARCHAR, type DuckDBConnection, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import { ROLLUP_TABLE } from '../sql/compile-rollup.js';
import { compileRollupBuild, compileRollupExpansions, ROLLUP_COLUMNS } from '../sql/rollup-build.js';
import { duckdbDialect, type ParamType, type SqlParam } from '../sql/dialect.js';
import { planRollup, ROLLUP_GROUPINGS } from '../sql/rollup-plan.js';
import { DEFAULT_TABLES, type TableNames } from '../sql/compile-query.js';
import type { NormalizedSpec } from '../../domain/query/query-spec.js';
import { PAGE_TITLES_DDL, ROLLUPS_DDL, ROLLUPS_VERSION } from './schema.js';
import { compilePageTitlesBuild, PAGE_TITLES_COLUMNS, PAGE_TITLES_TABLE } from '../sql/page-titles-rollup.js';
import type { DuckConnection } from './analytics-engine.js';

const READ_ORDER = ['site_id', 'dim', 'filter_dim', 'traffic', 'all_tenants', 'tenant_id', 'day_ms'].map((c) => duckdbDialect.quoteIdent(c)).join(', ');
const TYPES: Record<ParamType, DuckDBType> = { varchar: VARCHAR, bigint: BIGINT, double: DOUBLE, boolean: BOOLEAN };
const bind = (p: SqlParam): DuckDBValue => (p.value === null ? null : p.type === 'bigint' ? BigInt(p.value as number) : (p.value as DuckDBValue));

/**
 * Replaces the rollup rows of the (site_id, day) pairs in `days` (a table with the events' DATE
 * `day`) by rows computed from the events and sessions as they now stand. Runs inside the caller's
 * transaction: the rollups commit or roll back with the events.
 */
export async function rebuildRollups(c: DuckDBConnection, days: string, table: string = ROLLUP_TABLE): Promise<void> {
  const q = duckdbDialect.quoteIdent;
  for (const tbl of [table, PAGE_TITLES_TABLE]) {
    await c.run(`DELETE FROM ${q(tbl)} USING ${q(days)} AS t WHERE ${q(tbl)}.site_id = t.site_id AND ${q(tbl)}.day_ms = epoch_ms(CAST(t.day AS TIMESTAMP))`);
  }
  const x = compileRollupExpansions(duckdbDialect);
  const run = (sql: string, params: readonly SqlParam[]) => c.run(sql, params.map(bind), params.map((p) => TYPES[p.type]));
  await run(`CREATE OR REPLACE TEMP TABLE ff_rollup_traffic AS ${x.trafficMap.sql}`, x.trafficMap.params);
  await run(`CREATE OR REPLACE TEMP TABLE ff_rollup_scopes AS ${x.scopes.sql}`, x.scopes.params);
  const tables = { events: 'events', sessions: 'sessions', days, trafficMap: 'ff_rollup_traffic', scopes: 'ff_rollup_scopes' };
  // One statement per grouping keeps one grouping's hash tables in memory at a time; rows go in
  // sorted by what every read filters on, so row-group zone maps skip the other groupings.
  for (const grouping of ROLLUP_GROUPINGS) {
    const b = compileRollupBuild(duckdbDialect, [grouping], tables);
    await run(
      `INSERT INTO ${q(table)} (${ROLLUP_COLUMNS.map((col) => q(col)).join(', ')}) SELECT * FROM (${b.sql}) AS b ORDER BY ${READ_ORDER}`,
      b.params,
    );
  }
  const titles = compilePageTitlesBuild(duckdbDialect, { events: 'events', days });
  await run(`INSERT INTO ${q(PAGE_TITLES_TABLE)} (${PAGE_TITLES_COLUMNS.map((col) => q(col)).join(', ')}) ${titles.sql}`, titles.params);
}

/**
 * At open: builds the rollups of every stored day when the table is missing or of another version,
 * in one transaction (table, rows and version together), so a rollup table that exists is complete.
 */
export async function ensureRollups(c: DuckDBConnection, table: string = ROLLUP_TABLE): Promise<void> {
  const version = (await c.runAndReadAll(`SELECT value FROM footfall_meta WHERE key = 'rollups_version'`)).getRowsJS()[0]?.[0];
  if (version === String(ROLLUPS_VERSION) && (await tableExists(c, table)) && (await tableExists(c, PAGE_TITLES_TABLE))) return;
  const days = `ff_rollup_days_${process.pid}`;
  await c.run('BEGIN TRANSACTION');
  try {
    await c.run(`DROP TABLE IF EXISTS ${duckdbDialect.quoteIdent(table)}`);
    await c.run(`DROP TABLE IF EXISTS ${duckdbDialect.quoteIdent(PAGE_TITLES_TABLE)}`);
    await c.run(ROLLUPS_DDL(duckdbDialect.quoteIdent(table)));
    await c.run(PAGE_TITLES_DDL(duckdbDialect.quoteIdent(PAGE_TITLES_TABLE)));
    await c.run(`CREATE TEMP TABLE ${days} AS SELECT DISTINCT site_id, day FROM events`);
    await rebuildRollups(c, days, table);
    await c.run(`DROP TABLE ${days}`);
    await c.run(
      `INSERT INTO footfall_meta VALUES ('rollups_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      [String(ROLLUPS_VERSION)],
    );
    await c.run('COMMIT');
  } catch (err) {
    await c.run('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

async function tableExists(c: { runAndReadAll: DuckDBConnection['runAndReadAll'] }, table: string): Promise<boolean> {
  const r = await c.runAndReadAll(`SELECT count(*) FROM duckdb_tables() WHERE table_name = ? AND NOT temporary`, [table]);
  return Number(r.getRowsJS()[0]?.[0] ?? 0) > 0;
}

/**
 * The engine's question per spec: read the rollups? Yes when not switched off (`rollups: false`),
 * the engine reads the store's own tables, the planner has an exact plan, and the database has
 * the rollups (stores opened by this code always do; tables loaded by hand, e.g. test fixtures, do
 * not). Only specs the rollups could answer pay for the check, and once seen the answer is kept:
 * the table is never dropped while a store is open, only rebuilt in one transaction.
 */
export function rollupGate<C extends DuckConnection>(opts: {
  connect: () => Promise<C>;
  release?: (c: C) => void;
  tables?: TableNames;
  rollups?: boolean;
}): (spec: NormalizedSpec) => Promise<boolean> {
  let seen = false;
  const own = !opts.tables || (opts.tables.events === DEFAULT_TABLES.events && opts.tables.sessions === DEFAULT_TABLES.sessions);
  return async (spec) => {
    if (opts.rollups === false || !own || planRollup(spec).use !== 'rollup') return false;
    if (seen) return true;
    let conn: C;
    try {
      conn = await opts.connect();
    } catch {
      return false; // the raw path reports the fault as the engine always has
    }
    try {
      const stmt = await conn.prepare(`SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = $1 AND NOT temporary`);
      stmt.bind([ROLLUP_TABLE], [VARCHAR]);
      const rows = (await stmt.runAndReadAll()).getRowObjectsJS();
      seen = Number(rows[0]?.n ?? 0) > 0;
      return seen;
    } catch {
      return false;
    } finally {
      opts.release?.(conn);
    }
  };
}
