// One server's part of an import's commit, all in ClickHouse SQL: for a group of (site, day)s, the
// staged rows not stored yet and the engagement the import brings, then every day that gains either
// written anew under the import's generation: events with their session ids, sessions, the daily
// rollups (the shared build SQL, sql/write/rollup-build.ts, through the ClickHouse dialect), the
// page-title rollup and the actions rollup. Nothing of it is visible until the commit log says so (commit-log.ts).
//
// Sessions follow docs/product.md §4.2 and §8.3 exactly as engines/duckdb/sessions-sql.ts does, without window
// functions (18.16 has none): a visitor's day is one array, sorted by (ts, pageview first, event_id
// bytes); a gap over 30 minutes starts a session; the id is md5 of site, tenant (NUL for none), key
// and start. test/engines/clickhouse-sessions.test.ts holds both to equal rows.
import { ENGAGED_MS, MAX_ENGAGEMENT_MS, MEANINGFUL_FAMILIES, SESSION_GAP_MS } from '../../domain/events.js';
import { EVENT_ROW_FIELDS, type DayRef, type EngagementRow } from '../../ports/event-store.js';
import { encodeClickHouseLiteral as lit } from '../sql/clickhouse-literal.js';
import { clickhouseDialect } from '../sql/dialect.js';
import { compilePageTitlesBuild } from '../sql/write/page-titles-build.js';
import { PAGE_TITLES_COLUMNS, ROLLUP_COLUMNS, ROLLUP_GROUPINGS } from '../sql/rollup-tables.js';
import { compileRollupBuild, compileRollupInputs } from '../sql/write/rollup-build.js';
import { compilePropRollupBuild } from '../sql/write/prop-rollup-build.js';
import { compileQuarterRollupBuild } from '../sql/write/quarter-rollup-build.js';
import { actionsRollupSteps } from './clickhouse-actions-rollup.js';
import { daysIn, utcDay, type Shard } from './commit-log.js';
import type { ClickHouseNode } from './node.js';
import { inPool, once } from './in-pool.js';
import { EVENT_COLUMNS, FIRST_EVENT_COLUMNS, SESSION_COLUMNS, ident, type TableLayout } from './schema.js';

/** A (site, day) of this server with the generation it shows now (0: none). */
export interface ShardDay extends DayRef {
  oldGen: number;
}

/** What a day looks like on this server after the rewrite (the commit log's facts; an emptied day: all 0). */
export interface RewrittenDay extends DayRef {
  events: number;
  firstMs: number;
  lastMs: number;
  /** events the rewrite stored anew, less those it removed (the day's change of the event counts) */
  added: number;
}

export interface RewriteOptions {
  /** the id the new events remember (ImportOptions.importId), null for none */
  importId: string | null;
  /**
   * Undo: the events of this import leave the days of the group, each of which is rewritten from the
   * events it keeps (the stage is empty).
   */
  without?: string;
}

const DAY_OF_TS = 'toDate(intDiv(ts_ms, 86400000))';
/** Below this many rows in the rewritten days, the rollups of every grouping are built by one statement. */
const ONE_STATEMENT_ROWS = 200_000;
const ROW = EVENT_ROW_FIELDS.map((field) => ident(field)).join(', ');
/** A stored event as a rewrite reads it: its row and the import that stored it. */
const STORED_ROW = `${ROW}, import_id`;

/**
 * Rewrites the days of `group` that gain events from `stage`, or engagement from `engagement`, on
 * this server under `gen`. `tag` names this step's scratch tables (dropped before returning). Returns
 * the staged rows that were new, the engagement rows that found their pageview here, and the days
 * rewritten.
 */
export async function rewriteDays(
  server: Shard,
  layout: TableLayout,
  stage: string,
  group: readonly ShardDay[],
  engagement: readonly EngagementRow[],
  gen: number,
  tag: string,
  opts: RewriteOptions,
): Promise<{ fresh: number; applied: number; days: RewrittenDay[] }> {
  const node = server.node;
  const scratchTable = (kind: string) => `${tag}_${kind}`;
  const scratchTables = ['ev', 'se', 'pe', 'sr', 'sx', 'vd', 'add', 'eng', 'touch', 'gain', 'ai'].map(scratchTable);
  const dropAll = () =>
    Promise.all(scratchTables.map((name) => node.command(`DROP TABLE IF EXISTS ${ident(name)}`).catch(() => undefined)));
  const days = (name: string) => `(SELECT site_id, day FROM ${ident(name)})`;
  const memory = async (name: string, rows: readonly ShardDay[]) => {
    await node.command(`CREATE TABLE ${ident(name)} (site_id String, day Date, old_gen UInt64) ENGINE = Memory`);
    if (rows.length)
      await node.insertNdjson(
        ident(name),
        rows.map((row) => JSON.stringify({ site_id: row.site_id, day: row.day, old_gen: row.oldGen })).join('\n') + '\n',
      );
  };
  try {
    await memory(scratchTable('touch'), group);
    // stored rows of the days' current generation, and staged rows (one per id) not among them
    const current = (name: string) => `(site_id, day, gen) IN (SELECT site_id, day, old_gen FROM ${ident(name)} WHERE old_gen > 0)`;
    const kept = opts.without === undefined ? '' : ` AND ifNull(import_id, '') != ${lit(opts.without)}`;
    const stored = (name: string) => `SELECT ${STORED_ROW} FROM ${ident(layout.events)} WHERE ${current(name)}${kept}`;
    const fresh = (name: string) =>
      `SELECT ${ROW}, CAST(${opts.importId === null ? 'NULL' : lit(opts.importId)} AS Nullable(String)) AS import_id ` +
      `FROM (SELECT ${ROW} FROM ${ident(stage)} WHERE (site_id, ${DAY_OF_TS}) IN ${days(name)} LIMIT 1 BY event_id) ` +
      `WHERE (site_id, event_id) NOT IN (SELECT site_id, event_id FROM (${stored(name)}))`;
    const gains = new Map<string, { site_id: string; day: string; fresh: number; removed: number }>();
    const gainOf = (site: string, day: string) =>
      gains.get(`${site}|${day}`) ?? gains.set(`${site}|${day}`, { site_id: site, day, fresh: 0, removed: 0 }).get(`${site}|${day}`)!;
    for (const row of await node.query<{ site_id: string; d: string; n: number }>(
      `SELECT site_id, toString(${DAY_OF_TS}) AS d, count() AS n FROM (${fresh(scratchTable('touch'))}) GROUP BY site_id, d`,
    ))
      gainOf(row.site_id, row.d).fresh = Number(row.n);
    if (opts.without !== undefined) {
      const removed = `SELECT site_id, toString(day) AS d, count() AS n FROM ${ident(layout.events)} WHERE ${current(scratchTable('touch'))} AND import_id = ${lit(opts.without)} GROUP BY site_id, d`;
      for (const row of await node.query<{ site_id: string; d: string; n: number }>(removed))
        gainOf(row.site_id, row.d).removed = Number(row.n);
    }
    const applied = engagement.length
      ? await engagementTargets(
          node,
          scratchTable,
          `${stored(scratchTable('touch'))} UNION ALL ${fresh(scratchTable('touch'))}`,
          engagement,
        )
      : 0;
    if (applied)
      for (const row of await node.query<{ site_id: string; d: string }>(
        `SELECT DISTINCT site_id, toString(day) AS d FROM ${ident(scratchTable('add'))}`,
      ))
        gainOf(row.site_id, row.d);
    if (gains.size === 0) return { fresh: 0, applied: 0, days: [] };
    const old = new Map(group.map((day) => [`${day.site_id}|${day.day}`, day.oldGen]));
    await memory(
      scratchTable('gain'),
      [...gains.values()].map((gain) => ({ site_id: gain.site_id, day: gain.day, oldGen: old.get(`${gain.site_id}|${gain.day}`) ?? 0 })),
    );
    const freshRows = [...gains.values()].reduce((sum, gain) => sum + gain.fresh, 0);
    const removedRows = [...gains.values()].reduce((sum, gain) => sum + gain.removed, 0);

    // every visitor day once, with the engagement added, sorted and cut into sessions; events and
    // sessions are both written from it
    const input = `${stored(scratchTable('gain'))} UNION ALL ${fresh(scratchTable('gain'))}`;
    await node.command(
      `CREATE TABLE ${ident(scratchTable('vd'))} ENGINE = Memory AS ${visitorDaysSql(applied ? withEngagement(input, scratchTable('add')) : input)}`,
    );
    await Promise.all([
      node.command(eventsSql(layout.events, scratchTable('vd'), gen)),
      node.command(sessionsSql(layout.sessions, scratchTable('vd'), gen)),
    ]);
    const newRows = (table: string) =>
      `SELECT * FROM ${ident(table)} WHERE gen = ${lit(gen)} AND (site_id, day) IN ${days(scratchTable('gain'))}`;
    await buildRollups(node, layout, scratchTable, newRows, gen, freshRows + removedRows);

    const stats = new Map(
      (
        await node.query<{ site_id: string; d: string; n: number; f: number; l: number }>(
          `SELECT site_id, toString(day) AS d, count() AS n, min(ts_ms) AS f, max(ts_ms) AS l FROM (${newRows(layout.events)}) GROUP BY site_id, d`,
        )
      ).map((row) => [`${row.site_id}|${row.d}`, row]),
    );
    // a day an undo emptied is rewritten too: to nothing (its log row says 0 events)
    return {
      fresh: freshRows,
      applied,
      days: [...gains.values()].map((g) => {
        const row = stats.get(`${g.site_id}|${g.day}`);
        return {
          site_id: g.site_id,
          day: g.day,
          events: Number(row?.n ?? 0),
          firstMs: Number(row?.f ?? 0),
          lastMs: Number(row?.l ?? 0),
          added: g.fresh - g.removed,
        };
      }),
    };
  } finally {
    await dropAll();
  }
}

/**
 * The rollup rows, page titles and action rows of the new generation's events and sessions: the
 * shared build's intermediate tables materialized once (in memory), then every grouping from them;
 * the page titles and the actions rollup read the new rows themselves, so they run meanwhile.
 */
async function buildRollups(
  node: Shard['node'],
  layout: TableLayout,
  scratchTable: (kind: string) => string,
  newRows: (table: string) => string,
  gen: number,
  rows: number,
): Promise<void> {
  await Promise.all([
    node.command(`CREATE VIEW ${ident(scratchTable('ev'))} AS ${newRows(layout.events)}`),
    node.command(`CREATE VIEW ${ident(scratchTable('se'))} AS ${newRows(layout.sessions)}`),
  ]);
  const names = { pageEvents: scratchTable('pe'), sessionRows: scratchTable('sr'), sessionEvents: scratchTable('sx') };
  const inputs = compileRollupInputs(clickhouseDialect, { events: scratchTable('ev'), sessions: scratchTable('se') }, names);
  // a chain: each reads the one before
  const inputsReady = once(async () => {
    await node.command(`CREATE TABLE ${ident(names.pageEvents)} ENGINE = Memory AS ${inputs.pageEvents.sql}`);
    await node.command(`CREATE TABLE ${ident(names.sessionRows)} ENGINE = Memory AS ${inputs.sessionRows.sql}`);
    await node.command(`CREATE TABLE ${ident(names.sessionEvents)} ENGINE = Memory AS ${inputs.sessionEvents.sql}`);
  });
  const tables = { ...names, trafficMap: layout.trafficMap, trafficMasks: layout.trafficMasks };
  const withDayGen = (columns: readonly string[], sql: string) =>
    `(${[...columns, 'day', 'gen'].map(ident).join(', ')}) SELECT *, toDate(intDiv(day_ms, 86400000)), ${lit(gen)} FROM (${sql})`;
  // one statement for small rewrites (a statement's fixed cost dominates there), else one per
  // grouping: one grouping's hash tables in memory per statement
  const oneStatement = rows < ONE_STATEMENT_ROWS;
  const batches = oneStatement ? [ROLLUP_GROUPINGS] : ROLLUP_GROUPINGS.map((grouping) => [grouping]);
  const titles = compilePageTitlesBuild(clickhouseDialect, { events: scratchTable('ev') });
  const actions = actionsRollupSteps(
    node,
    layout,
    { events: scratchTable('ev'), sessions: scratchTable('se') },
    scratchTable('ai'),
    gen,
    oneStatement,
  );
  const actionsReady = once(actions.prepare);
  // In list order, so that a step waiting for its input waits little: the two inputs first.
  await inPool(BUILD_STATEMENTS_AT_ONCE, [
    inputsReady,
    actionsReady,
    ...actions.inserts.map((insert) => async () => {
      await actionsReady();
      await insert();
    }),
    () => node.command(`INSERT INTO ${ident(layout.titles)} ${withDayGen(PAGE_TITLES_COLUMNS, titles.sql)}`),
    ...batches.map((groupings) => async () => {
      await inputsReady();
      await node.command(
        `INSERT INTO ${ident(layout.rollups)} ${withDayGen(ROLLUP_COLUMNS, compileRollupBuild(clickhouseDialect, groupings, tables).sql)}`,
      );
    }),
    // the quarter-hour rows read the new generation's events and sessions themselves
    () =>
      node.command(
        `INSERT INTO ${ident(layout.rollups)} ${withDayGen(ROLLUP_COLUMNS, compileQuarterRollupBuild(clickhouseDialect, { events: scratchTable('ev'), sessions: scratchTable('se') }, layout.trafficMap).sql)}`,
      ),
    // and so do the custom-property rows
    () =>
      node.command(
        `INSERT INTO ${ident(layout.rollups)} ${withDayGen(ROLLUP_COLUMNS, compilePropRollupBuild(clickhouseDialect, scratchTable('ev'), layout.trafficMap).sql)}`,
      ),
  ]);
}

/**
 * Build statements a server runs at once. ClickHouse (18.16) runs an INSERT ... SELECT of these
 * sizes on one thread, so one at a time left a server's other cores idle (two shards on the same
 * cores imported faster than one server). Each insert is a part of its own either way.
 */
const BUILD_STATEMENTS_AT_ONCE = 2;

/**
 * Which pageview each engagement row goes to (EngagementRow: the visitor's latest pageview of the
 * path at or before it, that day, among `input`'s events), summed per pageview into the scratch
 * table `add` (site_id, day, event_id, add). Returns how many rows found theirs.
 */
async function engagementTargets(
  node: Shard['node'],
  scratchTable: (kind: string) => string,
  input: string,
  engagement: readonly EngagementRow[],
): Promise<number> {
  await node.command(
    `CREATE TABLE ${ident(scratchTable('eng'))} (seq UInt32, site_id String, day Date, visitor_key String, ts_ms Int64, path_canon String, engagement_ms Int64) ENGINE = Memory`,
  );
  await node.insertNdjson(
    ident(scratchTable('eng')),
    engagement
      .map((row, seq) =>
        JSON.stringify({
          seq,
          site_id: row.site_id,
          day: utcDay(row.ts_ms),
          visitor_key: row.visitor_key,
          ts_ms: row.ts_ms,
          path_canon: row.path_canon,
          engagement_ms: row.engagement_ms,
        }),
      )
      .join('\n') + '\n',
  );
  // the pageviews under other names than the engagement rows' (18.16 resolves a name of both sides of a join to the left)
  const pageviews =
    `SELECT site_id AS p_site, ${DAY_OF_TS} AS p_day, visitor_key AS p_visitor, assumeNotNull(path_canon) AS p_path, ts_ms AS p_ts, event_id AS p_id ` +
    `FROM (${input}) WHERE type = 'pageview' AND path_canon IS NOT NULL`;
  const matched =
    `SELECT seq, any(site_id) AS site_id, any(day) AS day, any(engagement_ms) AS ms, argMax(p_id, tuple(p_ts, p_id)) AS event_id ` +
    `FROM ${ident(scratchTable('eng'))} AS g ALL INNER JOIN (${pageviews}) AS p ON p.p_site = g.site_id AND p.p_day = g.day AND p.p_visitor = g.visitor_key AND p.p_path = g.path_canon ` +
    `WHERE p_ts <= ts_ms GROUP BY seq`;
  await node.command(
    `CREATE TABLE ${ident(scratchTable('add'))} ENGINE = Memory AS SELECT site_id, day, event_id, sum(ms) AS add, count() AS found FROM (${matched}) GROUP BY site_id, day, event_id`,
  );
  const [total] = await node.query<{ found: number }>(`SELECT sum(found) AS found FROM ${ident(scratchTable('add'))}`);
  return Number(total?.found ?? 0);
}

/** `input`'s events (EventRow columns) with the engagement of `add` added to its pageviews, up to the cap. */
function withEngagement(input: string, add: string): string {
  const cols = [...EVENT_ROW_FIELDS, 'import_id'].map((field) =>
    field === 'engagement_time_ms'
      ? `least(engagement_time_ms + ifNull(a_add, 0), ${MAX_ENGAGEMENT_MS}) AS engagement_time_ms`
      : ident(field),
  );
  return `SELECT ${cols.join(', ')} FROM (${input}) AS i ANY LEFT JOIN (SELECT site_id AS a_site, event_id AS a_id, add AS a_add FROM ${ident(add)}) AS a ON a.a_site = i.site_id AND a.a_id = i.event_id`;
}

/** Event fields carried in a visitor day's array after the sort key (ts_ms, is-action, event_id). */
const CARRIED: string[] = [...EVENT_ROW_FIELDS, 'import_id'].filter(
  (field) => !['ts_ms', 'event_id', 'site_id', 'tenant_id', 'visitor_key'].includes(field),
);
/** The position of a field in an array element (tuple): 1 ts_ms, 2 is-action, 3 event_id, then CARRIED. */
const at = (element: string, field: string) =>
  field === 'ts_ms' ? `${element}.1` : field === 'event_id' ? `${element}.3` : `${element}.${CARRIED.indexOf(field) + 4}`;

/**
 * One row per visitor day of `input` (EventRow columns): its events as an array sorted in session
 * order (`evs`), where each session starts (`firsts`, 1-based) and ends (`lasts`), and each event's
 * session start time (`st_of`).
 */
function visitorDaysSql(input: string): string {
  // one level: 18.16 drops a subquery's columns that only a lambda of the outer query uses
  return (
    `SELECT site_id, ${DAY_OF_TS} AS day, tenant_id, visitor_key, ` +
    `arraySort(x -> (x.1, x.2, x.3), groupArray(tuple(ts_ms, type != 'pageview', event_id, ${CARRIED.map(ident).join(', ')}))) AS evs, ` +
    `arrayMap(x -> x.1, evs) AS tss, ` +
    `arrayMap(i -> (i = 1) OR (tss[i] - tss[i - 1] > ${SESSION_GAP_MS}), arrayEnumerate(tss)) AS brk, ` +
    `arrayFilter((i, b) -> b, arrayEnumerate(tss), brk) AS firsts, ` +
    `arrayMap(k -> if(k < length(firsts), toUInt64(firsts[k + 1] - 1), length(evs)), arrayEnumerate(firsts)) AS lasts, ` +
    `arrayMap(n -> tss[firsts[n]], arrayCumSum(brk)) AS st_of ` +
    `FROM (${input}) GROUP BY site_id, day, tenant_id, visitor_key`
  );
}

/** md5 of site, tenant (NUL for none), visitor key and start, as engines/duckdb/sessions-sql.ts writes it. */
const SESSION_ID = (start: string) =>
  `lower(hex(MD5(concat(site_id, '\\x1f', ifNull(tenant_id, '\\0'), '\\x1f', visitor_key, '\\x1f', toString(${start})))))`;

/** INSERT of every event of the visitor days under `gen`, with its session id. */
function eventsSql(events: string, visitorDays: string, gen: number): string {
  const value = (column: string) => {
    if (column === 'day' || column === 'site_id' || column === 'tenant_id' || column === 'visitor_key') return column;
    if (column === 'gen') return lit(gen);
    if (column === 'session_id') return SESSION_ID('st');
    return at('e', column);
  };
  const columns = EVENT_COLUMNS.map(([column]) => column);
  return `INSERT INTO ${ident(events)} (${columns.map(ident).join(', ')}) SELECT ${columns.map(value).join(', ')} FROM ${ident(visitorDays)} ARRAY JOIN evs AS e, st_of AS st`;
}

/** INSERT of every session of the visitor days under `gen`: one per (first, last) range of events. */
function sessionsSql(sessions: string, visitorDays: string, gen: number): string {
  const meaningful = MEANINGFUL_FAMILIES.map((family) => lit(family)).join(', ');
  const value: Record<string, string> = {
    site_id: 'site_id',
    day: 'day',
    start_ms: at('f', 'ts_ms'),
    gen: lit(gen),
    end_ms: at('l', 'ts_ms'),
    session_id: SESSION_ID(at('f', 'ts_ms')),
    tenant_id: 'tenant_id',
    visitor_key: 'visitor_key',
    ...Object.fromEntries(FIRST_EVENT_COLUMNS.map((column) => [column, at('f', column)])),
    entry_page: `if(pv > 0, ${at('pvs[1]', 'path_canon')}, NULL)`,
    exit_page: `if(pv > 0, ${at('pvs[pv]', 'path_canon')}, NULL)`,
    pageviews: 'pv',
    events: 'length(sl)',
    engagement_ms: 'eng',
    meaningful_actions: 'ma',
    is_bounce: 'pv = 1 AND ma = 0',
    is_engaged: `pv >= 2 OR eng >= ${ENGAGED_MS} OR ma > 0`,
  };
  const columns = SESSION_COLUMNS.map(([column]) => column);
  const perSession =
    `SELECT site_id, day, tenant_id, visitor_key, evs[fi] AS f, evs[li] AS l, arraySlice(evs, fi, li - fi + 1) AS sl, ` +
    `arrayFilter(x -> x.2 = 0, sl) AS pvs, length(pvs) AS pv, ` +
    `arraySum(arrayMap(x -> ${at('x', 'engagement_time_ms')}, sl)) AS eng, ` +
    `arrayCount(x -> ${at('x', 'type')} = 'action' AND ${at('x', 'family')} IN (${meaningful}), sl) AS ma ` +
    `FROM ${ident(visitorDays)} ARRAY JOIN firsts AS fi, lasts AS li`;
  return `INSERT INTO ${ident(sessions)} (${columns.map(ident).join(', ')}) SELECT ${columns.map((column) => value[column]).join(', ')} FROM (${perSession})`;
}

/** Rows (staged and stored) one rewrite step of a server reads at most, roughly; a day is never split. */
const GROUP_ROWS = 1_000_000;

/** How many rows of each (site, day) a server stores at its current generation (the authority's facts). */
export async function storedRows(
  authority: ClickHouseNode,
  shard: number,
  log: string,
  days: readonly ShardDay[],
): Promise<Map<string, number>> {
  const withOld = days.filter((d) => d.oldGen > 0);
  if (withOld.length === 0) return new Map();
  const rows = await authority.query<{ site_id: string; d: string; n: number }>(
    `SELECT site_id, toString(day) AS d, argMax(events, gen) AS n FROM ${ident(log)} WHERE shard = ${lit(shard)} AND ${daysIn(withOld)} GROUP BY site_id, d`,
  );
  return new Map(rows.map((r) => [`${r.site_id}|${r.d}`, Number(r.n)]));
}

/** Days in groups of about GROUP_ROWS rows (staged and stored), a day never split. */
export function* groupDays(days: readonly (ShardDay & { n: number })[], stored: Map<string, number>): Generator<ShardDay[]> {
  let group: ShardDay[] = [];
  let rows = 0;
  for (const d of days) {
    const n = d.n + (stored.get(`${d.site_id}|${d.day}`) ?? 0);
    if (group.length && rows + n > GROUP_ROWS) {
      yield group;
      group = [];
      rows = 0;
    }
    group.push({ site_id: d.site_id, day: d.day, oldGen: d.oldGen });
    rows += n;
  }
  if (group.length) yield group;
}
