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
import { bucketAt, bucketSql } from './query-buckets.js';
import type { CompiledRead } from './read-rows.js';
import { int, SqlWriter } from './sql-writer.js';

/** Where a quarter-hour read cuts each UTC day: the first quarter counted by its last-event visitors. */
export interface QuarterPlan {
  traffic: TrafficFilter;
  /** null: the all-tenants rows; else one tenant's */
  tenant: string | null;
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
  const traffic = trafficFilterOf(req.scope.trafficClasses);
  if (traffic === null) return null;
  const tenants = req.scope.tenantIds;
  if (tenants !== null && tenants.length !== 1) return null;
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
  return { traffic, tenant: tenants === null ? null : tenants[0], cuts };
}

/**
 * The read of `plan` (planQuarterRead's for `req`), with compileQueryRows' result columns, keys and
 * merge: partial results of several servers, or of the quarter rows and the events, add up.
 */
export function compileQuarterRead(
  d: Dialect,
  req: QueryRowsRequest,
  plan: QuarterPlan,
  options: Pick<ReadOptions, 'rowFilter'> & { table?: string } = {},
): CompiledRead {
  const w = new SqlWriter(d, options.rowFilter);
  const r = (c: string) => w.col('r', c);
  // Keys compared as text (quarterKey: two digits), never parsed: a day's rows before its cut are all in
  // the bucket of the day's start, the rest in the bucket of the cut's instant.
  const key = r('dim_key');
  // each day's cut: days grouped by their cut, the largest group in the ELSE (a few IN lists, not a branch
  // per run of days: weekly buckets alternate cut and whole days)
  const lastDay = Math.floor((req.window.endMs - 1) / DAY_MS) * DAY_MS;
  const daysByCut = new Map<number, number[]>();
  for (const [i, run] of plan.cuts.entries()) {
    const until = plan.cuts[i + 1]?.fromMs ?? lastDay + DAY_MS;
    const days = daysByCut.get(run.cut) ?? [];
    for (let day = run.fromMs; day < until; day += DAY_MS) days.push(day);
    daysByCut.set(run.cut, days);
  }
  const groups = [...daysByCut].sort((a, b) => a[1].length - b[1].length);
  const byDay = (value: (cut: number) => string) =>
    groups.length === 1
      ? value(groups[0][0])
      : `(CASE ${groups
          .slice(0, -1)
          .map(([cut, days]) => `WHEN ${r('day_ms')} IN (${days.map(int).join(', ')}) THEN ${value(cut)}`)
          .join(' ')} ELSE ${value(groups.at(-1)![0])} END)`;
  // built where used: a placeholder written is a parameter bound
  const beforeCut = () => `${key} < ${byDay((cut) => w.v(quarterKey(cut)))}`;
  const ts = () => `(${r('day_ms')} + (CASE WHEN ${beforeCut()} THEN 0 ELSE ${byDay((cut) => int(cut * QUARTER_MS))} END))`;
  const atomExpr = (a: QueryAtom): string =>
    a === 'visitors'
      ? `sum(CASE WHEN ${beforeCut()} THEN ${r('visitors')} ELSE ${r(QUARTER_COLUMNS.lastVisitors)} END)`
      : `sum(${r(ATOM_COLUMNS[a])})`;
  const atoms = req.atoms.map((a) => `${d.toInt64(atomExpr(a))} AS q_${a}`);
  const bucket = req.bucketing ? `${d.toInt64(bucketSql(d, req.bucketing, ts()))} AS q_bucket` : null;
  const { startMs, endMs } = req.window;
  const firstDay = Math.floor(startMs / DAY_MS) * DAY_MS;
  const where = [
    `${r('site_id')} = ${w.v(req.scope.siteId)}`,
    `${r('traffic')} = ${w.v(plan.traffic)}`,
    plan.tenant === null ? d.isTrue(r('all_tenants')) : `NOT ${d.isTrue(r('all_tenants'))}`,
    ...(plan.tenant === null ? [] : [`${r('tenant_id')} = ${w.v(plan.tenant)}`]),
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
  const keys = req.bucketing ? ['q_bucket'] : [];
  const sql =
    `SELECT ${[...(bucket ? [bucket] : []), ...atoms].join(', ')} FROM ${w.table(options.table ?? ROLLUP_TABLE, 'r')} ` +
    `WHERE ${where.join(' AND ')}` +
    (keys.length ? ` GROUP BY ${keys.join(', ')}` : '');
  return {
    sql,
    params: w.params,
    columns: [...keys, ...req.atoms.map((a) => `q_${a}`)],
    text: [],
    keys,
    merge: Object.fromEntries(req.atoms.map((a) => [`q_${a}`, 'sum'])),
  };
}
