// The writes of one DuckDB import, gathered before its transaction (docs/decisions/store.md).
// DuckDB keeps every table dropped inside a transaction until the transaction ends (a rollback could
// bring it back). An import's commit makes and drops a dozen scratch tables per group of days (the
// sessionization, the rollup inputs, the deltas): inside one transaction they all stayed, about
// 1.5 GB of temp space per million events, and 10M events ran out of the 640 MB memory limit in
// the sixth group. So the commit computes everything outside the transaction (the store's commit
// lock keeps every other writer out meanwhile, so what it read is still what the store holds) and
// gathers only what the store must take, group after group in store order: rows it copies straight
// from the scratch tables that computed them (kept until the transaction ends), and the keys and
// merged rows of what they replace; the transaction copies them in and makes or drops no table.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DayRef } from '../../ports/event-store.js';
import { ACTIONS_TABLE, PAGE_TITLES_COLUMNS, PAGE_TITLES_TABLE, ROLLUP_TABLE } from '../sql/rollup-tables.js';
import { duckdbDialect } from '../sql/dialect.js';
import { EVENTS_COLUMNS } from './schema.js';
import { StatementScript } from './statement-script.js';
import { sqlString } from './sql-string.js';

const q = duckdbDialect.quoteIdent;

/** Stored keys of a page-title row (a stored row with these keys is replaced by its merged one). */
export const TITLE_KEYS = ['site_id', 'day_ms', 'tenant_id', 'traffic_class', 'path_canon'] as const;

/** The store tables an import appends to by copying rows it prepared (see ImportWrites.copies). */
export type CopiedTable = 'events' | 'sessions' | 'rollups' | 'actions';

/** An import's writes: what the transaction copies in, and the temp tables holding the rest. */
export interface ImportWrites {
  /**
   * By store table, SELECTs of its new rows (its columns, in order), run inside the transaction in
   * turn. They read scratch tables the preparation made (held: dropped only after the transaction)
   * rather than a copy of them: a second copy of a million events cost seconds.
   */
  copies: Record<CopiedTable, string[]>;
  /** scratch tables the copies read */
  held: Set<string>;
  /** stored events whose session or engagement may change: rid (rowid in events), session_id, engagement_time_ms */
  updates: string;
  /** visitor-days whose stored sessions are replaced: site_id, day, visitor_key */
  visitorDays: string;
  /** (site_id, day_ms) whose stored rollup rows are replaced by the rollups copied in */
  rollupDays: string;
  /** keys of stored page-title rows replaced by rows of `titles` */
  titleKeys: string;
  titles: string;
  /** (site_id, day_ms) whose stored action rows are replaced by the action rows copied in */
  actionDays: string;
  /** stored events removed: rid (rowid in events) */
  deletes: string;
  /** what event_counts gains (or loses, negative): site_id, month, events */
  counts: string;
}

/** The (empty) write tables of an import, named after `prefix`: their creation is added to `script`. */
export function createImportWrites(script: StatementScript, prefix: string): ImportWrites {
  const w: ImportWrites = {
    copies: { events: [], sessions: [], rollups: [], actions: [] },
    held: new Set(),
    updates: `${prefix}_w_updates`,
    visitorDays: `${prefix}_w_vdays`,
    rollupDays: `${prefix}_w_rdays`,
    titleKeys: `${prefix}_w_tkeys`,
    titles: `${prefix}_w_titles`,
    actionDays: `${prefix}_w_adays`,
    deletes: `${prefix}_w_deletes`,
    counts: `${prefix}_w_counts`,
  };
  const like = (table: string, from: string, cols = '*') => `CREATE OR REPLACE TEMP TABLE ${table} AS SELECT ${cols} FROM ${from} LIMIT 0`;
  script
    .add(`CREATE OR REPLACE TEMP TABLE ${w.updates} (rid BIGINT, session_id VARCHAR, engagement_time_ms BIGINT)`)
    .add(like(w.visitorDays, 'sessions', 'site_id, day, visitor_key'))
    .add(`CREATE OR REPLACE TEMP TABLE ${w.rollupDays} (site_id VARCHAR, day_ms BIGINT)`)
    .add(like(w.titleKeys, q(PAGE_TITLES_TABLE), TITLE_KEYS.join(', ')))
    .add(like(w.titles, q(PAGE_TITLES_TABLE), PAGE_TITLES_COLUMNS.map(q).join(', ')))
    .add(`CREATE OR REPLACE TEMP TABLE ${w.actionDays} (site_id VARCHAR, day_ms BIGINT)`)
    .add(`CREATE OR REPLACE TEMP TABLE ${w.deletes} (rid BIGINT)`)
    .add(`CREATE OR REPLACE TEMP TABLE ${w.counts} (site_id VARCHAR, month VARCHAR, events BIGINT)`);
  return w;
}

/** Adds a copy into `table` reading the scratch tables `reads`, which are held until the transaction has ended. */
export function addCopy(w: ImportWrites, table: CopiedTable, select: string, reads: readonly string[]): void {
  w.copies[table].push(select);
  for (const t of reads) w.held.add(t);
}

/**
 * The sessions of a group's touched visitor-days as they will stand (`sessions`, the sessions
 * layout) go to the store with the import's writes; returns the days they are on.
 */
export async function addSessionsCopy(c: DuckDBConnection, script: StatementScript, w: ImportWrites, sessions: string): Promise<DayRef[]> {
  addCopy(w, 'sessions', `SELECT * FROM ${sessions} ORDER BY site_id, day, start_ms`, [sessions]);
  return (await script.read(c, `SELECT DISTINCT site_id, day::VARCHAR FROM ${sessions} ORDER BY 1, 2`)).map(([site_id, day]) => ({
    site_id: String(site_id),
    day: String(day),
  }));
}

/** Adds to `script` the drops of scratch tables, but not of those a copy still reads (releaseImportWrites drops them). */
export function dropScratch(script: StatementScript, w: ImportWrites, tables: readonly string[]): void {
  for (const t of tables) if (!w.held.has(t)) script.add(`DROP TABLE IF EXISTS ${t}`);
}

/** After the transaction (committed or not): the held scratch tables go. */
export async function releaseImportWrites(c: DuckDBConnection, w: ImportWrites): Promise<void> {
  const script = new StatementScript();
  for (const t of w.held) script.add(`DROP TABLE IF EXISTS ${t}`);
  w.held.clear();
  await script.run(c);
}

/**
 * Copies the writes into the store: inside the caller's transaction, which makes no table of its
 * own. Rows go in the order they were added (each group's rows sorted as the reads want them).
 */
export async function applyImportWrites(c: DuckDBConnection, w: ImportWrites): Promise<void> {
  const script = new StatementScript();
  addImportWrites(script, w);
  // one call (statement-script.ts): the transaction lasts what its statements take
  await script.run(c);
}

/** applyImportWrites' statements, added to `script` (the caller's transaction runs it). */
export function addImportWrites(script: StatementScript, w: ImportWrites): void {
  const copy = (table: string, kind: CopiedTable) => {
    for (const select of w.copies[kind]) script.add(`INSERT INTO ${table} ${select}`);
  };
  copy(`events (${EVENTS_COLUMNS.join(', ')})`, 'events');
  // Older events of a touched visitor-day may belong to another session now (e.g. a gap got
  // filled) or have gained engagement.
  script.add(`UPDATE events SET session_id = u.session_id, engagement_time_ms = u.engagement_time_ms FROM ${w.updates} u
    WHERE events.rowid = u.rid AND (events.session_id <> u.session_id OR events.engagement_time_ms <> u.engagement_time_ms)`);
  script.add(`DELETE FROM sessions USING ${w.visitorDays} v
    WHERE sessions.site_id = v.site_id AND sessions.day = v.day AND sessions.visitor_key = v.visitor_key`);
  copy('sessions', 'sessions');
  const onDays = (alias: string) => `${alias}.site_id = dd.site_id AND ${alias}.day_ms = dd.day_ms`;
  script.add(`DELETE FROM ${q(ROLLUP_TABLE)} r USING ${w.rollupDays} dd WHERE ${onDays('r')}`);
  copy(q(ROLLUP_TABLE), 'rollups');
  const match = TITLE_KEYS.map((k) => `s.${k} IS NOT DISTINCT FROM n.${k}`).join(' AND ');
  const titleCols = PAGE_TITLES_COLUMNS.map(q).join(', ');
  script.add(`DELETE FROM ${q(PAGE_TITLES_TABLE)} s USING ${w.titleKeys} n WHERE ${match}`);
  script.add(`INSERT INTO ${q(PAGE_TITLES_TABLE)} (${titleCols}) SELECT ${titleCols} FROM ${w.titles}`);
  script.add(`DELETE FROM ${q(ACTIONS_TABLE)} r USING ${w.actionDays} dd WHERE ${onDays('r')}`);
  copy(q(ACTIONS_TABLE), 'actions');
  // after the updates: they address stored events by rowid, which a delete leaves as they are
  script.add(`DELETE FROM events USING ${w.deletes} d WHERE events.rowid = d.rid`);
  script.add(`INSERT INTO event_counts SELECT site_id, month, sum(events) FROM ${w.counts} GROUP BY site_id, month
    ON CONFLICT (site_id, month) DO UPDATE SET events = event_counts.events + excluded.events`);
}

/** Events of `events` (a table with site_id and day) per (site, UTC month): the rows of event_counts they add. */
export const monthCountsSql = (events: string, sign = '') =>
  `SELECT site_id, strftime(day, '%Y-%m') AS month, ${sign}count(*) AS events FROM ${events} GROUP BY site_id, month`;

/**
 * Adds the copy of an import's new events (`fresh`, EventRow columns + day) with the session ids
 * `sess` gave them (sessionizeSql's rows whose `old` is false, `rid` their rowid in `fresh`), and
 * what event_counts gains by them.
 */
export function addNewEvents(
  script: StatementScript,
  w: ImportWrites,
  e: { fresh: string; sess: string; importId?: string; sortByDay?: boolean },
): void {
  const importId = e.importId === undefined ? 'NULL' : sqlString(e.importId);
  const insertCols = EVENTS_COLUMNS.map((col) =>
    col === 'session_id' ? 'x.session_id' : col === 'import_id' ? importId : `f.${col}`,
  ).join(', ');
  // Row groups that keep days apart let day-bounded reads skip the rest (zone maps). Input in time
  // order already comes so; shuffled input pays for a sort by day. Groups are runs of days, so
  // appending them in turn keeps the whole in day order.
  addCopy(
    w,
    'events',
    `SELECT ${insertCols} FROM ${e.fresh} f JOIN ${e.sess} x ON NOT x.old AND x.rid = f.rowid${e.sortByDay ? ' ORDER BY f.site_id, f.day' : ''}`,
    [e.fresh, e.sess],
  );
  script.add(`INSERT INTO ${w.counts} ${monthCountsSql(e.fresh)}`);
}
