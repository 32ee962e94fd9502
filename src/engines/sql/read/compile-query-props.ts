// The query API's breakdown by one custom property (`event:props:<key>`) from the rollup rows of
// PROP_GROUPINGS (rollup-tables.ts), exactly what compile-query-api.ts counts from the events
// (docs/decisions/query-api.md "Custom properties from the rollups"): each value's visitors, events and
// pageviews as stored, and the events without the key ("(none)") as the day's total less the values'
// events, their visitors as the day's visitors less those whose every event has the key. Planned for a
// window holding a whole UTC day or more, no filter, one traffic filter, every tenant or one, and those
// three atoms (the window's parts outside its whole UTC days are the events' to count); the rest reads
// the events.
import type { QueryAtom } from '../../../domain/query-api/query-metrics.js';
import { DAY_MS } from '../../../domain/report-range.js';
import type { QueryRowsRequest } from '../../../ports/analytics-engine.js';
import type { Dialect } from '../dialect.js';
import { PROP_GROUPINGS, ROLLUP_TABLE } from '../rollup-tables.js';
import type { ReadOptions } from './compile-actions.js';
import { queryRollupRows, queryRollupScope, type QueryRollupScope } from './compile-query-quarters.js';
import type { CompiledRead } from './read-rows.js';
import { SqlWriter } from './sql-writer.js';

export interface PropPlan extends QueryRollupScope {
  key: string;
  /** the whole UTC days of the window, which the rows answer */
  days: { startMs: number; endMs: number };
  /**
   * the window's parts before and after them, inside a UTC day each (a local day's start off UTC), which
   * the events answer: visitors are per UTC day, and no day is in two parts, so the parts add up
   */
  edges: { startMs: number; endMs: number }[];
}

const STORED: readonly QueryAtom[] = ['visitors', 'events', 'pageviews'];

/** The plan of a read the property rows answer exactly, or null. */
export function planPropRead(req: QueryRowsRequest): PropPlan | null {
  const [group, ...more] = req.groups;
  if (!group || more.length > 0 || group.kind !== 'prop' || req.bucketing || req.filters.length > 0) return null;
  if (!req.atoms.every((a) => STORED.includes(a))) return null;
  const scope = queryRollupScope(req);
  if (scope === null) return null;
  const { startMs, endMs } = req.window;
  const days = { startMs: Math.ceil(startMs / DAY_MS) * DAY_MS, endMs: Math.floor(endMs / DAY_MS) * DAY_MS };
  if (days.endMs <= days.startMs) return null;
  const edges = [
    ...(startMs < days.startMs ? [{ startMs, endMs: days.startMs }] : []),
    ...(days.endMs < endMs ? [{ startMs: days.endMs, endMs }] : []),
  ];
  return { ...scope, key: group.key, days, edges };
}

/**
 * The read of `plan`: the sums of the key's value and every-event rows and of the day's totals rows over
 * the plan's whole days, per grouping and value (keys q_dim and q_k, every column summed: partial results of several
 * servers add up), in one scan; foldPropRows turns them into compileQueryRows' rows.
 */
export function compilePropRead(
  d: Dialect,
  req: QueryRowsRequest,
  plan: PropPlan,
  options: Pick<ReadOptions, 'rowFilter'> & { table?: string } = {},
): CompiledRead {
  const w = new SqlWriter(d, options.rowFilter);
  const r = (c: string) => w.col('r', c);
  const where = [
    ...queryRollupRows(w, req.scope.siteId, plan),
    `${r('dim')} IN (${[PROP_GROUPINGS.value, PROP_GROUPINGS.every, PROP_GROUPINGS.total].map((g) => w.v(g)).join(', ')})`,
    `${r('filter_dim')} = ${w.v(PROP_GROUPINGS.filter)}`,
    // the key's value and every-event rows, and the totals (their key '')
    `${r('filter_key')} = (CASE WHEN ${r('dim')} = ${w.v(PROP_GROUPINGS.total)} THEN ${w.v('')} ELSE ${w.v(plan.key)} END)`,
    `${r('day_ms')} >= ${w.v(plan.days.startMs)}`,
    `${r('day_ms')} < ${w.v(plan.days.endMs)}`,
    ...w.visible(['rollups', 'r']),
  ];
  const sums = ['visitors', 'events', 'pageviews'].map((a) => `${d.toInt64(`sum(${r(a)})`)} AS q_${a}`);
  const sql =
    `SELECT ${r('dim')} AS q_dim, ${r('dim_key')} AS q_k, ${sums.join(', ')} FROM ${w.table(options.table ?? ROLLUP_TABLE, 'r')} ` +
    `WHERE ${where.join(' AND ')} GROUP BY q_dim, q_k`;
  const columns = ['q_dim', 'q_k', 'q_visitors', 'q_events', 'q_pageviews'];
  return {
    sql,
    params: w.params,
    columns,
    text: ['q_dim', 'q_k'],
    keys: ['q_dim', 'q_k'],
    merge: { q_visitors: 'sum', q_events: 'sum', q_pageviews: 'sum' },
  };
}

/**
 * compilePropRead's rows (several servers' merged) as compileQueryRows' rows: each value's as stored, and
 * the none group (key null) as the totals less the values' events and pageviews, and less the visitors
 * whose every event has the key; left out when no event lacks the key, as the events' read has no such row.
 */
export function foldPropRows(req: QueryRowsRequest, rows: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const num = (v: unknown) => Number(v ?? 0);
  type Atoms = Record<'visitors' | 'events' | 'pageviews', number>;
  const none: Atoms = { visitors: 0, events: 0, pageviews: 0 };
  const out: Record<string, unknown>[] = [];
  const row = (key: string | null, atoms: Atoms) =>
    Object.fromEntries([['q_k0', key], ...req.atoms.map((a) => [`q_${a}`, atoms[a as keyof Atoms]])]);
  for (const r of rows) {
    const atoms: Atoms = { visitors: num(r.q_visitors), events: num(r.q_events), pageviews: num(r.q_pageviews) };
    if (r.q_dim === PROP_GROUPINGS.total) for (const a of ['visitors', 'events', 'pageviews'] as const) none[a] += atoms[a];
    else if (r.q_dim === PROP_GROUPINGS.every) none.visitors -= atoms.visitors;
    else {
      out.push(row(r.q_k === null || r.q_k === undefined ? null : String(r.q_k), atoms));
      none.events -= atoms.events;
      none.pageviews -= atoms.pageviews;
    }
  }
  if (none.events > 0) out.push(row(null, none));
  return out;
}
