// Daily rollups in the DuckDB store (docs/decisions/rollups.md). An import changes them by a DELTA
// (prepared before its commit transaction, import-writes.ts): the rows of the visitor-days it
// touches are counted as they were (subtracted) and as they are now (added), and the sums are
// merged into the stored rows of those days (day-delta.ts). Every atom, the distinct visitors
// included, is a sum over visitor-days (a visitor's count depends only on its own events of that
// day), so the delta is exact and costs what the touched visitor-days cost, not what their days or
// the store hold. An append (append-load.ts) hands the build both halves already tagged, with their
// page events summed, instead of the touched visitor-days' events. At open, a store without current
// rollups builds them whole, a group of days at a time. The engine detects them (rollup-gate.ts).
// Loads into a live day (today) leave its rows alone until it ends (live-days.ts).
import type { DuckDBConnection } from '@duckdb/node-api';
import { ATOMS } from '../../domain/query/metrics.js';
import {
  ACTIONS_TABLE,
  PAGE_TITLES_COLUMNS,
  PAGE_TITLES_TABLE,
  ROLLUP_COLUMNS,
  ROLLUP_GROUPINGS,
  ROLLUP_TABLE,
} from '../sql/rollup-tables.js';
import {
  compileRollupBuild,
  compileRollupExpansions,
  compileRollupInputs,
  compileSessionRollupBuild,
  compileSessionSets,
  isSessionGrouping,
  type RollupInputNames,
  type RollupSources,
} from '../sql/write/rollup-build.js';
import { duckdbDialect, type SqlParam } from '../sql/dialect.js';
import { compilePropRollupBuild } from '../sql/write/prop-rollup-build.js';
import { compileQuarterRollupBuild } from '../sql/write/quarter-rollup-build.js';
import { bindingOf } from './duck-query.js';
import { ACTIONS_DDL, asTempTable, PAGE_TITLES_DDL, ROLLUPS_DDL, ROLLUPS_VERSION } from './schema.js';
import { compilePageTitlesBuild } from '../sql/write/page-titles-build.js';
import {
  actionRowsOf,
  actionsRollupStale,
  addActionRows,
  buildActionRows,
  insertActionRows,
  prepareActionsDelta,
  resetActionsRollup,
  storedActionRowsSql,
} from './duckdb-actions-rollup.js';
import { dropScratch, TITLE_KEYS, type ImportWrites } from './import-writes.js';
import { StatementScript } from './statement-script.js';
import { beforeAndNow, dropViews } from './before-and-now.js';
import { prepareDayDelta, storedDayRowsSql, type DayRollup } from './day-delta.js';
import { sqlString } from './sql-string.js';

const q = duckdbDialect.quoteIdent;
const READ_COLUMNS = ['site_id', 'dim', 'filter_dim', 'traffic', 'all_tenants', 'tenant_id', 'day_ms'];
const READ_ORDER = READ_COLUMNS.map(q).join(', ');
/** The rollup table as the import's delta merges it (day-delta.ts). */
const ROLLUPS: DayRollup = {
  table: q(ROLLUP_TABLE),
  keys: ROLLUP_COLUMNS.slice(0, ROLLUP_COLUMNS.length - ATOMS.length),
  values: ATOMS,
  readOrder: READ_COLUMNS,
};

export function runCompiled(c: DuckDBConnection, sql: string, params: readonly SqlParam[]) {
  return c.run(sql, ...bindingOf(params));
}

/** The expansion tables every build joins (temp tables of the connection), added to `script`. */
function expansions(script: StatementScript): { trafficMap: string; trafficMasks: string } {
  const x = compileRollupExpansions(duckdbDialect);
  script.add(`CREATE OR REPLACE TEMP TABLE ff_rollup_traffic AS ${x.trafficMap.sql}`, x.trafficMap.params);
  script.add(`CREATE OR REPLACE TEMP TABLE ff_rollup_masks AS ${x.trafficMasks.sql}`, x.trafficMasks.params);
  return { trafficMap: 'ff_rollup_traffic', trafficMasks: 'ff_rollup_masks' };
}

/**
 * Source events up to which a build takes its session groupings (and each per-session table's action
 * groupings) in one statement: one grouping's operators holding the rows of all (an import of
 * 100,000 live records, about 240,000 source events, peaked at the memory of the per-grouping build).
 * Bigger builds (whole stores, large imports) keep one statement per grouping, which spills.
 */
const TOGETHER_MAX_ROWS = 200_000;

/**
 * Creates `prefix`_rows: the rollup rows (ROLLUP_COLUMNS) of exactly the events and sessions of
 * `src` (about `sourceRows` events; unknown: many), through temp tables named after `prefix`.
 * Returns the table's name. The statements run as one script (statement-script.ts), each on its own.
 */
export async function buildRollupRows(c: DuckDBConnection, src: RollupSources, prefix: string, sourceRows = Infinity): Promise<string> {
  const script = new StatementScript();
  const out = addRollupRows(script, src, prefix, sourceRows);
  await script.run(c);
  return out;
}

/**
 * buildRollupRows' statements, added to `script` (which the caller runs); returns the table's name.
 * `actions` false: the sources hold no action event, and no action rows are built.
 */
function addRollupRows(
  script: StatementScript,
  src: RollupSources,
  prefix: string,
  sourceRows: number,
  actions = true,
  pageEvents?: string,
  directEvents?: string,
): string {
  const names: RollupInputNames = { pageEvents: pageEvents ?? `${prefix}_pe`, sessionRows: `${prefix}_sr`, sessionEvents: `${prefix}_se` };
  const inputs = compileRollupInputs(duckdbDialect, src, names);
  // a page-events table of the caller's (an append's: append-load.ts) is taken as it is, and dropped below
  if (pageEvents === undefined)
    script.add(`CREATE OR REPLACE TEMP TABLE ${names.pageEvents} AS ${inputs.pageEvents.sql}`, inputs.pageEvents.params);
  script.add(`CREATE OR REPLACE TEMP TABLE ${names.sessionRows} AS ${inputs.sessionRows.sql}`, inputs.sessionRows.params);
  script.add(`CREATE OR REPLACE TEMP TABLE ${names.sessionEvents} AS ${inputs.sessionEvents.sql}`, inputs.sessionEvents.params);
  script.add(`DROP TABLE ${names.sessionRows}`);
  const sets = compileSessionSets(duckdbDialect, names.sessionEvents, ROLLUP_GROUPINGS);
  const sessionSets = { sums: `${prefix}_gs`, visitors: `${prefix}_gv` };
  script.add(`CREATE OR REPLACE TEMP TABLE ${sessionSets.sums} AS ${sets.sums.sql}`, sets.sums.params);
  script.add(`CREATE OR REPLACE TEMP TABLE ${sessionSets.visitors} AS ${sets.visitors.sql}`, sets.visitors.params);
  const tables = { ...names, ...expansions(script), sessionSets };
  const out = `${prefix}_rows`;
  // of the layout this code writes (at open the stored table may be missing or older)
  script.add(asTempTable(ROLLUPS_DDL(out)));
  // One statement per grouping: a statement's memory grows with its operators (every hash table
  // starts with room of its own), so one statement of all nineteen needed about 200 MB even for a
  // handful of rows; one grouping at a time spills instead of failing. A few rows (a live load)
  // take the session groupings in one statement of one grouping's operators instead
  // (compileSessionRollupBuild): planning and starting the operators of eighteen was most of their cost.
  if (sourceRows <= TOGETHER_MAX_ROWS) {
    const b = compileSessionRollupBuild(duckdbDialect, ROLLUP_GROUPINGS, tables);
    script.add(`INSERT INTO ${out} ${b.sql}`, b.params);
  }
  for (const grouping of ROLLUP_GROUPINGS) {
    if (sourceRows <= TOGETHER_MAX_ROWS && isSessionGrouping(grouping)) continue;
    const b = compileRollupBuild(duckdbDialect, [grouping], tables);
    script.add(`INSERT INTO ${out} ${b.sql}`, b.params);
  }
  // the quarter-hour rows read the events themselves (an append's `src` holds its action events only)
  const quarters = compileQuarterRollupBuild(
    duckdbDialect,
    { events: directEvents ?? src.events, sessions: src.sessions },
    tables.trafficMap,
  );
  script.add(`INSERT INTO ${out} ${quarters.sql}`, quarters.params);
  // and so do the custom-property rows
  const props = compilePropRollupBuild(duckdbDialect, directEvents ?? src.events, tables.trafficMap);
  script.add(`INSERT INTO ${out} ${props.sql}`, props.params);
  for (const t of [names.pageEvents, names.sessionEvents, sessionSets.sums, sessionSets.visitors]) script.add(`DROP TABLE ${t}`);
  if (actions) addActionRows(script, src, actionRowsOf(out), tables.trafficMasks, sourceRows <= TOGETHER_MAX_ROWS);
  return out;
}

/**
 * What a delta counts, in one of three shapes:
 * - `now` and `before`: the touched visitor-days' events and sessions as they are after the import,
 *   and as they were stored before it (snapshotBefore, before-and-now.ts; null when none was stored),
 *   counted in one tagged build;
 * - `wholeDays`: every event and session of the touched days as they will stand, not only of the
 *   touched visitor-days; its rows replace the days' stored ones instead of moving them by a delta;
 * - `tagged`: both halves already tagged (before-and-now.ts), their page events already summed in
 *   `pageEvents` (the page-events layout of compileRollupInputs, tagged the same way): an append
 *   (append-load.ts), whose halves come from the stored rows and the new events rather than from
 *   the events of the touched visitor-days. Its `events` need only hold the action events; the
 *   quarter-hour and property rows read `directEvents` (every event of both halves, tagged the same
 *   way, with the columns those builds read). The build drops `pageEvents`.
 */
export type RollupCount =
  | { now: RollupSources; before: RollupSources | null }
  | { wholeDays: RollupSources }
  | { tagged: RollupSources; pageEvents: string; directEvents: string };

export interface RollupDelta {
  count: RollupCount;
  /** (site_id, day) of every touched visitor-day (duplicates allowed) */
  days: string;
  /**
   * Page titles: `add`, the import's new events (EventRow columns + day), merged into the stored rows
   * (events only added: the new maximum is the stored one's or theirs); or `rebuild`, every event the
   * touched days keep (events removed: their rows are computed again from those)
   */
  titles: { add: string } | { rebuild: string };
  prefix: string;
  /** events the count reads, about (the build's size); unknown: many */
  sourceRows?: number;
  /**
   * false: neither half holds an action event, so their action rows are none and the stored ones of
   * the touched days stay as they are (their delta is nothing); unknown: true
   */
  actions?: boolean;
}

/**
 * Adds an import's delta of the rollups, page titles and action rows of the touched days to the
 * import's writes `w`: the rows each touched day will hold, and which stored days (keys) they
 * replace. Outside the transaction (import-writes.ts); reads the store as it stands. The statements
 * go to `script`, which runs once, for the counts of the stored rows the delta merges (one call, not
 * one per statement: statement-script.ts); the rest waits in it for the caller to run.
 */
export async function prepareRollupDelta(c: DuckDBConnection, d: RollupDelta, w: ImportWrites, script: StatementScript): Promise<void> {
  const p = d.prefix;
  const dayMs = `${p}_days`;
  script.add(`CREATE OR REPLACE TEMP TABLE ${dayMs} AS SELECT DISTINCT site_id, epoch_ms(CAST(day AS TIMESTAMP)) AS day_ms FROM ${d.days}`);
  // the visitor-days as they were and as they are, in one build (before-and-now.ts)
  const k = d.count;
  const src = 'tagged' in k ? k.tagged : 'wholeDays' in k ? k.wholeDays : k.before ? beforeAndNow(script, k.before, k.now, p) : k.now;
  const actions = d.actions ?? true;
  const rows = addRollupRows(
    script,
    src,
    `${p}_bn`,
    d.sourceRows ?? Infinity,
    actions,
    'tagged' in k ? k.pageEvents : undefined,
    'tagged' in k ? k.directEvents : undefined,
  );
  if ('now' in k && k.before) dropViews(script, src);
  const titles = `${p}_titles`;
  const storedTitles = 'add' in d.titles ? newPageTitles(script, d.titles.add, titles) : '(SELECT 0)';
  const count = (select: string) => `(SELECT count(*) FROM (${select}))`;
  // whole days replace their stored rows: what those hold is not read
  const whole = 'wholeDays' in k;
  const [stored, storedActions, storedTitleRows] = (
    await script.read(
      c,
      `SELECT ${whole ? '0' : count(storedDayRowsSql(ROLLUPS, dayMs))}, ${actions && !whole ? count(storedActionRowsSql(dayMs)) : '0'}, ${storedTitles}`,
    )
  )[0].map(Number);
  const tagged = 'tagged' in k || ('now' in k && k.before !== null);
  prepareDayDelta(script, ROLLUPS, { rows, tagged, dayMs, stored, whole }, w, 'rollups', w.rollupDays);
  if ('add' in d.titles) mergePageTitles(script, titles, storedTitleRows, w);
  else rebuildPageTitles(script, d.titles.rebuild, dayMs, w);
  if (actions) prepareActionsDelta(script, { rows: actionRowsOf(rows), tagged, dayMs, stored: storedActions, whole }, w);
  // Temp tables live as long as the import's connection, and every commit group names its own:
  // left behind, they added up past the memory limit on 10M events.
  dropScratch(script, w, [rows, dayMs, titles]);
}

/**
 * The page titles alone of an import's new events `fresh` (EventRow columns + day), merged into the
 * stored rows: for a group whose days reads count from the events (live-days.ts), which leaves the
 * rollups and action rows alone but keeps the titles current (a cheap merge, and title reads need
 * not split at the live days).
 */
export async function preparePageTitles(
  c: DuckDBConnection,
  script: StatementScript,
  fresh: string,
  prefix: string,
  w: ImportWrites,
): Promise<void> {
  const titles = `${prefix}_titles`;
  const stored = Number((await script.read(c, `SELECT ${newPageTitles(script, fresh, titles)}`))[0][0]);
  mergePageTitles(script, titles, stored, w);
  dropScratch(script, w, [titles]);
}

const TITLE_MATCH = TITLE_KEYS.map((k) => `s.${k} IS NOT DISTINCT FROM n.${k}`).join(' AND ');

/**
 * Page titles: the latest titled pageview per (site, day, tenant, class, path) of the new events
 * `fresh`, into the temp table `titles`; returns the count (SQL) of the stored rows they meet.
 */
function newPageTitles(script: StatementScript, fresh: string, titles: string): string {
  const b = compilePageTitlesBuild(duckdbDialect, { events: fresh });
  script.add(`CREATE OR REPLACE TEMP TABLE ${titles} AS ${b.sql}`, b.params);
  return `(SELECT count(*) FROM ${q(PAGE_TITLES_TABLE)} s SEMI JOIN ${titles} n ON ${TITLE_MATCH})`;
}

/**
 * Events are only ever added, so the new maximum is the maximum of the stored row (`stored`: how
 * many of them newPageTitles' rows meet) and the new events' own.
 */
function mergePageTitles(script: StatementScript, titles: string, stored: number, w: ImportWrites): void {
  const cols = PAGE_TITLES_COLUMNS.map(q).join(', ');
  if (stored === 0) {
    script.add(`INSERT INTO ${w.titles} (${cols}) SELECT ${cols} FROM ${titles}`);
    return;
  }
  const order = '(ts_ms, event_id)';
  script.add(`INSERT INTO ${w.titleKeys} SELECT ${TITLE_KEYS.join(', ')} FROM ${titles}`);
  script.add(`INSERT INTO ${w.titles} (${cols})
    SELECT ${TITLE_KEYS.join(', ')}, max(ts_ms) AS ts_ms, arg_max(event_id, ${order}) AS event_id, arg_max(page_title, ${order}) AS page_title
    FROM (SELECT ${cols} FROM ${q(PAGE_TITLES_TABLE)} s SEMI JOIN ${titles} n ON ${TITLE_MATCH} UNION ALL SELECT ${cols} FROM ${titles})
    GROUP BY ${TITLE_KEYS.join(', ')}`);
}

/** Page titles of the days of `dayMs` (site_id, day_ms) from `events` (what those days keep), replacing their stored rows. */
function rebuildPageTitles(script: StatementScript, events: string, dayMs: string, w: ImportWrites): void {
  const titles = compilePageTitlesBuild(duckdbDialect, { events });
  const cols = PAGE_TITLES_COLUMNS.map(q).join(', ');
  script.add(`INSERT INTO ${w.titles} (${cols}) ${titles.sql}`, titles.params);
  script.add(`INSERT INTO ${w.titleKeys} SELECT ${TITLE_KEYS.map((k) => `s.${k}`).join(', ')} FROM ${q(PAGE_TITLES_TABLE)} s
    SEMI JOIN ${dayMs} dd ON s.site_id = dd.site_id AND s.day_ms = dd.day_ms`);
}

/** Stored events per build step when a whole store is rolled up (bounded memory). */
const FULL_BUILD_GROUP_EVENTS = 2_000_000;

/**
 * At open: builds the rollups of every stored day when the table is missing or of another version,
 * a group of days at a time, and stores them in one transaction (table, rows and version together),
 * so a rollup table that exists is complete. The actions rollup comes with them, or alone when only
 * it is missing or of another ACTIONS_ROLLUP_VERSION (duckdb-actions-rollup.ts). As in an import
 * (import-writes.ts), the building runs before the transaction (whose dropped tables would stay
 * until it ends) into scratch tables the transaction copies; the store is opened by this process
 * alone and nothing writes to it meanwhile.
 */
export async function ensureRollups(c: DuckDBConnection, table: string = ROLLUP_TABLE): Promise<void> {
  const version = (await c.runAndReadAll(`SELECT value FROM footfall_meta WHERE key = 'rollups_version'`)).getRowsJS()[0]?.[0];
  const full = !(version === String(ROLLUPS_VERSION) && (await tableExists(c, table)) && (await tableExists(c, PAGE_TITLES_TABLE)));
  // the actions rollup alone when only it is missing or old (a store of the release before it)
  if (!full && !(await actionsRollupStale(c))) return;
  const p = `ff_full_${process.pid}`;
  const built = await builtTables(c, p);
  let masks: string | null = null;
  if (!full) {
    const script = new StatementScript();
    masks = expansions(script).trafficMasks;
    await script.run(c);
  }
  const cols = PAGE_TITLES_COLUMNS.map(q).join(', ');
  const days = (await c.runAndReadAll(`SELECT site_id, day::VARCHAR, count(*) FROM events GROUP BY 1, 2 ORDER BY 1, 2`)).getRowsJS();
  await buildStoredDays(c, days, p, built, masks);
  await c.run('BEGIN TRANSACTION');
  try {
    if (full) {
      await c.run(`DROP TABLE IF EXISTS ${q(table)}`);
      await c.run(`DROP TABLE IF EXISTS ${q(PAGE_TITLES_TABLE)}`);
      await c.run(ROLLUPS_DDL(q(table)));
      await c.run(PAGE_TITLES_DDL(q(PAGE_TITLES_TABLE)));
      await c.run(`INSERT INTO ${q(table)} SELECT * FROM ${built.rollups}`);
      await c.run(`INSERT INTO ${q(PAGE_TITLES_TABLE)} (${cols}) SELECT ${cols} FROM ${built.titles}`);
    }
    await resetActionsRollup(c);
    await c.run(`INSERT INTO ${q(ACTIONS_TABLE)} SELECT * FROM ${built.actions}`);
    await c.run(`INSERT INTO footfall_meta VALUES ('rollups_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [
      String(ROLLUPS_VERSION),
    ]);
    await c.run('COMMIT');
  } catch (err) {
    await c.run('ROLLBACK').catch(() => undefined);
    throw err;
  }
  for (const x of Object.values(built)) await c.run(`DROP TABLE IF EXISTS ${x}`);
}

/** Scratch tables a build of stored days fills (buildStoredDays), in the layout this code writes. */
export interface BuiltDays {
  rollups: string;
  titles: string;
  actions: string;
}

/** Creates the (empty) scratch tables of a build of stored days, named after `p`. */
export async function builtTables(c: DuckDBConnection, p: string): Promise<BuiltDays> {
  const built = { rollups: `${p}_b_rollups`, titles: `${p}_b_titles`, actions: `${p}_b_actions` };
  await c.run(asTempTable(ROLLUPS_DDL(built.rollups)));
  await c.run(asTempTable(PAGE_TITLES_DDL(built.titles)));
  await c.run(asTempTable(ACTIONS_DDL(built.actions)));
  return built;
}

/**
 * Builds the rollup, page-title and action rows of the stored days `days` ([site_id, day as
 * YYYY-MM-DD, events] rows, in order) from their events and sessions into `built`, a group of days
 * at a time (bounded memory); with `masks` (the traffic-masks table), the action rows alone.
 */
export async function buildStoredDays(
  c: DuckDBConnection,
  days: readonly unknown[][],
  p: string,
  built: BuiltDays,
  masks: string | null = null,
): Promise<void> {
  const cols = PAGE_TITLES_COLUMNS.map(q).join(', ');
  for (const group of groupsOf(
    days.map(([s, d, n]) => ({ site: String(s), day: String(d), n: Number(n) })),
    FULL_BUILD_GROUP_EVENTS,
  )) {
    const list = group.map((g) => `(${sqlString(g.site)}, DATE '${g.day}')`).join(', ');
    await c.run(`CREATE OR REPLACE TEMP TABLE ${p}_days AS SELECT * FROM (VALUES ${list}) AS t(site_id, day)`);
    // the actions rollup alone reads only the action events
    const only = masks ? ` WHERE e.type = 'action'` : '';
    await c.run(
      `CREATE OR REPLACE TEMP TABLE ${p}_ev AS SELECT e.* FROM events e SEMI JOIN ${p}_days t ON e.site_id = t.site_id AND e.day = t.day${only}`,
    );
    await c.run(
      `CREATE OR REPLACE TEMP TABLE ${p}_ss AS SELECT s.* FROM sessions s SEMI JOIN ${p}_days t ON s.site_id = t.site_id AND s.day = t.day`,
    );
    const src = { events: `${p}_ev`, sessions: `${p}_ss` };
    if (masks) {
      await buildActionRows(c, new StatementScript(), src, `${p}_act`, masks);
      await insertActionRows(c, `${p}_act`, built.actions);
    } else {
      const rows = await buildRollupRows(c, src, p);
      await c.run(`INSERT INTO ${built.rollups} SELECT * FROM ${rows} ORDER BY ${READ_ORDER}`);
      await insertActionRows(c, actionRowsOf(rows), built.actions);
      const titles = compilePageTitlesBuild(duckdbDialect, { events: `${p}_ev` });
      await runCompiled(c, `INSERT INTO ${built.titles} (${cols}) ${titles.sql}`, titles.params);
      await c.run(`DROP TABLE ${rows}`);
    }
    for (const x of [`${p}_days`, `${p}_ev`, `${p}_ss`]) await c.run(`DROP TABLE ${x}`);
  }
}

/** Consecutive runs of days holding about `limit` events each (a day is never split). */
export function* groupsOf<T extends { n: number }>(days: readonly T[], limit: number): Generator<T[]> {
  let group: T[] = [];
  let rows = 0;
  for (const d of days) {
    if (group.length && rows + d.n > limit) {
      yield group;
      group = [];
      rows = 0;
    }
    group.push(d);
    rows += d.n;
  }
  if (group.length) yield group;
}

async function tableExists(c: { runAndReadAll: DuckDBConnection['runAndReadAll'] }, table: string): Promise<boolean> {
  const r = await c.runAndReadAll(`SELECT count(*) FROM duckdb_tables() WHERE table_name = ? AND NOT temporary`, [table]);
  return Number(r.getRowsJS()[0]?.[0] ?? 0) > 0;
}
