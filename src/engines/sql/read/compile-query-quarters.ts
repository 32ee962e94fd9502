// The query API's read from the quarter-hour rollup rows (QUARTER_GROUPING, rollup-tables.ts): a
// site's totals and time series in any zone at the rollups' cost, exactly what compile-query-api.ts
// counts from the events (docs/decisions/query-api.md "Quarter-hour rollups").
//
// A quarter's events, pageviews and session starts lie in one bucket, so they add up as they are.
// Visitors are distinct keys per UTC day: a day's quarters in one bucket count the visitor-days whose
// first event is among them, which is the day's visitors; a day CUT once (by the window's edge or a
// bucket's boundary: a local midnight) counts, before the cut, the visitor-days whose first event is
// before it, and from the cut on those whose last event is at or after it. A day cut twice (hourly
// buckets; a window inside one day) or anywhere but at a quarter is not planned: the events answer.
import { trafficFilterOf, type TrafficFilter } from '../../../domain/events.js';
import type { QueryAtom } from '../../../domain/query-api/query-metrics.js';
import { DAY_MS } from '../../../domain/report-range.js';
import type { QueryRowsRequest } from '../../../ports/analytics-engine.js';
import type { Dialect } from '../dialect.js';
import { QUARTER_COLUMNS, QUARTER_GROUPING, QUARTER_MS, QUARTERS_PER_DAY, quarterKey, ROLLUP_TABLE } from '../rollup-tables.js';
import type { ReadOptions } from './compile-actions.js';
import { bucketAt } from './query-buckets.js';
import type { CompiledRead } from './read-rows.js';
import { SqlWriter } from './sql-writer.js';

/** The rollup rows a query API read of one traffic filter and every tenant or one reads (quarter and property reads). */
export interface QueryRollupScope {
  traffic: TrafficFilter;
  /** null: the all-tenants rows; else one tenant's */
  tenant: string | null;
}

/** The scope of `req` as stored rollup rows hold it, or null: several tenants, or classes no traffic filter has. */
export function queryRollupScope(req: QueryRowsRequest): QueryRollupScope | null {
  const traffic = trafficFilterOf(req.scope.trafficClasses);
  const tenants = req.scope.tenantIds;
  if (traffic === null || (tenants !== null && tenants.length !== 1)) return null;
  return { traffic, tenant: tenants === null ? null : tenants[0] };
}

/** Conditions on the rollup rows `r` of `w` for a site and a QueryRollupScope. */
export function queryRollupRows(w: SqlWriter, siteId: string, scope: QueryRollupScope): string[] {
  const r = (c: string) => w.col('r', c);
  return [
    `${r('site_id')} = ${w.v(siteId)}`,
    `${r('traffic')} = ${w.v(scope.traffic)}`,
    scope.tenant === null ? w.d.isTrue(r('all_tenants')) : `NOT ${w.d.isTrue(r('all_tenants'))}`,
    ...(scope.tenant === null ? [] : [`${r('tenant_id')} = ${w.v(scope.tenant)}`]),
  ];
}

/** Where a quarter-hour read cuts each UTC day: the first quarter counted by its last-event visitors. */
export interface QuarterPlan extends QueryRollupScope {
  /** runs of days [fromMs, next run's fromMs) sharing a cut (QUARTERS_PER_DAY: none) */
  cuts: { fromMs: number; cut: number }[];
}

/** The column of the quarter rows each atom sums (visitors: two, either side of a day's cut). */
const ATOM_COLUMNS: Readonly<Record<Exclude<QueryAtom, 'visitors'>, string>> = {
  events: 'events',
  pageviews: 'pageviews',
  visits: 'sessions',
  bounces: 'bounces',
  visit_pageviews: QUARTER_COLUMNS.sessionPageviews,
  visit_eng_ms: 'session_eng_ms',
};

/**
 * The plan of a read the quarter rows answer exactly, or null: no dimension but time, no filter, one
 * traffic filter, every tenant or one, a window and buckets cutting each day at most once, at quarters.
 */
export function planQuarterRead(req: QueryRowsRequest): QuarterPlan | null {
  if (req.groups.length > 0 || req.filters.length > 0) return null;
  const scope = queryRollupScope(req);
  if (scope === null) return null;
  const { startMs, endMs } = req.window;
  if (startMs % QUARTER_MS !== 0 || endMs % QUARTER_MS !== 0 || endMs <= startMs) return null;
  const b = req.bucketing;
  const key = (ts: number) => (ts < startMs || ts >= endMs ? null : b ? bucketAt(b, ts) : 0);
  const cuts: QuarterPlan['cuts'] = [];
  for (let day = Math.floor(startMs / DAY_MS) * DAY_MS; day < endMs; day += DAY_MS) {
    let cut = QUARTERS_PER_DAY;
    let prev = key(day);
    for (let q = 0; q < QUARTERS_PER_DAY; q++) {
      const at = day + q * QUARTER_MS;
      const k = key(at);
      // a bucket boundary inside the quarter: only the events answer
      if (k !== null && key(at + QUARTER_MS - 1) !== k) return null;
      if (q > 0 && k !== prev) {
        if (cut !== QUARTERS_PER_DAY) return null;
        cut = q;
      }
      prev = k;
    }
    if (cuts.at(-1)?.cut !== cut) cuts.push({ fromMs: day, cut });
  }
  return { ...scope, cuts };
}

/** Where a read of `plan` splits each day's quarters: the distinct cuts, ascending (a day's segments). */
function segmentBounds(plan: QuarterPlan): number[] {
  return [...new Set(plan.cuts.map((c) => c.cut).filter((c) => c < QUARTERS_PER_DAY))].sort((a, b) => a - b);
}

/**
 * The read of `plan` (planQuarterRead's for `req`): per UTC day and segment of the day (the quarters
 * between two of the plan's distinct cuts), the sums of the quarter rows, with both visitor columns
 * (q_first: by first event, q_last: by last). Keys q_day and q_seg, every column summed: partial results
 * of several servers add up, and foldQuarterRows turns them into compileQueryRows' rows. The buckets are
 * put together in TypeScript rather than in the statement: an expression for each day's cut and the
 * bucket's rule over every row cost ClickHouse 18.16 more than the rows it reads.
 */
export function compileQuarterRead(
  d: Dialect,
  req: QueryRowsRequest,
  plan: QuarterPlan,
  options: Pick<ReadOptions, 'rowFilter'> & { table?: string } = {},
): CompiledRead {
  const w = new SqlWriter(d, options.rowFilter);
  const r = (c: string) => w.col('r', c);
  // keys compared as text (quarterKey: two digits), never parsed
  const key = r('dim_key');
  const bounds = segmentBounds(plan);
  const seg = bounds.length
    ? `(CASE ${bounds.map((cut, i) => `WHEN ${key} < ${w.v(quarterKey(cut))} THEN ${i}`).join(' ')} ELSE ${bounds.length} END)`
    : '0';
  const sums: [expr: string, name: string][] = [];
  if (req.atoms.includes('visitors')) sums.push([r('visitors'), 'q_first'], [r(QUARTER_COLUMNS.lastVisitors), 'q_last']);
  for (const a of req.atoms) if (a !== 'visitors') sums.push([r(ATOM_COLUMNS[a]), `q_${a}`]);
  const { startMs, endMs } = req.window;
  const firstDay = Math.floor(startMs / DAY_MS) * DAY_MS;
  const lastDay = Math.floor((endMs - 1) / DAY_MS) * DAY_MS;
  const where = [
    ...queryRollupRows(w, req.scope.siteId, plan),
    `${r('dim')} = ${w.v(QUARTER_GROUPING)}`,
    `${r('filter_dim')} = ${w.v('')}`,
    // visits alone: the buckets where sessions start, as the events' read groups them (a quarter may hold
    // events of a session that started in the bucket before)
    ...(req.atoms.some((a) => a === 'visitors' || a === 'events' || a === 'pageviews') ? [] : [`${r('sessions')} > 0`]),
    `${r('day_ms')} >= ${w.v(firstDay)}`,
    `${r('day_ms')} < ${w.v(endMs)}`,
    // the first and last days' quarters in the window
    ...(startMs > firstDay
      ? [`(${r('day_ms')} > ${w.v(firstDay)} OR ${key} >= ${w.v(quarterKey((startMs - firstDay) / QUARTER_MS))})`]
      : []),
    ...(endMs > lastDay ? [`(${r('day_ms')} < ${w.v(lastDay)} OR ${key} < ${w.v(quarterKey((endMs - lastDay) / QUARTER_MS))})`] : []),
    ...w.visible(['rollups', 'r']),
  ];
  const keys = ['q_day', 'q_seg'];
  const columns = [...keys, ...sums.map(([, name]) => name)];
  const selected = sums.map(([expr, name]) => `${d.toInt64(`sum(${expr})`)} AS ${name}`);
  const sql =
    `SELECT ${d.toInt64(r('day_ms'))} AS q_day, ${d.toInt64(seg)} AS q_seg, ${selected.join(', ')} ` +
    `FROM ${w.table(options.table ?? ROLLUP_TABLE, 'r')} WHERE ${where.join(' AND ')} GROUP BY q_day, q_seg`;
  return {
    sql,
    params: w.params,
    columns,
    text: [],
    keys,
    merge: Object.fromEntries(columns.slice(keys.length).map((c) => [c, 'sum'])),
  };
}

/**
 * compileQuarterRead's rows (several servers' merged) as compileQueryRows' rows: each (day, segment) in
 * the bucket of its day's start, or, from the day's cut on, of the cut's instant (where the events' read
 * puts each of its events); visitors by first event before the cut and by last event from it. Totals (no
 * bucketing) are one row, as the events' read gives.
 */
export function foldQuarterRows(
  req: QueryRowsRequest,
  plan: QuarterPlan,
  rows: readonly Record<string, unknown>[],
): Record<string, unknown>[] {
  const bounds = segmentBounds(plan);
  const cutOf = (day: number): number => {
    let cut = QUARTERS_PER_DAY;
    for (const run of plan.cuts) if (run.fromMs <= day) cut = run.cut;
    return cut;
  };
  const zero = () => Object.fromEntries(req.atoms.map((a) => [`q_${a}`, 0]));
  const out = new Map<number, Record<string, number>>();
  const num = (v: unknown) => Number(v ?? 0);
  for (const row of rows) {
    const day = num(row.q_day);
    const seg = num(row.q_seg);
    const cut = cutOf(day);
    const after = seg > 0 && bounds[seg - 1] >= cut;
    const bucket = req.bucketing ? bucketAt(req.bucketing, day + (after ? cut * QUARTER_MS : 0)) : 0;
    let acc = out.get(bucket);
    if (!acc) out.set(bucket, (acc = zero()));
    for (const a of req.atoms) acc[`q_${a}`] += a === 'visitors' ? num(after ? row.q_last : row.q_first) : num(row[`q_${a}`]);
  }
  if (!req.bucketing) return [out.get(0) ?? zero()];
  return [...out].map(([bucket, atoms]) => ({ q_bucket: bucket, ...atoms }));
}
