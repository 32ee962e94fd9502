// The commit of one DuckDB import (docs/decisions/store.md): dedupes the staged rows against the
// store, applies reported engagement, rebuilds the sessions of the visitor-days it touches, and
// moves the rollups by the exact delta of those visitor-days. Its cost follows the touched
// visitor-days, whatever the store holds, and the staged rows are taken a group of days at a time
// so that memory and temp space stay bounded for any size and any order of input. All of that runs
// before the transaction and ends in the import's write tables (import-writes.ts); the transaction
// only copies those into the store. A group whose new events all follow the stored ones of their
// visitor-days (live collection's loads) is an append, whose cost follows the touched sessions
// rather than the touched visitor-days' events (append-load.ts).
import type { DuckDBConnection } from '@duckdb/node-api';
import type { TrafficFilter } from '../../domain/events.js';
import type { DayRef } from '../../ports/event-store.js';
import {
  addImportWrites,
  addNewEvents,
  addSessionsCopy,
  createImportWrites,
  dropScratch,
  releaseImportWrites,
  type ImportWrites,
} from './import-writes.js';
import { applyEngagement } from './engagement-apply.js';
import { appendable, prepareAppend, storedSessionsOf } from './append-load.js';
import { sessionEventsSql, sessionizeSql, sessionsSql } from './sessions-sql.js';
import { preparePageTitles, prepareRollupDelta, groupsOf } from './rollups.js';
import { liveDay } from './live-days.js';
import type { Span } from './site-edges.js';
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
  /**
   * The first day (ms) reads count from the events rather than the rollups (live-days.ts): a group
   * whose days all start there or later leaves the rollups alone. Absent: every group moves them.
   */
  liveFromMs?: number | null;
}

/** An import ready to write: what it will change, and the tables writeImport copies into the store. */
export interface PreparedImport extends CommitStats {
  writes: ImportWrites;
  /** per site, the first and last ts of its staged events (none: engagement alone) */
  spans: ReadonlyMap<string, Span>;
}

/**
 * Prepares the rows of `stage` (EventRow columns + day, repeats already numbered) and the
 * engagement rows of `engagement` (EngagementRow columns + day), if any, for the store: OUTSIDE any
 * transaction, under the store's commit lock (nothing else writes until writeImport has run). The
 * store is not changed; the scratch tables die with the connection.
 */
export async function prepareImport(
  c: DuckDBConnection,
  stage: string,
  engagement: string | null,
  opts: CommitOptions = {},
): Promise<PreparedImport> {
  const groupRows = opts.groupRows ?? COMMIT_GROUP_ROWS;
  const perDay = await rows(
    c,
    `SELECT site_id, day::VARCHAR, sum(n), min(lo), max(hi) FROM (SELECT site_id, day, count(*) AS n, min(ts_ms) AS lo, max(ts_ms) AS hi FROM ${stage} GROUP BY 1, 2
      ${engagement ? `UNION ALL SELECT site_id, day, count(*), NULL, NULL FROM ${engagement} GROUP BY 1, 2` : ''}) GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  const days = perDay.map(([site, day, n]) => ({ site: String(site), day: String(day), n: Number(n) }));
  // The staged events' first and last ts per site: a staged event the commit leaves out repeats a
  // stored one (same id, so same ts), so these are what the store's edges widen by (site-edges.ts).
  const spans = new Map<string, Span>();
  for (const [site, , , lo, hi] of perDay) {
    if (lo === null || hi === null) continue;
    const s = spans.get(String(site));
    const firstMs = Number(lo);
    const lastMs = Number(hi);
    spans.set(
      String(site),
      s === undefined ? { firstMs, lastMs } : { firstMs: Math.min(s.firstMs, firstMs), lastMs: Math.max(s.lastMs, lastMs) },
    );
  }
  // live days (live-days.ts) in groups of their own: a few late events of a closed day do not make
  // the live day's events move the rollups
  const from = opts.liveFromMs != null ? liveDay(opts.liveFromMs) : null;
  const isLive = (d: { day: string }) => from !== null && d.day >= from;
  const groups = [
    ...groupsOf(
      days.filter((d) => !isLive(d)),
      groupRows,
    ),
    ...groupsOf(days.filter(isLive), groupRows),
  ];
  // statements whose results are not read wait here for the next read (statement-script.ts)
  const script = new StatementScript();
  const writes = createImportWrites(script, stage);
  const out: PreparedImport = { imported: 0, days: [], engagement: { applied: 0, dropped: 0 }, writes, spans };
  for (let i = 0; i < groups.length; i++) {
    let fresh = stage;
    let eng = engagement;
    if (groups.length > 1) {
      // this group's days only: one pass over the stage per group, the rest of the work on the group alone
      const list = groups[i].map((g) => `(${sqlString(g.site)}, DATE '${g.day}')`).join(', ');
      script.add(`CREATE OR REPLACE TEMP TABLE ${stage}_gdays AS SELECT * FROM (VALUES ${list}) AS t(site_id, day)`);
      fresh = `${stage}_g${i}`; // of its own: the transaction copies its new events from it
      script.add(
        `CREATE OR REPLACE TEMP TABLE ${fresh} AS SELECT s.* FROM ${stage} s SEMI JOIN ${stage}_gdays t ON s.site_id = t.site_id AND s.day = t.day`,
      );
      if (engagement) {
        eng = `${stage}_ge`;
        script.add(
          `CREATE OR REPLACE TEMP TABLE ${eng} AS SELECT s.* FROM ${engagement} s SEMI JOIN ${stage}_gdays t ON s.site_id = t.site_id AND s.day = t.day`,
        );
      }
      // the group starts once the one before has dropped its scratch tables (memory)
      await script.run(c);
    }
    const live = groups[i].every(isLive);
    const r = await prepareGroup(c, script, { fresh, eng, p: `${stage}_${i}` }, { ...opts, live }, writes);
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
  opts: CommitOptions & { live: boolean },
  w: ImportWrites,
): Promise<CommitStats> {
  const { fresh, eng, p } = g;
  const v = `${p}_v`;
  const old = `${p}_old`;
  script.add(`CREATE TEMP TABLE ${v} AS SELECT DISTINCT site_id, day, visitor_key FROM ${fresh}
    ${eng ? `UNION SELECT DISTINCT site_id, day, visitor_key FROM ${eng}` : ''}`);
  // Live loads: new events after the stored ones of their visitor-days (append-load.ts)
  const group = { fresh, eng, v, p };
  if (await appendable(c, script, group)) {
    const r = await prepareAppend(c, script, group, opts, w);
    dropScratch(script, w, [v]);
    return r;
  }
  const temps = [v, old, storedSessionsOf(group)];
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
      `SELECT (SELECT count(*) FROM ${old}), (SELECT count(*) FROM ${fresh}), ${actionsIn(old)} + ${actionsIn(fresh)}, ${opts.live ? '0' : storedDayEvents(touchedDays)}`,
    )
  )[0].map(Number);

  // The rollups move by a delta (the touched visitor-days counted as they were and as they will be:
  // about twice their stored events), or, when that is more than counting the touched days whole,
  // the days' rows are built again from all their events (a live load early in a day, or a load
  // whose visitors hold most of the day: each load touches them again).
  // (Days counted at read time, `live`, are not moved at all.)
  const wholeDays = !opts.live && stored > 0 && 2 * stored >= dayEvents;
  // The touched visitor-days as they were, kept before anything of them changes (engagement below
  // changes `old` in place); counted with them as they will be (prepareRollupDelta).
  const before =
    !opts.live && stored > 0 && !wholeDays && (imported > 0 || eng) ? snapshotBefore(script, old, storedSessionsOf(group), `${p}_b`) : null;
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
  const count = wholeDays ? { wholeDays: now } : { now, before };
  if (opts.live) await preparePageTitles(c, script, fresh, p, w);
  else await prepareRollupDelta(c, { count, days: v, titles: { add: fresh }, prefix: p, sourceRows, actions }, w, script);
  if (wholeDays) dropViews(script, now);

  addNewEvents(script, w, { fresh, sess, importId: opts.importId, sortByDay: opts.sortByDay });
  if (stored > 0) {
    script.add(
      `INSERT INTO ${w.updates} SELECT o.rid, x.session_id, o.engagement_time_ms FROM ${old} o JOIN ${sess} x ON x.old AND x.rid = o.rid`,
    );
    script.add(`INSERT INTO ${w.visitorDays} SELECT site_id, day, visitor_key FROM ${v}`);
  }
  script.add(`DROP VIEW ${nowEvents}`);
  const days = await addSessionsCopy(c, script, w, sessions);
  dropScratch(script, w, temps);
  return { imported, days, engagement };
}

async function rows(c: DuckDBConnection, sql: string): Promise<unknown[][]> {
  return (await c.runAndReadAll(sql)).getRowsJS();
}
