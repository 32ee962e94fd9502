// An import that only appends (docs/decisions/collection-at-the-floor.md): every new event of a
// visitor-day comes after every event stored of it, which is what live collection hands the store
// load after load. Then no new event can repeat a stored one (an id hashes its timestamp), no stored
// event changes session (only the last stored session of a visitor-day can grow, and it keeps its
// start, hence its id), and the touched visitor-days need not be read, sessionized and counted again
// event by event, as the general commit does (import-commit.ts):
// - the new events are sessionized after the last stored session of their visitor-day;
// - each session they touch is the stored row moved by what they add (counts, end, exit page; the
//   first event's values and the entry page stay, unless the stored session had no pageview);
// - the rollup delta counts the touched visitor-days as they were and as they are from their page
//   events (the build's first intermediate: events summed per session, path and class), the stored
//   half summed from a narrow read of their stored events, the new half that plus the new events;
//   sessions from the stored rows and the moved ones; action rows from the action events alone
//   (none of it for a group of live days, whose rollups wait for the day's end: live-days.ts).
// What is counted is the same as the general commit's; the import tests hold the two to equal stores.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DayRef } from '../../ports/event-store.js';
import { compileRollupInputs } from '../sql/write/rollup-build.js';
import { ACTION_IDENTITY } from '../sql/rollup-tables.js';
import { duckdbDialect } from '../sql/dialect.js';
import { storedSessionsSql, TAG_COLUMNS } from './before-and-now.js';
import { applyEngagement } from './engagement-apply.js';
import { addNewEvents, addSessionsCopy, dropScratch, type ImportWrites } from './import-writes.js';
import { preparePageTitles, prepareRollupDelta } from './rollups.js';
import { appendSessionizeSql, FIRST_EVENT_COLUMNS, SESSION_FLAGS, sessionEventsSql, sessionsSql } from './sessions-sql.js';
import type { StatementScript } from './statement-script.js';

/** One group of days of an import (import-commit.ts prepareGroup's). */
export interface ImportGroup {
  /** the staged new events (EventRow columns + day) */
  fresh: string;
  /** the staged engagement rows (EngagementRow columns + day), or null */
  eng: string | null;
  /** the touched visitor-days: site_id, day, visitor_key */
  v: string;
  /** the prefix of the group's scratch tables */
  p: string;
}

export interface AppendOptions {
  importId?: string;
  sortByDay?: boolean;
  /** every day of the group is one reads count from the events (live-days.ts): no rollup delta */
  live?: boolean;
}

/** The stored sessions of the group's visitor-days (appendable() makes it; the general commit's before half reads it too). */
export const storedSessionsOf = (g: ImportGroup) => `${g.p}_vs`;

const on = (a: string, b: string, cols: readonly string[]) => cols.map((c) => `${a}.${c} = ${b}.${c}`).join(' AND ');
const VISITOR_DAY = ['site_id', 'day', 'visitor_key'];

/**
 * Whether the group is an append: something of its visitor-days is stored, and each new event comes
 * after every stored one of its visitor-day (strictly: an event at the same millisecond could sort
 * before a stored one). Adds the table of those stored sessions (storedSessionsOf: prepareAppend, or
 * the general commit's before half, reads it; the caller drops it with the group's scratch tables)
 * and reads one row.
 */
export async function appendable(c: DuckDBConnection, script: StatementScript, g: ImportGroup): Promise<boolean> {
  const vs = storedSessionsOf(g);
  script.add(`CREATE TEMP TABLE ${vs} AS ${storedSessionsSql(g.v)}`);
  const [stored, late] = (
    await script.read(
      c,
      `SELECT (SELECT count(*) FROM ${vs}), (SELECT count(*) FROM
        (SELECT site_id, day, visitor_key, min(ts_ms) AS first_ms FROM ${g.fresh} GROUP BY ALL) f
        JOIN (SELECT site_id, day, visitor_key, max(end_ms) AS last_ms FROM ${vs} GROUP BY ALL) s ON ${on('f', 's', VISITOR_DAY)}
        WHERE f.first_ms <= s.last_ms)`,
    )
  )[0].map(Number);
  return stored > 0 && late === 0;
}

/** The append's scratch tables' names. */
function tables(p: string) {
  return {
    last: `${p}_last`,
    pv: `${p}_apv`,
    inc: `${p}_inc`,
    sess: `${p}_sess`,
    nowNew: `${p}_nev`,
    grown: `${p}_grown`,
    sessions: `${p}_sessions`,
    storedEvents: `${p}_stev`,
    storedPages: `${p}_spe`,
    pageEvents: `${p}_ape`,
    newPages: `${p}_npe`,
    storedActions: `${p}_sact`,
    actions: `${p}_act_ev`,
    bothSessions: `${p}_bsess`,
    directEvents: `${p}_dev`,
  };
}

/** The page-events layout (compileRollupInputs): keys, then the sums. */
const PAGE_KEYS = ['site_id', 'day', 'tenant_id', 'traffic_class', 'path_canon', 'visitor_key', 'session_id'];
const PAGE_SUMS = ['pageviews', 'events', 'pv_eng_ms'];
/**
 * The columns of an event the rollup builds that read the events directly (compileQuarterRollupBuild,
 * compilePropRollupBuild) need, session_id for the tag.
 */
const DIRECT_EVENT_COLUMNS = [
  'site_id',
  'session_id',
  'ts_ms',
  'tenant_id',
  'traffic_class',
  'type',
  'visitor_key',
  'prop_keys',
  'prop_values',
];
/** The columns of an action event the actions build reads (compileActionsInput). */
const ACTION_EVENT_COLUMNS = [
  ...new Set(['site_id', 'session_id', 'ts_ms', 'tenant_id', 'traffic_class', 'type', 'path_canon', ...ACTION_IDENTITY]),
];

/**
 * Prepares an appendable group (appendable() said so) for the store, as import-commit.ts prepareGroup
 * does the general one: the writes go to `w`, the statements to `script`.
 */
export async function prepareAppend(
  c: DuckDBConnection,
  script: StatementScript,
  g: ImportGroup,
  opts: AppendOptions,
  w: ImportWrites,
): Promise<{ imported: number; days: DayRef[]; engagement: { applied: number; dropped: number } }> {
  const { fresh, eng, v, p } = g;
  const vs = storedSessionsOf(g);
  const t = tables(p);
  const temps: string[] = [vs, t.last, t.sess, t.grown, t.sessions, t.storedPages, t.newPages, t.storedActions, t.bothSessions];

  // Engagement: onto a new pageview (changed in `fresh`) or a stored one of the same visitor-day and
  // path (read narrow; what it gains goes back to the store and into its session and page sums).
  let engagement = { applied: 0, dropped: 0 };
  if (eng) {
    script.add(`CREATE TEMP TABLE ${t.pv} AS SELECT e.rowid AS rid, e.site_id, e.day, e.visitor_key, e.path_canon, e.ts_ms, e.event_id, e.type,
        e.tenant_id, e.traffic_class, e.session_id, e.engagement_time_ms, e.engagement_time_ms AS was_ms
      FROM events e SEMI JOIN (SELECT DISTINCT site_id, day, visitor_key, path_canon FROM ${eng}) x ON ${on('e', 'x', [...VISITOR_DAY, 'path_canon'])}
      WHERE e.type = 'pageview'`);
    engagement = await applyEngagement(c, script, fresh, t.pv, eng, p);
    script.add(`CREATE TEMP TABLE ${t.inc} AS SELECT rid, site_id, day, tenant_id, traffic_class, path_canon, visitor_key, session_id,
        engagement_time_ms, engagement_time_ms - was_ms AS added_ms FROM ${t.pv} WHERE engagement_time_ms <> was_ms`);
    script.add(`DROP TABLE ${t.pv}`);
    script.add(`INSERT INTO ${w.updates} SELECT rid, session_id, engagement_time_ms FROM ${t.inc}`);
  } else {
    script.add(`CREATE TEMP TABLE ${t.inc} AS SELECT NULL::BIGINT AS rid, site_id, day, tenant_id, traffic_class, NULL::VARCHAR AS path_canon,
        visitor_key, session_id, 0::BIGINT AS engagement_time_ms, 0::BIGINT AS added_ms FROM ${vs} LIMIT 0`);
  }
  temps.push(t.inc);
  const [imported, newActions] = (
    await script.read(c, `SELECT (SELECT count(*) FROM ${fresh}), (SELECT count(*) FROM ${fresh} WHERE type = 'action')`)
  )[0].map(Number);
  if (imported === 0 && engagement.applied === 0) {
    dropScratch(script, w, temps);
    return { imported: 0, days: [], engagement };
  }

  // The new events' sessions, after the last stored session of their (site, day, tenant, key).
  script.add(`CREATE TEMP TABLE ${t.last} AS SELECT site_id, day, tenant_id, visitor_key, arg_max(start_ms, end_ms) AS start_ms, max(end_ms) AS end_ms
    FROM ${vs} GROUP BY site_id, day, tenant_id, visitor_key`);
  script.add(appendSessionizeSql(fresh, t.last, t.sess));
  script.add(sessionEventsSql({ fresh, old: null }, t.sess, t.nowNew));
  // what the new events make of each session they are in (for a grown one: of its new part)
  script.add(sessionsSql(t.nowNew, t.grown));

  // The sessions of the touched visitor-days as they will stand: the stored ones moved by what the
  // new events and the engagement add, then the sessions the new events start.
  const first = FIRST_EVENT_COLUMNS.map((col) => `s.${col}`).join(', ');
  const gained = `(SELECT site_id, day, session_id, sum(added_ms) AS added_ms FROM ${t.inc} GROUP BY site_id, day, session_id)`;
  const sessionKey = ['site_id', 'day', 'session_id'];
  script.add(`CREATE TEMP TABLE ${t.sessions} AS
    SELECT site_id, day, start_ms, end_ms, session_id, tenant_id, visitor_key, ${FIRST_EVENT_COLUMNS.join(', ')}, entry_page, exit_page,
      pageviews, events, engagement_ms, meaningful_actions, ${SESSION_FLAGS}
    FROM (
      SELECT s.site_id, s.day, s.start_ms, greatest(s.end_ms, coalesce(n.end_ms, s.end_ms)) AS end_ms, s.session_id, s.tenant_id, s.visitor_key, ${first},
        -- a pageview's path may be NULL, so whose entry and exit they are is told by pageviews, not by NULL
        CASE WHEN s.pageviews > 0 THEN s.entry_page ELSE n.entry_page END AS entry_page,
        CASE WHEN coalesce(n.pageviews, 0) > 0 THEN n.exit_page ELSE s.exit_page END AS exit_page,
        s.pageviews + coalesce(n.pageviews, 0) AS pageviews, s.events + coalesce(n.events, 0) AS events,
        CAST(s.engagement_ms + coalesce(n.engagement_ms, 0) + coalesce(i.added_ms, 0) AS BIGINT) AS engagement_ms,
        s.meaningful_actions + coalesce(n.meaningful_actions, 0) AS meaningful_actions
      FROM ${vs} s LEFT JOIN ${t.grown} n ON ${on('n', 's', sessionKey)} LEFT JOIN ${gained} i ON ${on('i', 's', sessionKey)}
    )
    UNION ALL
    SELECT n.* FROM ${t.grown} n ANTI JOIN ${vs} s ON ${on('n', 's', sessionKey)}`);

  if (opts.live) {
    // every day of the group is counted at read time (live-days.ts): the rollups are not moved, the page titles are
    await preparePageTitles(c, script, fresh, p, w);
  } else {
    await prepareAppendDelta(c, script, g, newActions, w);
  }

  addNewEvents(script, w, { fresh, sess: t.sess, importId: opts.importId, sortByDay: opts.sortByDay });
  script.add(`INSERT INTO ${w.visitorDays} SELECT site_id, day, visitor_key FROM ${v}`);
  script.add(`DROP VIEW ${t.nowNew}`);
  const days = await addSessionsCopy(c, script, w, t.sessions);
  dropScratch(script, w, temps);
  return { imported, days, engagement };
}

/**
 * The rollup delta of an append: the touched visitor-days as they were and as they are, from their
 * page events, sessions and action events (the header says how each half is made).
 */
async function prepareAppendDelta(
  c: DuckDBConnection,
  script: StatementScript,
  g: ImportGroup,
  newActions: number,
  w: ImportWrites,
): Promise<void> {
  const { fresh, v, p } = g;
  const vs = storedSessionsOf(g);
  const t = tables(p);
  // Page events: the stored half summed from the stored events of the touched visitor-days (the
  // columns it reads only), the new half that plus the new events and the engagement they gained.
  const d = duckdbDialect;
  const pageEventsOf = (events: string) =>
    compileRollupInputs(d, { events, sessions: vs }, { pageEvents: 'unused_pe', sessionRows: 'unused_sr', sessionEvents: 'unused_se' })
      .pageEvents;
  script.add(`CREATE TEMP VIEW ${t.storedEvents} AS SELECT e.* FROM events e SEMI JOIN ${v} v ON ${on('e', 'v', VISITOR_DAY)}`);
  const stored = pageEventsOf(t.storedEvents);
  script.add(`CREATE TEMP TABLE ${t.storedPages} AS ${stored.sql}`, stored.params);
  const added = pageEventsOf(t.nowNew);
  script.add(`CREATE TEMP TABLE ${t.newPages} AS ${added.sql}`, added.params);
  const keys = PAGE_KEYS.join(', ');
  const sums = PAGE_SUMS.map((s) => `CAST(sum(${s}) AS BIGINT) AS ${s}`).join(', ');
  const now = `SELECT ${keys}, min(day_ms) AS day_ms, ${sums} FROM (
      SELECT ${keys}, day_ms, ${PAGE_SUMS.join(', ')} FROM ${t.storedPages}
      UNION ALL SELECT ${keys}, day_ms, ${PAGE_SUMS.join(', ')} FROM ${t.newPages}
      UNION ALL SELECT ${keys}, epoch_ms(CAST(day AS TIMESTAMP)) AS day_ms, 0, 0, added_ms FROM ${t.inc}
    ) GROUP BY ${keys}`;
  script.add(`CREATE TEMP TABLE ${t.pageEvents} AS
    SELECT * REPLACE (${TAG_COLUMNS.before}) FROM ${t.storedPages}
    UNION ALL SELECT * REPLACE (${TAG_COLUMNS.now}) FROM (${now})`);
  // The events the quarter-hour and property builds read directly (DIRECT_EVENT_COLUMNS): the stored
  // ones as they were, and with the new ones as they are.
  const directCols = DIRECT_EVENT_COLUMNS.join(', ');
  const otherDirectCols = DIRECT_EVENT_COLUMNS.filter((col) => col !== 'site_id' && col !== 'session_id').join(', ');
  script.add(`CREATE TEMP TABLE ${t.directEvents} AS
    SELECT ${TAG_COLUMNS.before}, ${otherDirectCols} FROM ${t.storedEvents}
    UNION ALL SELECT ${TAG_COLUMNS.now}, ${otherDirectCols} FROM (SELECT ${directCols} FROM ${t.storedEvents} UNION ALL SELECT ${directCols} FROM ${t.nowNew})`);
  script.add(`DROP VIEW ${t.storedEvents}`);

  // Action events (what the actions build reads of events): the stored ones of the touched
  // visitor-days as they were, and with the new ones as they are.
  const actionCols = ACTION_EVENT_COLUMNS.join(', ');
  script.add(`CREATE TEMP TABLE ${t.storedActions} AS SELECT ${ACTION_EVENT_COLUMNS.map((col) => `e.${col}`).join(', ')}
    FROM events e SEMI JOIN ${v} v ON ${on('e', 'v', VISITOR_DAY)} WHERE e.type = 'action'`);
  const otherActionCols = ACTION_EVENT_COLUMNS.filter((col) => col !== 'site_id' && col !== 'session_id').join(', ');
  script.add(`CREATE TEMP VIEW ${t.actions} AS
    SELECT ${TAG_COLUMNS.before}, ${otherActionCols} FROM ${t.storedActions}
    UNION ALL SELECT ${TAG_COLUMNS.now}, ${otherActionCols} FROM (SELECT ${actionCols} FROM ${t.storedActions} UNION ALL SELECT ${actionCols} FROM ${t.nowNew} WHERE type = 'action')`);
  script.add(`CREATE TEMP VIEW ${t.bothSessions} AS
    SELECT * REPLACE (${TAG_COLUMNS.before}) FROM ${vs} UNION ALL SELECT * REPLACE (${TAG_COLUMNS.now}) FROM ${t.sessions}`);
  const [pageRows, actionEvents] = (
    await script.read(c, `SELECT (SELECT count(*) FROM ${t.pageEvents}), (SELECT count(*) FROM ${t.storedActions}) + ${newActions}`)
  )[0].map(Number);

  await prepareRollupDelta(
    c,
    {
      count: { tagged: { events: t.actions, sessions: t.bothSessions }, pageEvents: t.pageEvents, directEvents: t.directEvents },
      days: v,
      titles: { add: fresh },
      prefix: p,
      sourceRows: pageRows + actionEvents,
      actions: actionEvents > 0,
    },
    w,
    script,
  );
  script.add(`DROP VIEW ${t.actions}`);
  script.add(`DROP VIEW ${t.bothSessions}`);
  script.add(`DROP TABLE ${t.directEvents}`);
}
