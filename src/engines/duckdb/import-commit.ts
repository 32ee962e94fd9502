// The commit of one DuckDB import (docs/decisions/store.md): dedupes the staged rows against the
// store, applies reported engagement, rebuilds the sessions of the visitor-days it touches, and
// moves the rollups by the exact delta of those visitor-days. Its cost follows the touched
// visitor-days, whatever the store holds, and the staged rows are taken a group of days at a time
// so that memory and temp space stay bounded for any size and any order of input. All of that runs
// before the transaction and ends in the import's write tables (import-writes.ts); the transaction
// only copies those into the store.
import type { DuckDBConnection } from '@duckdb/node-api';
import { MAX_ENGAGEMENT_MS, type TrafficFilter } from '../../domain/events.js';
import type { DayRef } from '../../ports/event-store.js';
import { addCopy, addImportWrites, createImportWrites, dropScratch, releaseImportWrites, type ImportWrites } from './import-writes.js';
import { EVENTS_COLUMNS } from './schema.js';
import { sessionEventsSql, sessionizeSql, sessionsSql } from './sessions-sql.js';
import { prepareRollupDelta, groupsOf } from './rollups.js';
import { dropViews, snapshotBefore, wholeDaysOf } from './before-and-now.js';
import { StatementScript } from './statement-script.js';
import { sqlString } from './sql-string.js';
import { ROLLUP_TABLE } from '../sql/rollup-tables.js';

/**
 * Events stored on the days of `days` (site_id, day), from the rollups' total row of every class
 * and tenant: a lookup of a few rows, where counting the events reads every row of those days (30 ms
 * on a day of 2M events, at every live load). It only picks how the rollups move (wholeDays): a
 * day whose rows are missing counts 0, which picks the build of whole days, right in any case.
 */
const EVERY_CLASS: TrafficFilter = 'all';
const storedDayEvents = (days: string) =>
  `(SELECT coalesce(sum(r.events), 0) FROM "${ROLLUP_TABLE}" r SEMI JOIN ${days} d ON r.site_id = d.site_id AND r.day_ms = epoch_ms(CAST(d.day AS TIMESTAMP))
    WHERE r.dim = '' AND r.filter_dim = '' AND r.traffic = '${EVERY_CLASS}' AND r.all_tenants)`;

/** Staged rows one commit step takes (old events of their visitor-days come on top), roughly. */
export const COMMIT_GROUP_ROWS = 1_500_000;

export interface CommitStats {
  imported: number;
  days: DayRef[];
  engagement: { applied: number; dropped: number };
}

export interface CommitOptions {
  /** staged rows one commit step takes */
  groupRows?: number;
  /** store the new events sorted by day (the input came in no time order) */
  sortByDay?: boolean;
  /** the import's id, remembered by each event it stores (ImportOptions.importId) */
  importId?: string;
}

/** An import ready to write: what it will change, and the tables writeImport copies into the store. */
export interface PreparedImport extends CommitStats {
  writes: ImportWrites;
}

/**
 * Prepares the rows of `stage` (EventRow columns + day, repeats already numbered) and the
 * engagement rows of `engagement` (EngagementRow columns + day), if any, for the store: OUTSIDE any
 * transaction, under the store's commit lock (nothing else writes until writeImport has run). The
 * store is not changed; the scratch tables die with the connection.
 */
export async function prepareImport(c: DuckDBConnection, stage: string, engagement: string | null, opts: CommitOptions = {}): Promise<PreparedImport> {
  const groupRows = opts.groupRows ?? COMMIT_GROUP_ROWS;
  const perDay = await rows(
    c,
    `SELECT site_id, day::VARCHAR, sum(n) FROM (SELECT site_id, day, count(*) AS n FROM ${stage} GROUP BY 1, 2
      ${engagement ? `UNION ALL SELECT site_id, day, count(*) FROM ${engagement} GROUP BY 1, 2` : ''}) GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  const groups = [...groupsOf(perDay.map(([site, day, n]) => ({ site: String(site), day: String(day), n: Number(n) })), groupRows)];
  // statements whose results are not read wait here for the next read (statement-script.ts)
  const script = new StatementScript();
  const writes = createImportWrites(script, stage);
  const out: PreparedImport = { imported: 0, days: [], engagement: { applied: 0, dropped: 0 }, writes };
  for (let i = 0; i < groups.length; i++) {
    let fresh = stage;
    let eng = engagement;
    if (groups.length > 1) {
      // this group's days only: one pass over the stage per group, the rest of the work on the group alone
      const list = groups[i].map((g) => `(${sqlString(g.site)}, DATE '${g.day}')`).join(', ');
      script.add(`CREATE OR REPLACE TEMP TABLE ${stage}_gdays AS SELECT * FROM (VALUES ${list}) AS t(site_id, day)`);
      fresh = `${stage}_g${i}`; // of its own: the transaction copies its new events from it
      script.add(`CREATE OR REPLACE TEMP TABLE ${fresh} AS SELECT s.* FROM ${stage} s SEMI JOIN ${stage}_gdays t ON s.site_id = t.site_id AND s.day = t.day`);
      if (engagement) {
        eng = `${stage}_ge`;
        script.add(`CREATE OR REPLACE TEMP TABLE ${eng} AS SELECT s.* FROM ${engagement} s SEMI JOIN ${stage}_gdays t ON s.site_id = t.site_id AND s.day = t.day`);
      }
      // the group starts once the one before has dropped its scratch tables (memory)
      await script.run(c);
    }
    const r = await prepareGroup(c, script, { fresh, eng, p: `${stage}_${i}` }, opts, writes);
    out.imported += r.imported;
    out.days.push(...r.days);
    out.engagement.applied += r.engagement.applied;
    out.engagement.dropped += r.engagement.dropped;
    if (fresh !== stage) dropScratch(script, writes, [fresh]);
    if (eng !== engagement && eng !== null) script.add(`DROP TABLE ${eng}`);
  }
  await script.run(c);
  return out;
}

/** Adds to `script` the writes of a prepared import into the store, for the caller's transaction. */
export function writeImport(script: StatementScript, prepared: PreparedImport): void {
  if (prepared.imported > 0 || prepared.engagement.applied > 0) addImportWrites(script, prepared.writes);
}

/** After the transaction (committed or rolled back): the scratch tables the writes read go. */
export function releaseImport(c: DuckDBConnection, prepared: PreparedImport): Promise<void> {
  return releaseImportWrites(c, prepared.writes);
}

/**
 * One group of days: `fresh` its staged rows, `eng` its engagement rows, `p` its scratch tables'
 * prefix. Statements go to `script`, which runs where a result is read (about four calls a group).
 */
async function prepareGroup(
  c: DuckDBConnection,
  script: StatementScript,
  g: { fresh: string; eng: string | null; p: string },
  opts: CommitOptions,
  w: ImportWrites,
): Promise<CommitStats> {
  const { fresh, eng, p } = g;
  const v = `${p}_v`;
  const old = `${p}_old`;
  const temps = [v, old];
  script.add(`CREATE TEMP TABLE ${v} AS SELECT DISTINCT site_id, day, visitor_key FROM ${fresh}
    ${eng ? `UNION SELECT DISTINCT site_id, day, visitor_key FROM ${eng}` : ''}`);
  // Stored ids can only meet staged ones within the batch's visitor-days: the id hashes all three.
  script.add(`CREATE TEMP TABLE ${old} AS SELECT e.rowid AS rid, e.* FROM events e
    SEMI JOIN ${v} v ON e.site_id = v.site_id AND e.day = v.day AND e.visitor_key = v.visitor_key`);
  script.add(`DELETE FROM ${fresh} WHERE event_id IN (SELECT event_id FROM ${old})`);
  const actionsIn = (t: string) => `(SELECT count(*) FROM ${t} WHERE type = 'action')`;
  const touchedDays = `${p}_d`;
  temps.push(touchedDays);
  script.add(`CREATE TEMP TABLE ${touchedDays} AS SELECT DISTINCT site_id, day FROM ${v}`);
  const [stored, imported, actionEvents, dayEvents] = (
    await script.read(
      c,
      `SELECT (SELECT count(*) FROM ${old}), (SELECT count(*) FROM ${fresh}), ${actionsIn(old)} + ${actionsIn(fresh)}, ${storedDayEvents(touchedDays)}`,
    )
  )[0].map(Number);

  // The rollups move by a delta (the touched visitor-days counted as they were and as they will be:
  // about twice their stored events), or, when that is more than counting the touched days whole,
  // the days' rows are built again from all their events (a live load early in a day, or a load
  // whose visitors hold most of the day: each load touches them again).
  const wholeDays = stored > 0 && 2 * stored >= dayEvents;
  // The touched visitor-days as they were, kept before anything of them changes (engagement below
  // changes `old` in place); counted with them as they will be (prepareRollupDelta).
  const before = stored > 0 && !wholeDays && (imported > 0 || eng) ? snapshotBefore(script, old, v, `${p}_b`) : null;
  if (before) temps.push(before.events, before.sessions);
  const engagement = eng ? await applyEngagement(c, script, fresh, stored > 0 ? old : null, eng, p) : { applied: 0, dropped: 0 };
  if (imported === 0 && engagement.applied === 0) {
    dropScratch(script, w, temps);
    return { imported: 0, days: [], engagement };
  }

  const src = { fresh, old: stored > 0 ? old : null };
  const sess = `${p}_sess`;
  // the touched visitor-days' events as they will stand: the new rows and the stored ones, each with its (possibly new) session
  const nowEvents = `${p}_ev`;
  const sessions = `${p}_sessions`;
  script.add(sessionizeSql(src, sess));
  script.add(sessionEventsSql(src, sess, nowEvents));
  script.add(sessionsSql(nowEvents, sessions));
  temps.push(sess, sessions);
  const touched = { events: nowEvents, sessions };
  const now = wholeDays ? wholeDaysOf(script, touched, { days: touchedDays, visitorDays: v }, p) : touched;
  const sourceRows = imported + (wholeDays ? dayEvents : 2 * stored);
  // without action events before or now (sites without custom events), the action rows are left alone
  const actions = actionEvents > 0;
  await prepareRollupDelta(c, { now, before, wholeDays, days: v, titles: { add: fresh }, prefix: p, sourceRows, actions }, w, script);
  if (wholeDays) dropViews(script, now);

  const importId = opts.importId === undefined ? 'NULL' : sqlString(opts.importId);
  const insertCols = EVENTS_COLUMNS.map((col) => (col === 'session_id' ? 'x.session_id' : col === 'import_id' ? importId : `f.${col}`)).join(', ');
  // Row groups that keep days apart let day-bounded reads skip the rest (zone maps). Input in time
  // order already comes so; shuffled input pays for a sort by day. Groups are runs of days, so
  // appending them in turn keeps the whole in day order.
  addCopy(w, 'events', `SELECT ${insertCols} FROM ${fresh} f JOIN ${sess} x ON NOT x.old AND x.rid = f.rowid${opts.sortByDay ? ' ORDER BY f.site_id, f.day' : ''}`, [fresh, sess]);
  script.add(`INSERT INTO ${w.counts} ${monthCountsSql(fresh)}`);
  if (stored > 0) {
    script.add(`INSERT INTO ${w.updates} SELECT o.rid, x.session_id, o.engagement_time_ms FROM ${old} o JOIN ${sess} x ON x.old AND x.rid = o.rid`);
    script.add(`INSERT INTO ${w.visitorDays} SELECT site_id, day, visitor_key FROM ${v}`);
  }
  script.add(`DROP VIEW ${nowEvents}`);
  addCopy(w, 'sessions', `SELECT * FROM ${sessions} ORDER BY site_id, day, start_ms`, [sessions]);
  const days = (await script.read(c, `SELECT DISTINCT site_id, day::VARCHAR FROM ${sessions} ORDER BY 1, 2`)).map(([site_id, day]) => ({
    site_id: String(site_id),
    day: String(day),
  }));
  dropScratch(script, w, temps);
  return { imported, days, engagement };
}

/**
 * Adds each engagement row's time to the visitor's latest pageview of its path at or before its
 * time that day, among the new rows and the stored ones (EngagementRow); the temp tables change in
 * place (statements added to `script`) and the commit writes the stored rows back.
 */
async function applyEngagement(
  c: DuckDBConnection,
  script: StatementScript,
  fresh: string,
  old: string | null,
  eng: string,
  p: string,
): Promise<{ applied: number; dropped: number }> {
  const cols = 'site_id, day, visitor_key, path_canon, ts_ms, event_id';
  const candidates = `SELECT false AS old, rowid AS rid, ${cols} FROM ${fresh} WHERE type = 'pageview'
    ${old ? `UNION ALL SELECT true AS old, rid, ${cols} FROM ${old} WHERE type = 'pageview'` : ''}`;
  const adds = `${p}_adds`;
  script.add(`CREATE TEMP TABLE ${adds} AS
    SELECT t.old, t.rid, sum(m.engagement_ms) AS add_ms, count(*) AS n FROM (
      SELECT e.rowid AS erid, any_value(e.engagement_ms) AS engagement_ms,
        arg_max(struct_pack(old := c.old, rid := c.rid), (c.ts_ms, c.event_id)) AS t
      FROM ${eng} e JOIN (${candidates}) c
        ON c.site_id = e.site_id AND c.day = e.day AND c.visitor_key = e.visitor_key AND c.path_canon = e.path_canon AND c.ts_ms <= e.ts_ms
      GROUP BY e.rowid
    ) m GROUP BY t.old, t.rid`);
  const [applied, total] = (await script.read(c, `SELECT (SELECT coalesce(sum(n), 0) FROM ${adds}), (SELECT count(*) FROM ${eng})`))[0].map(Number);
  const set = `engagement_time_ms = least(engagement_time_ms + a.add_ms, ${MAX_ENGAGEMENT_MS})`;
  script.add(`UPDATE ${fresh} SET ${set} FROM ${adds} a WHERE NOT a.old AND ${fresh}.rowid = a.rid`);
  if (old) script.add(`UPDATE ${old} SET ${set} FROM ${adds} a WHERE a.old AND ${old}.rid = a.rid`);
  script.add(`DROP TABLE ${adds}`);
  return { applied, dropped: total - applied };
}

/** Events of `events` (a table with site_id and day) per (site, UTC month): the rows of event_counts they add. */
export const monthCountsSql = (events: string, sign = '') =>
  `SELECT site_id, strftime(day, '%Y-%m') AS month, ${sign}count(*) AS events FROM ${events} GROUP BY site_id, month`;

async function rows(c: DuckDBConnection, sql: string): Promise<unknown[][]> {
  return (await c.runAndReadAll(sql)).getRowsJS();
}
