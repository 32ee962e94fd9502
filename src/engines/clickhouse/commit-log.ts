// Reads of ff_days, the commit log (schema.ts): which generation of each (site, day) is current,
// and the per-day facts coverage and data versions are computed from.
import type { DayRef } from '../../ports/event-store.js';
import { encodeClickHouseLiteral as lit } from '../sql/clickhouse-literal.js';
import type { ClickHouseNode, QueryOptions } from './node.js';
import { utcDay } from './sessionize.js';

const LAST_DATE_MS = Date.UTC(2105, 11, 31);
import { ident } from './schema.js';

export interface DayGen extends DayRef {
  gen: number;
  events: number;
}

/** `(site_id, day) IN (...)` over the given days (never empty: callers skip empty lists). */
export function daysIn(days: readonly DayRef[], siteCol = 'site_id', dayCol = 'day'): string {
  if (days.length === 0) return '0 = 1';
  return `(${siteCol}, ${dayCol}) IN (${days.map((d) => `(${lit(d.site_id)}, ${lit(d.day)})`).join(', ')})`;
}

/** The current generation of each listed (site, day) that has one. */
export async function currentGens(node: ClickHouseNode, table: string, days: readonly DayRef[]): Promise<DayGen[]> {
  if (days.length === 0) return [];
  const rows = await node.query<{ site_id: string; d: string; g: number; n: number }>(
    `SELECT site_id, toString(day) AS d, max(gen) AS g, argMax(events, gen) AS n FROM ${ident(table)}
     WHERE ${daysIn(days)} GROUP BY site_id, d ORDER BY site_id, d`,
  );
  return rows.map((r) => ({ site_id: r.site_id, day: r.d, gen: Number(r.g), events: Number(r.n) }));
}

/** The current generation of each day of a site between two instants' days (inclusive). */
export async function siteGens(
  node: ClickHouseNode,
  table: string,
  siteId: string,
  fromMs: number,
  toMs: number,
  opts: QueryOptions = {},
): Promise<DayGen[]> {
  // ClickHouse's Date ends in 2105; clamping keeps far-future windows from wrapping around
  const clamp = (ms: number) => (ms <= 0 ? '1970-01-01' : ms >= LAST_DATE_MS ? utcDay(LAST_DATE_MS) : utcDay(ms));
  const from = clamp(fromMs);
  const to = clamp(toMs);
  const rows = await node.query<{ d: string; g: number; n: number }>(
    `SELECT toString(day) AS d, max(gen) AS g, argMax(events, gen) AS n FROM ${ident(table)}
     WHERE site_id = ${lit(siteId)} AND day >= toDate(${lit(from)}) AND day <= toDate(${lit(to)}) GROUP BY d ORDER BY d`,
    opts,
  );
  return rows.map((r) => ({ site_id: siteId, day: r.d, gen: Number(r.g), events: Number(r.n) }));
}

export interface Coverage {
  firstMs: number | null;
  lastMs: number | null;
  events: number;
}

export async function siteCoverage(node: ClickHouseNode, table: string, siteId: string, opts: QueryOptions = {}): Promise<Coverage> {
  const rows = await node.query<{ f: number; l: number; n: number }>(
    `SELECT min(f) AS f, max(l) AS l, sum(n) AS n FROM (
       SELECT day, argMax(first_ms, gen) AS f, argMax(last_ms, gen) AS l, argMax(events, gen) AS n
       FROM ${ident(table)} WHERE site_id = ${lit(siteId)} GROUP BY day)`,
    opts,
  );
  const r = rows[0];
  // an aggregate over no rows gives 0, not NULL, in ClickHouse: no events means no coverage
  if (!r || Number(r.n) === 0) return { firstMs: null, lastMs: null, events: 0 };
  return { firstMs: Number(r.f), lastMs: Number(r.l), events: Number(r.n) };
}

/** Changes with every commit that adds events to the site (each adds ff_days rows with a new gen). */
export async function siteVersion(node: ClickHouseNode, table: string, siteId: string, opts: QueryOptions = {}): Promise<string> {
  const rows = await node.query<{ n: number; g: number }>(
    `SELECT count() AS n, max(gen) AS g FROM ${ident(table)} WHERE site_id = ${lit(siteId)}`,
    opts,
  );
  return `${rows[0]?.n ?? 0}:${rows[0]?.g ?? 0}`;
}

/**
 * A compiler row filter (sql/compile-query.ts rowFilter): rows of the site's current generation of
 * each day. The site itself is already in every read's scope.
 */
export function visibleRows(gens: readonly DayGen[]): (table: string, alias: string) => string {
  const set = gens.map((g) => `(${lit(g.day)}, ${lit(g.gen)})`).join(', ');
  return (_table, alias) => (gens.length === 0 ? '0 = 1' : `(${alias}.\`day\`, ${alias}.\`gen\`) IN (${set})`);
}
