// The writes of one DuckDB import, gathered before its transaction (docs/decisions.md (store)).
// DuckDB keeps every table dropped inside a transaction until the transaction ends (a rollback could
// bring it back). An import's commit makes and drops a dozen scratch tables per group of days (the
// sessionization, the rollup inputs, the deltas): inside one transaction they all stayed, about
// 1.5 GB of temp space per million events, and 10M events ran out of the 640 MB memory limit in
// the sixth group. So the commit computes everything outside the transaction (the store's commit
// lock keeps every other writer out meanwhile, so what it read is still what the store holds) and
// appends only what the store must take into these tables, group after group in store order; the
// transaction then copies them in with a few statements, and nothing it makes is dropped inside it.
import type { DuckDBConnection } from '@duckdb/node-api';
import { ACTIONS_TABLE } from '../sql/actions-rollup.js';
import { ROLLUP_TABLE } from '../sql/compile-rollup.js';
import { PAGE_TITLES_COLUMNS, PAGE_TITLES_TABLE } from '../sql/page-titles-rollup.js';
import { duckdbDialect } from '../sql/dialect.js';
import { EVENTS_COLUMNS } from './schema.js';

const q = duckdbDialect.quoteIdent;

/** Stored keys of a page-title row (a stored row with these keys is replaced by its merged one). */
export const TITLE_KEYS = ['site_id', 'day_ms', 'tenant_id', 'traffic_class', 'path_canon'] as const;

/** Names of the temp tables holding an import's writes. */
export interface ImportWrites {
  /** new events, in the events table's column order */
  events: string;
  /** stored events whose session or engagement may change: rid (rowid in events), session_id, engagement_time_ms */
  updates: string;
  /** visitor-days whose stored sessions are replaced: site_id, day, visitor_key */
  visitorDays: string;
  /** the sessions of every touched visitor-day, as they stand after the import */
  sessions: string;
  /** (site_id, day_ms) whose stored rollup rows are replaced by the ones in `rollups` */
  rollupDays: string;
  rollups: string;
  /** keys of stored page-title rows replaced by rows of `titles` */
  titleKeys: string;
  titles: string;
  /** (site_id, day_ms) whose stored action rows are replaced by the ones in `actions` */
  actionDays: string;
  actions: string;
}

/** Creates the (empty) write tables of an import, named after `prefix`. */
export async function createImportWrites(c: DuckDBConnection, prefix: string): Promise<ImportWrites> {
  const w: ImportWrites = {
    events: `${prefix}_w_events`,
    updates: `${prefix}_w_updates`,
    visitorDays: `${prefix}_w_vdays`,
    sessions: `${prefix}_w_sessions`,
    rollupDays: `${prefix}_w_rdays`,
    rollups: `${prefix}_w_rollups`,
    titleKeys: `${prefix}_w_tkeys`,
    titles: `${prefix}_w_titles`,
    actionDays: `${prefix}_w_adays`,
    actions: `${prefix}_w_actions`,
  };
  const like = (table: string, from: string, cols = '*') => c.run(`CREATE OR REPLACE TEMP TABLE ${table} AS SELECT ${cols} FROM ${from} LIMIT 0`);
  await like(w.events, 'events', EVENTS_COLUMNS.join(', '));
  await c.run(`CREATE OR REPLACE TEMP TABLE ${w.updates} (rid BIGINT, session_id VARCHAR, engagement_time_ms BIGINT)`);
  await like(w.visitorDays, 'sessions', 'site_id, day, visitor_key');
  await like(w.sessions, 'sessions');
  await c.run(`CREATE OR REPLACE TEMP TABLE ${w.rollupDays} (site_id VARCHAR, day_ms BIGINT)`);
  await like(w.rollups, q(ROLLUP_TABLE));
  await like(w.titleKeys, q(PAGE_TITLES_TABLE), TITLE_KEYS.join(', '));
  await like(w.titles, q(PAGE_TITLES_TABLE), PAGE_TITLES_COLUMNS.map(q).join(', '));
  await c.run(`CREATE OR REPLACE TEMP TABLE ${w.actionDays} (site_id VARCHAR, day_ms BIGINT)`);
  await like(w.actions, q(ACTIONS_TABLE));
  return w;
}

/**
 * Copies the writes into the store: inside the caller's transaction, which makes no table of its
 * own. Rows go in the order they were appended (each group's rows sorted as the reads want them).
 */
export async function applyImportWrites(c: DuckDBConnection, w: ImportWrites): Promise<void> {
  await c.run(`INSERT INTO events (${EVENTS_COLUMNS.join(', ')}) SELECT ${EVENTS_COLUMNS.join(', ')} FROM ${w.events}`);
  // Older events of a touched visitor-day may belong to another session now (e.g. a gap got
  // filled) or have gained engagement.
  await c.run(`UPDATE events SET session_id = u.session_id, engagement_time_ms = u.engagement_time_ms FROM ${w.updates} u
    WHERE events.rowid = u.rid AND (events.session_id <> u.session_id OR events.engagement_time_ms <> u.engagement_time_ms)`);
  await c.run(`DELETE FROM sessions USING ${w.visitorDays} v
    WHERE sessions.site_id = v.site_id AND sessions.day = v.day AND sessions.visitor_key = v.visitor_key`);
  await c.run(`INSERT INTO sessions SELECT * FROM ${w.sessions}`);
  const onDays = (alias: string) => `${alias}.site_id = dd.site_id AND ${alias}.day_ms = dd.day_ms`;
  await c.run(`DELETE FROM ${q(ROLLUP_TABLE)} r USING ${w.rollupDays} dd WHERE ${onDays('r')}`);
  await c.run(`INSERT INTO ${q(ROLLUP_TABLE)} SELECT * FROM ${w.rollups}`);
  const match = TITLE_KEYS.map((k) => `s.${k} IS NOT DISTINCT FROM n.${k}`).join(' AND ');
  const titleCols = PAGE_TITLES_COLUMNS.map(q).join(', ');
  await c.run(`DELETE FROM ${q(PAGE_TITLES_TABLE)} s USING ${w.titleKeys} n WHERE ${match}`);
  await c.run(`INSERT INTO ${q(PAGE_TITLES_TABLE)} (${titleCols}) SELECT ${titleCols} FROM ${w.titles}`);
  await c.run(`DELETE FROM ${q(ACTIONS_TABLE)} r USING ${w.actionDays} dd WHERE ${onDays('r')}`);
  await c.run(`INSERT INTO ${q(ACTIONS_TABLE)} SELECT * FROM ${w.actions}`);
}
