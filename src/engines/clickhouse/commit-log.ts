// The commit log ff_days (schema.ts): which generation of each (site, day) each server shows, the
// facts coverage and data versions come from, and the row filter that makes reads see only the
// committed generations. The first server's log is the authority (an import commits with one
// insert there); each other server keeps a copy of its own rows, written right after the commit
// and mended by syncLogs when a process died in between.
import type { Checkpoint, DayRef } from '../../ports/event-store.js';
import type { RowFilter } from '../sql/read/sql-writer.js';
import { encodeClickHouseLiteral as lit } from '../sql/clickhouse-literal.js';
import type { ClickHouseNode, QueryOptions } from './node.js';
import { ident } from './schema.js';

export const DAY_MS = 86_400_000;
const LAST_DATE_MS = Date.UTC(2105, 11, 31);

/** YYYY-MM-DD (UTC) of a ms timestamp, clamped to ClickHouse's Date range. */
export function utcDay(tsMs: number): string {
  const ms = tsMs <= 0 ? 0 : Math.min(tsMs, LAST_DATE_MS);
  return new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
}

/** One server of the store: its connection and its shard number (1 without a cluster). */
export interface Shard {
  node: ClickHouseNode;
  num: number;
}

export interface DayGen extends DayRef {
  shard: number;
  gen: number;
}

/** `(site_id, day) IN (...)` over the given days (never empty: callers skip empty lists). */
export function daysIn(days: readonly DayRef[], siteCol = 'site_id', dayCol = 'day'): string {
  if (days.length === 0) return '0 = 1';
  return `(${siteCol}, ${dayCol}) IN (${days.map((d) => `(${lit(d.site_id)}, toDate(${lit(d.day)}))`).join(', ')})`;
}

/** The current generation of each listed (site, day) on each server that has one (from the authority). */
export async function currentGens(node: ClickHouseNode, table: string, days: readonly DayRef[]): Promise<DayGen[]> {
  if (days.length === 0) return [];
  const rows = await node.query<{ site_id: string; d: string; shard: number; g: number }>(
    `SELECT site_id, toString(day) AS d, shard, max(gen) AS g FROM ${ident(table)} WHERE ${daysIn(days)} GROUP BY site_id, d, shard`,
  );
  return rows.map((r) => ({ site_id: r.site_id, day: r.d, shard: Number(r.shard), gen: Number(r.g) }));
}

/**
 * A loader's checkpoint is a row of the first server's commit log itself (no site id starts with `#`):
 * written by the same insert that commits the import's days, so it is seen exactly when they are. Its
 * `events` column holds the position.
 */
export const checkpointSite = (source: string) => `#checkpoint/${source}`;

export function checkpointRow(cp: Checkpoint, gen: number, shard: number, committedMs: number): string {
  return JSON.stringify({
    site_id: checkpointSite(cp.source),
    day: '1970-01-01',
    gen,
    shard,
    events: cp.position,
    first_ms: 0,
    last_ms: 0,
    committed_ms: committedMs,
  });
}

// Other records committed in the same insert as the days (docs/decisions/lifecycle.md), each as a row of
// a site id of its own (no real one starts with `#`) and shard 0 (no server), out of every read of days.

/** A site's event counts: rows whose `delta` sums to the events stored per month (day = the month's first). */
export const countsSite = (site: string) => `#events/${site}`;
/** An import committed with this id (`events`: how many it stored). */
export const importSite = (importId: string) => `#import/${importId}`;
/** Lifecycle work committed and not finished yet: a purge before `day`, or a deletion, of the site. */
export const purgeSite = (site: string) => `#purge/${site}`;
export const deleteSite = (site: string) => `#delete/${site}`;

function recordRow(site_id: string, day: string, gen: number, committedMs: number, more: { events?: number; delta?: number } = {}): string {
  return JSON.stringify({
    site_id,
    day,
    gen,
    shard: 0,
    events: more.events ?? 0,
    first_ms: 0,
    last_ms: 0,
    committed_ms: committedMs,
    delta: more.delta ?? 0,
    import_id: '',
  });
}

export function importRow(importId: string, imported: number, gen: number, committedMs: number): string {
  return recordRow(importSite(importId), '1970-01-01', gen, committedMs, { events: imported });
}

export function lifecycleRow(site_id: string, day: string, gen: number, committedMs: number): string {
  return recordRow(site_id, day, gen, committedMs);
}

/** Rows moving the event counts by the days' change (`added`), one per (site, month); '' when nothing changes. */
export function eventCountRows(days: readonly (DayRef & { added: number })[], gen: number, committedMs: number): string {
  const byMonth = new Map<string, number>();
  for (const d of days)
    if (d.added !== 0) byMonth.set(`${d.site_id}|${d.day.slice(0, 7)}`, (byMonth.get(`${d.site_id}|${d.day.slice(0, 7)}`) ?? 0) + d.added);
  let out = '';
  for (const [key, delta] of byMonth) {
    if (delta === 0) continue;
    const [site, month] = [key.slice(0, key.lastIndexOf('|')), key.slice(key.lastIndexOf('|') + 1)];
    out += recordRow(countsSite(site), `${month}-01`, gen, committedMs, { delta }) + '\n';
  }
  return out;
}

/** The generation of the newest deletion of each listed site that has one (its counts before it no longer count). */
export async function deletedAt(
  node: ClickHouseNode,
  table: string,
  sites: readonly string[],
  opts: QueryOptions = {},
): Promise<Map<string, number>> {
  if (sites.length === 0) return new Map();
  const rows = await node.query<{ s: string; g: number }>(
    `SELECT site_id AS s, max(gen) AS g FROM ${ident(table)} WHERE site_id IN (${sites.map((s) => lit(deleteSite(s))).join(', ')}) GROUP BY s`,
    opts,
  );
  return new Map(rows.map((r) => [r.s.slice(deleteSite('').length), Number(r.g)]));
}

export interface Coverage {
  firstMs: number | null;
  lastMs: number | null;
  events: number;
}

/** From the current generation of every (day, server) of the site; a day left empty (purged, undone) has none. */
export async function siteCoverage(node: ClickHouseNode, table: string, siteId: string, opts: QueryOptions = {}): Promise<Coverage> {
  const rows = await node.query<{ f: number; l: number; n: number }>(
    `SELECT min(df) AS f, max(dl) AS l, sum(dn) AS n FROM (
       SELECT day, shard, argMax(first_ms, gen) AS df, argMax(last_ms, gen) AS dl, argMax(events, gen) AS dn
       FROM ${ident(table)} WHERE site_id = ${lit(siteId)} GROUP BY day, shard) WHERE dn > 0`,
    opts,
  );
  const r = rows[0];
  // an aggregate over no rows gives 0, not NULL, in ClickHouse: no events means no coverage
  if (!r || Number(r.n) === 0) return { firstMs: null, lastMs: null, events: 0 };
  return { firstMs: Number(r.f), lastMs: Number(r.l), events: Number(r.n) };
}

/**
 * The site's data version: `<commit rows>:<newest generation>`. Changes with every commit that adds
 * events to the site (each adds log rows under a new, greater gen). Reads pinned to it see exactly
 * the generations committed up to it.
 */
export function versionOf(rows: number, gen: number): string {
  return `${rows}:${gen}`;
}

/** The newest generation a version (versionOf) admits. */
export function genOfVersion(version: string): number {
  const m = /^\d+:(\d+)$/.exec(version);
  if (!m) throw new Error(`not a ClickHouse data version: ${JSON.stringify(version)}`);
  return Number(m[1]);
}

/** Per server (shard number), the current generation of each day with log rows (days since 1970-01-01). */
export type DayGens = Map<number, Map<number, number>>;

/** A site's data version, the current generation of each day it pins on each server, and the coverage of those generations. */
export interface SyncedState {
  version: string;
  gens: DayGens;
  coverage: Coverage;
}

/**
 * The site's data version from the authority, after making sure every other server's copy of the
 * log holds its rows (a process that died between the commit and the copies leaves one behind).
 */
export async function syncedVersion(
  coordinator: Shard,
  others: readonly Shard[],
  table: string,
  siteId: string,
  opts: QueryOptions = {},
): Promise<string> {
  return (await syncedState(coordinator, others, table, siteId, opts)).version;
}

/**
 * Per (site, server), the authority's count and newest generation of the server's rows at which the
 * server's copy was last found whole (syncedState). A commit adds rows under a newer generation and a
 * purge removes some, so the pair is seen again only while neither happened: the copy is whole still.
 */
export type CopiesSeen = Map<string, string>;
const MAX_COPIES_SEEN = 4096;

/**
 * syncedVersion, with the current generation of each (server, day) of the authority's log at that
 * version: the same read (per server and generation, the days whose newest generation it is). The log
 * only grows, so a version always pins the same generations. With `seen`, a server's copy is counted
 * only when the authority's rows for it changed since it was last found whole (then after the
 * authority's read, not beside it): as long as nothing is committed, one statement in all.
 */
export async function syncedState(
  coordinator: Shard,
  others: readonly Shard[],
  table: string,
  siteId: string,
  opts: QueryOptions = {},
  seen?: CopiesSeen,
): Promise<SyncedState> {
  const t = ident(table);
  const site = lit(siteId);
  const count = (s: Shard) =>
    s.node.query<Row>(
      `SELECT shard, uniqExact(day, gen) AS n, max(gen) AS g FROM ${t} WHERE site_id = ${site} AND shard = ${lit(s.num)} GROUP BY shard`,
      opts,
    );
  // uniqExact(day, gen) of a server is the sum over its days of each day's distinct generations; the
  // current generation's first, last and events of each day give the coverage (siteCoverage's
  // figures) in the same statement: every request reads both, and each statement costs a round trip
  const byGen =
    `SELECT shard, g, sum(n) AS n, groupArray(dn) AS days, minIf(df, de > 0) AS f, maxIf(dl, de > 0) AS l, sumIf(de, de > 0) AS e ` +
    `FROM (SELECT shard, toUInt16(day) AS dn, uniqExact(gen) AS n, max(gen) AS g, ` +
    `argMax(first_ms, gen) AS df, argMax(last_ms, gen) AS dl, argMax(events, gen) AS de ` +
    `FROM ${t} WHERE site_id = ${site} GROUP BY shard, day) GROUP BY shard, g`;
  type Row = { shard: number; n: number; g: number };
  const [authority, ...copies] = await Promise.all([
    coordinator.node.query<Row & { days: number[]; f: number; l: number; e: number }>(byGen, opts),
    ...others.map((s) => (seen ? null : count(s))),
  ]);
  const want = new Map<number, { n: number; g: number }>();
  const gens: DayGens = new Map();
  for (const r of authority) {
    const shard = Number(r.shard);
    const w = want.get(shard) ?? { n: 0, g: 0 };
    want.set(shard, { n: w.n + Number(r.n), g: Math.max(w.g, Number(r.g)) });
    let days = gens.get(shard);
    if (!days) gens.set(shard, (days = new Map()));
    for (const d of r.days) days.set(Number(d), Number(r.g));
  }
  for (const [i, s] of others.entries()) {
    const w = want.get(s.num) ?? { n: 0, g: 0 };
    const key = `${siteId}\u0000${s.num}`;
    const whole = `${w.n}:${w.g}`;
    if (seen?.get(key) === whole) continue;
    const have = Number((copies[i] ?? (await count(s)))[0]?.n ?? 0);
    if (have < w.n) await copyLog(coordinator.node, s, table, siteId, opts);
    if (seen) {
      seen.delete(key);
      seen.set(key, whole);
      if (seen.size > MAX_COPIES_SEEN) seen.delete(seen.keys().next().value!);
    }
  }
  const rows = authority.reduce((n, r) => n + Number(r.n), 0);
  const gen = authority.reduce((g, r) => Math.max(g, Number(r.g)), 0);
  const covered = authority.filter((r) => Number(r.e) > 0);
  const coverage: Coverage = covered.length
    ? {
        firstMs: Math.min(...covered.map((r) => Number(r.f))),
        lastMs: Math.max(...covered.map((r) => Number(r.l))),
        events: covered.reduce((n, r) => n + Number(r.e), 0),
      }
    : { firstMs: null, lastMs: null, events: 0 };
  return { version: versionOf(rows, gen), gens, coverage };
}

/** Copies the authority's rows of one server (and site) that its own log lacks. */
async function copyLog(authority: ClickHouseNode, to: Shard, table: string, siteId: string, opts: QueryOptions): Promise<void> {
  const where = `WHERE site_id = ${lit(siteId)} AND shard = ${lit(to.num)}`;
  const [all, have] = await Promise.all([
    authority.query<Record<string, unknown>>(`SELECT *, toString(day) AS d FROM ${ident(table)} ${where}`, opts),
    to.node.query<{ d: string; gen: number }>(`SELECT toString(day) AS d, gen FROM ${ident(table)} ${where}`, opts),
  ]);
  const present = new Set(have.map((r) => `${r.d}|${r.gen}`));
  const missing = all.filter((r) => !present.has(`${r.d}|${r.gen}`)).map(({ d, ...r }) => ({ ...r, day: d }));
  if (missing.length) await to.node.insertNdjson(ident(table), missing.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

/** At most this many runs of days (consecutive days of one generation) are spelled out in a row filter. */
const MAX_RUNS = 8;

/**
 * A compiler row filter for one server: the rows of the generation of each day that its log shows
 * as current at or before `gen`, on the days from `fromMs` to `toMs`. The site itself is in every
 * read's scope already. The day bounds let the sort key skip other days.
 *
 * `known`, the server's current generations at the version that pins `gen` (syncedState), turns the
 * filter into literals: each run of consecutive days of one generation is `day` bounds and `gen = g`
 * (a day without log rows has nothing to show), which costs the server next to nothing, where the
 * subquery of the log costs a few ms per read. Past MAX_RUNS runs, or without `known`, the subquery.
 */
export function visibleRows(
  server: number,
  log: string,
  siteId: string,
  fromMs: number,
  toMs: number,
  gen: number,
  known?: Map<number, number>,
): RowFilter {
  const from = `toDate(${lit(utcDay(fromMs))})`;
  const to = `toDate(${lit(utcDay(toMs))})`;
  const runs = known ? dayRuns(known, fromMs, toMs) : null;
  if (runs && runs.length <= MAX_RUNS) {
    const date = (day: number) => `toDate(${lit(utcDay(day * DAY_MS))})`;
    return (_table, alias) => {
      const d = `${alias}.\`day\``;
      const shown = runs.map((r) => `(${d} >= ${date(r.first)} AND ${d} <= ${date(r.last)} AND ${alias}.\`gen\` = ${lit(r.gen)})`);
      return `${d} >= ${from} AND ${d} <= ${to} AND (${shown.length ? shown.join(' OR ') : '0 = 1'})`;
    };
  }
  const current =
    `SELECT day, max(gen) FROM ${ident(log)} WHERE site_id = ${lit(siteId)} AND shard = ${lit(server)} ` +
    `AND day >= ${from} AND day <= ${to} AND gen <= ${lit(gen)} GROUP BY day`;
  return (_table, alias) =>
    `${alias}.\`day\` >= ${from} AND ${alias}.\`day\` <= ${to} AND (${alias}.\`day\`, ${alias}.\`gen\`) IN (${current})`;
}

/** The days from `fromMs` to `toMs` (UTC, clamped like utcDay) with a generation, as runs of consecutive days of one generation. */
function dayRuns(known: Map<number, number>, fromMs: number, toMs: number): { first: number; last: number; gen: number }[] {
  const first = Date.parse(utcDay(fromMs)) / DAY_MS;
  const last = Date.parse(utcDay(toMs)) / DAY_MS;
  const runs: { first: number; last: number; gen: number }[] = [];
  for (const day of [...known.keys()].filter((d) => d >= first && d <= last).sort((a, b) => a - b)) {
    const gen = known.get(day)!;
    const run = runs[runs.length - 1];
    if (run && run.last === day - 1 && run.gen === gen) run.last = day;
    else runs.push({ first: day, last: day, gen });
  }
  return runs;
}
