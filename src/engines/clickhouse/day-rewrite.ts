// One server's part of an import's commit, all in ClickHouse SQL: for a group of (site, day)s, the
// staged rows not stored yet and the engagement the import brings, then every day that gains either
// written anew under the import's generation: events with their session ids, sessions, the daily
// rollups (the shared build SQL, sql/build/rollup-build.ts, through the ClickHouse dialect), the
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
import { compilePageTitlesBuild } from '../sql/build/page-titles-build.js';
import { PAGE_TITLES_COLUMNS, ROLLUP_COLUMNS, ROLLUP_GROUPINGS } from '../sql/rollup-tables.js';
import { compileRollupBuild, compileRollupInputs } from '../sql/build/rollup-build.js';
import { actionsRollupSteps } from './clickhouse-actions-rollup.js';
import { utcDay, type Shard } from './commit-log.js';
import { inPool, once } from './in-pool.js';
import { EVENT_COLUMNS, FIRST_EVENT_COLUMNS, SESSION_COLUMNS, ident, type TableLayout } from './schema.js';

/** A (site, day) of this server with the generation it shows now (0: none). */
export interface ShardDay extends DayRef {
  oldGen: number;
}

/** What a day looks like on this server after the rewrite (the commit log's facts). */
export interface RewrittenDay extends DayRef {
  events: number;
  firstMs: number;
  lastMs: number;
}

const DAY_OF_TS = 'toDate(intDiv(ts_ms, 86400000))';
/** Below this many rows in the rewritten days, the rollups of every grouping are built by one statement. */
const ONE_STATEMENT_ROWS = 200_000;
const ROW = EVENT_ROW_FIELDS.map((f) => ident(f)).join(', ');

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
): Promise<{ fresh: number; applied: number; days: RewrittenDay[] }> {
  const n = server.node;
  const t = (name: string) => ident(name);
  const x = (kind: string) => `${tag}_${kind}`;
  const scratch = ['ev', 'se', 'pe', 'sr', 'sx', 'vd', 'add', 'eng', 'touch', 'gain', 'ai'].map(x);
  const dropAll = () => Promise.all(scratch.map((name) => n.command(`DROP TABLE IF EXISTS ${t(name)}`).catch(() => undefined)));
  const days = (name: string) => `(SELECT site_id, day FROM ${t(name)})`;
  const memory = async (name: string, rows: readonly ShardDay[]) => {
    await n.command(`CREATE TABLE ${t(name)} (site_id String, day Date, old_gen UInt64) ENGINE = Memory`);
    if (rows.length) await n.insertNdjson(t(name), rows.map((d) => JSON.stringify({ site_id: d.site_id, day: d.day, old_gen: d.oldGen })).join('\n') + '\n');
  };
  try {
    await memory(x('touch'), group);
    // stored rows of the days' current generation, and staged rows (one per id) not among them
    const stored = (name: string) => `SELECT ${ROW} FROM ${t(layout.events)} WHERE (site_id, day, gen) IN (SELECT site_id, day, old_gen FROM ${t(name)} WHERE old_gen > 0)`;
    const fresh = (name: string) =>
      `SELECT ${ROW} FROM (SELECT ${ROW} FROM ${t(stage)} WHERE (site_id, ${DAY_OF_TS}) IN ${days(name)} LIMIT 1 BY event_id) ` +
      `WHERE (site_id, event_id) NOT IN (SELECT site_id, event_id FROM (${stored(name)}))`;
    const gains = new Map<string, { site_id: string; day: string; fresh: number }>();
    const gainOf = (site: string, day: string) => gains.get(`${site}|${day}`) ?? gains.set(`${site}|${day}`, { site_id: site, day, fresh: 0 }).get(`${site}|${day}`)!;
    for (const g of await n.query<{ site_id: string; d: string; n: number }>(`SELECT site_id, toString(${DAY_OF_TS}) AS d, count() AS n FROM (${fresh(x('touch'))}) GROUP BY site_id, d`))
      gainOf(g.site_id, g.d).fresh = Number(g.n);
    const applied = engagement.length ? await engagementTargets(n, x, `${stored(x('touch'))} UNION ALL ${fresh(x('touch'))}`, engagement) : 0;
    if (applied) for (const g of await n.query<{ site_id: string; d: string }>(`SELECT DISTINCT site_id, toString(day) AS d FROM ${t(x('add'))}`)) gainOf(g.site_id, g.d);
    if (gains.size === 0) return { fresh: 0, applied: 0, days: [] };
    const old = new Map(group.map((d) => [`${d.site_id}|${d.day}`, d.oldGen]));
    await memory(x('gain'), [...gains.values()].map((g) => ({ site_id: g.site_id, day: g.day, oldGen: old.get(`${g.site_id}|${g.day}`) ?? 0 })));

    // every visitor day once, with the engagement added, sorted and cut into sessions; events and
    // sessions are both written from it
    const input = `${stored(x('gain'))} UNION ALL ${fresh(x('gain'))}`;
    await n.command(`CREATE TABLE ${t(x('vd'))} ENGINE = Memory AS ${visitorDaysSql(applied ? withEngagement(input, x('add')) : input)}`);
    await Promise.all([n.command(eventsSql(layout.events, x('vd'), gen)), n.command(sessionsSql(layout.sessions, x('vd'), gen))]);
    const newRows = (table: string) => `SELECT * FROM ${t(table)} WHERE gen = ${lit(gen)} AND (site_id, day) IN ${days(x('gain'))}`;
    await buildRollups(n, layout, x, newRows, gen, [...gains.values()].reduce((s, g) => s + g.fresh, 0));

    const stats = await n.query<{ site_id: string; d: string; n: number; f: number; l: number }>(
      `SELECT site_id, toString(day) AS d, count() AS n, min(ts_ms) AS f, max(ts_ms) AS l FROM (${newRows(layout.events)}) GROUP BY site_id, d`,
    );
    return {
      fresh: [...gains.values()].reduce((s, g) => s + g.fresh, 0),
      applied,
      days: stats.map((r) => ({ site_id: r.site_id, day: r.d, events: Number(r.n), firstMs: Number(r.f), lastMs: Number(r.l) })),
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
  n: Shard['node'],
  layout: TableLayout,
  x: (kind: string) => string,
  newRows: (table: string) => string,
  gen: number,
  rows: number,
): Promise<void> {
  const t = (name: string) => ident(name);
  await Promise.all([n.command(`CREATE VIEW ${t(x('ev'))} AS ${newRows(layout.events)}`), n.command(`CREATE VIEW ${t(x('se'))} AS ${newRows(layout.sessions)}`)]);
  const names = { pageEvents: x('pe'), sessionRows: x('sr'), sessionEvents: x('sx') };
  const inputs = compileRollupInputs(clickhouseDialect, { events: x('ev'), sessions: x('se') }, names);
  // a chain: each reads the one before
  const inputsReady = once(async () => {
    await n.command(`CREATE TABLE ${t(names.pageEvents)} ENGINE = Memory AS ${inputs.pageEvents.sql}`);
    await n.command(`CREATE TABLE ${t(names.sessionRows)} ENGINE = Memory AS ${inputs.sessionRows.sql}`);
    await n.command(`CREATE TABLE ${t(names.sessionEvents)} ENGINE = Memory AS ${inputs.sessionEvents.sql}`);
  });
  const tables = { ...names, trafficMap: layout.trafficMap, trafficMasks: layout.trafficMasks };
  const withDayGen = (columns: readonly string[], sql: string) =>
    `(${[...columns, 'day', 'gen'].map(t).join(', ')}) SELECT *, toDate(intDiv(day_ms, 86400000)), ${lit(gen)} FROM (${sql})`;
  // one statement for small rewrites (a statement's fixed cost dominates there), else one per
  // grouping: one grouping's hash tables in memory per statement
  const oneStatement = rows < ONE_STATEMENT_ROWS;
  const batches = oneStatement ? [ROLLUP_GROUPINGS] : ROLLUP_GROUPINGS.map((g) => [g]);
  const titles = compilePageTitlesBuild(clickhouseDialect, { events: x('ev') });
  const actions = actionsRollupSteps(n, layout, { events: x('ev'), sessions: x('se') }, x('ai'), gen, oneStatement);
  const actionsReady = once(actions.prepare);
  // In list order, so that a step waiting for its input waits little: the two inputs first.
  await inPool(BUILD_STATEMENTS_AT_ONCE, [
    inputsReady,
    actionsReady,
    ...actions.inserts.map((insert) => async () => {
      await actionsReady();
      await insert();
    }),
    () => n.command(`INSERT INTO ${t(layout.titles)} ${withDayGen(PAGE_TITLES_COLUMNS, titles.sql)}`),
    ...batches.map((groupings) => async () => {
      await inputsReady();
      await n.command(`INSERT INTO ${t(layout.rollups)} ${withDayGen(ROLLUP_COLUMNS, compileRollupBuild(clickhouseDialect, groupings, tables).sql)}`);
    }),
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
async function engagementTargets(n: Shard['node'], x: (kind: string) => string, input: string, engagement: readonly EngagementRow[]): Promise<number> {
  const t = (name: string) => ident(name);
  await n.command(`CREATE TABLE ${t(x('eng'))} (seq UInt32, site_id String, day Date, visitor_key String, ts_ms Int64, path_canon String, engagement_ms Int64) ENGINE = Memory`);
  await n.insertNdjson(
    t(x('eng')),
    engagement
      .map((e, seq) => JSON.stringify({ seq, site_id: e.site_id, day: utcDay(e.ts_ms), visitor_key: e.visitor_key, ts_ms: e.ts_ms, path_canon: e.path_canon, engagement_ms: e.engagement_ms }))
      .join('\n') + '\n',
  );
  // the pageviews under other names than the engagement rows' (18.16 resolves a name of both sides of a join to the left)
  const pageviews =
    `SELECT site_id AS p_site, ${DAY_OF_TS} AS p_day, visitor_key AS p_visitor, assumeNotNull(path_canon) AS p_path, ts_ms AS p_ts, event_id AS p_id ` +
    `FROM (${input}) WHERE type = 'pageview' AND path_canon IS NOT NULL`;
  const matched =
    `SELECT seq, any(site_id) AS site_id, any(day) AS day, any(engagement_ms) AS ms, argMax(p_id, tuple(p_ts, p_id)) AS event_id ` +
    `FROM ${t(x('eng'))} AS g ALL INNER JOIN (${pageviews}) AS p ON p.p_site = g.site_id AND p.p_day = g.day AND p.p_visitor = g.visitor_key AND p.p_path = g.path_canon ` +
    `WHERE p_ts <= ts_ms GROUP BY seq`;
  await n.command(`CREATE TABLE ${t(x('add'))} ENGINE = Memory AS SELECT site_id, day, event_id, sum(ms) AS add, count() AS found FROM (${matched}) GROUP BY site_id, day, event_id`);
  const [r] = await n.query<{ found: number }>(`SELECT sum(found) AS found FROM ${t(x('add'))}`);
  return Number(r?.found ?? 0);
}

/** `input`'s events (EventRow columns) with the engagement of `add` added to its pageviews, up to the cap. */
function withEngagement(input: string, add: string): string {
  const cols = EVENT_ROW_FIELDS.map((f) =>
    f === 'engagement_time_ms' ? `least(engagement_time_ms + ifNull(a_add, 0), ${MAX_ENGAGEMENT_MS}) AS engagement_time_ms` : ident(f),
  );
  return `SELECT ${cols.join(', ')} FROM (${input}) AS i ANY LEFT JOIN (SELECT site_id AS a_site, event_id AS a_id, add AS a_add FROM ${ident(add)}) AS a ON a.a_site = i.site_id AND a.a_id = i.event_id`;
}

/** Event fields carried in a visitor day's array after the sort key (ts_ms, is-action, event_id). */
const CARRIED: string[] = EVENT_ROW_FIELDS.filter((f) => !['ts_ms', 'event_id', 'site_id', 'tenant_id', 'visitor_key'].includes(f));
/** The position of a field in an array element (tuple): 1 ts_ms, 2 is-action, 3 event_id, then CARRIED. */
const at = (x: string, f: string) => (f === 'ts_ms' ? `${x}.1` : f === 'event_id' ? `${x}.3` : `${x}.${CARRIED.indexOf(f) + 4}`);

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
const SESSION_ID = (start: string) => `lower(hex(MD5(concat(site_id, '\\x1f', ifNull(tenant_id, '\\0'), '\\x1f', visitor_key, '\\x1f', toString(${start})))))`;

/** INSERT of every event of the visitor days under `gen`, with its session id. */
function eventsSql(events: string, visitorDays: string, gen: number): string {
  const value = (c: string) => {
    if (c === 'day' || c === 'site_id' || c === 'tenant_id' || c === 'visitor_key') return c;
    if (c === 'gen') return lit(gen);
    if (c === 'session_id') return SESSION_ID('st');
    return at('e', c);
  };
  const columns = EVENT_COLUMNS.map(([c]) => c);
  return `INSERT INTO ${ident(events)} (${columns.map(ident).join(', ')}) SELECT ${columns.map(value).join(', ')} FROM ${ident(visitorDays)} ARRAY JOIN evs AS e, st_of AS st`;
}

/** INSERT of every session of the visitor days under `gen`: one per (first, last) range of events. */
function sessionsSql(sessions: string, visitorDays: string, gen: number): string {
  const meaningful = MEANINGFUL_FAMILIES.map((f) => lit(f)).join(', ');
  const value: Record<string, string> = {
    site_id: 'site_id',
    day: 'day',
    start_ms: at('f', 'ts_ms'),
    gen: lit(gen),
    end_ms: at('l', 'ts_ms'),
    session_id: SESSION_ID(at('f', 'ts_ms')),
    tenant_id: 'tenant_id',
    visitor_key: 'visitor_key',
    ...Object.fromEntries(FIRST_EVENT_COLUMNS.map((c) => [c, at('f', c)])),
    entry_page: `if(pv > 0, ${at('pvs[1]', 'path_canon')}, NULL)`,
    exit_page: `if(pv > 0, ${at('pvs[pv]', 'path_canon')}, NULL)`,
    pageviews: 'pv',
    events: 'length(sl)',
    engagement_ms: 'eng',
    meaningful_actions: 'ma',
    is_bounce: 'pv = 1 AND ma = 0',
    is_engaged: `pv >= 2 OR eng >= ${ENGAGED_MS} OR ma > 0`,
  };
  const columns = SESSION_COLUMNS.map(([c]) => c);
  const perSession =
    `SELECT site_id, day, tenant_id, visitor_key, evs[fi] AS f, evs[li] AS l, arraySlice(evs, fi, li - fi + 1) AS sl, ` +
    `arrayFilter(x -> x.2 = 0, sl) AS pvs, length(pvs) AS pv, ` +
    `arraySum(arrayMap(x -> ${at('x', 'engagement_time_ms')}, sl)) AS eng, ` +
    `arrayCount(x -> ${at('x', 'type')} = 'action' AND ${at('x', 'family')} IN (${meaningful}), sl) AS ma ` +
    `FROM ${ident(visitorDays)} ARRAY JOIN firsts AS fi, lasts AS li`;
  return `INSERT INTO ${ident(sessions)} (${columns.map(ident).join(', ')}) SELECT ${columns.map((c) => value[c]).join(', ')} FROM (${perSession})`;
}
