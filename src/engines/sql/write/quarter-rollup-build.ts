// The quarter-hour rows of the rollup table (QUARTER_GROUPING in rollup-tables.ts says what each atom
// counts), through the shared Dialect hooks, in ROLLUP_COLUMNS order: the same statement runs on DuckDB
// and on each ClickHouse server, over the same sources as the other groupings (the whole store, the days
// an import touches, or its visitor-days tagged before and now), so every writer keeps them.
//
// Every atom is a sum over visitor-days (a visitor-day's first and last event depend on its own events
// only; a session lies in one visitor-day), so an import's delta moves them exactly as it moves the
// other rows (docs/decisions/rollups.md). Sums are taken per traffic class and spread over the traffic
// filters holding it; a visitor-day's first and last event per filter are the least and greatest of
// its classes' in that filter, and across tenants for the all-tenants scope.
import { DAY_MS } from '../../../domain/report-range.js';
import { ATOMS, type Atom } from '../../../domain/query/metrics.js';
import type { Dialect, SqlParam } from '../dialect.js';
import { QUARTER_COLUMNS, QUARTER_GROUPING, QUARTER_MS, QUARTERS_PER_DAY, ROLLUP_COLUMNS } from '../rollup-tables.js';
import type { CompiledBuild, RollupSources } from './rollup-build.js';

/**
 * The quarter-hour rollup rows of exactly the events and sessions of `src`; `trafficMap` is the
 * (traffic, class) table every build joins (compileRollupExpansions).
 */
export function compileQuarterRollupBuild(d: Dialect, src: RollupSources, trafficMap: string): CompiledBuild {
  const params: SqlParam[] = [];
  const id = (c: string) => d.quoteIdent(c);
  const v = (x: string | boolean) => d.value(x, params);
  const day = (ts: string) => `${d.intDiv(ts, String(DAY_MS))} * ${DAY_MS}`;
  const quarter = (ts: string) => `(${d.intDiv(ts, String(QUARTER_MS))} - ${d.intDiv(ts, String(DAY_MS))} * ${QUARTERS_PER_DAY})`;
  const map = (alias: string) => `${d.quoteIdent(trafficMap)} AS ${alias}`;
  // quarterKey's two digits
  const keyOf = (q: string) => `(CASE WHEN ${q} < 10 THEN ${v('0')} || ${d.intText(q)} ELSE ${d.intText(q)} END)`;

  // Parts yield q_site, q_day, q_all, q_tenant, q_traffic, q_dim, q_quarter, then one column per atom.
  const parts: string[] = [];
  const part = (heads: string, atoms: Partial<Record<Atom, string>>, from: string, group: string) =>
    parts.push(`SELECT ${heads}, ${ATOMS.map((a) => `${d.toInt64(atoms[a] ?? '0')} AS q_${a}`).join(', ')} FROM ${from} GROUP BY ${group}`);
  /** per-class sums `inner` (x_site, x_day, x_tenant, x_class, x_quarter, sums) in both tenant scopes */
  const spread = (inner: string, sums: Partial<Record<Atom, string>>) => {
    const perFilter =
      `SELECT x.x_site AS y_site, x.x_day AS y_day, x.x_tenant AS y_tenant, m.traffic AS y_traffic, x.x_quarter AS y_quarter, ` +
      `${Object.keys(sums)
        .map((a) => `sum(x.${a}) AS y_${a}`)
        .join(', ')} FROM (${inner}) AS x INNER JOIN ${map('m')} ON m.class = x.x_class ` +
      'GROUP BY x.x_site, x.x_day, x.x_tenant, m.traffic, x.x_quarter';
    const summed = Object.fromEntries(Object.keys(sums).map((a) => [a, `sum(y.y_${a})`]));
    const quarterText = keyOf('y.y_quarter');
    part(
      `y.y_site AS q_site, y.y_day AS q_day, ${v(false)} AS q_all, ${d.nullable('y.y_tenant')} AS q_tenant, y.y_traffic AS q_traffic, ${v(QUARTER_GROUPING)} AS q_dim, ${quarterText} AS q_quarter`,
      summed,
      `(${perFilter}) AS y`,
      'y.y_site, y.y_day, y.y_tenant, y.y_traffic, y.y_quarter',
    );
    part(
      `y.y_site AS q_site, y.y_day AS q_day, ${v(true)} AS q_all, ${d.nullString()} AS q_tenant, y.y_traffic AS q_traffic, ${v(QUARTER_GROUPING)} AS q_dim, ${quarterText} AS q_quarter`,
      summed,
      `(${perFilter}) AS y`,
      'y.y_site, y.y_day, y.y_traffic, y.y_quarter',
    );
  };

  const e = (c: string) => `e.${id(c)}`;
  const isPageview = `${e('type')} = ${v('pageview')}`;
  spread(
    `SELECT ${e('site_id')} AS x_site, ${day(e('ts_ms'))} AS x_day, ${e('tenant_id')} AS x_tenant, ${e('traffic_class')} AS x_class, ` +
      `${quarter(e('ts_ms'))} AS x_quarter, count(*) AS events, sum(CASE WHEN ${isPageview} THEN 1 ELSE 0 END) AS pageviews ` +
      `FROM ${id(src.events)} AS e GROUP BY x_site, x_day, x_tenant, x_class, x_quarter`,
    { events: '', pageviews: '' },
  );
  const s = (c: string) => `s.${id(c)}`;
  const flag = (c: string) => `sum(CASE WHEN ${d.isTrue(s(c))} THEN 1 ELSE 0 END)`;
  spread(
    `SELECT ${s('site_id')} AS x_site, ${day(s('start_ms'))} AS x_day, ${s('tenant_id')} AS x_tenant, ${s('traffic_class')} AS x_class, ` +
      `${quarter(s('start_ms'))} AS x_quarter, count(*) AS sessions, ${flag('is_bounce')} AS bounces, ${flag('is_engaged')} AS engaged, ` +
      `sum(${s('engagement_ms')}) AS session_eng_ms, sum(${s('pageviews')}) AS ${QUARTER_COLUMNS.sessionPageviews} ` +
      `FROM ${id(src.sessions)} AS s GROUP BY x_site, x_day, x_tenant, x_class, x_quarter`,
    { sessions: '', bounces: '', engaged: '', session_eng_ms: '', [QUARTER_COLUMNS.sessionPageviews]: '' },
  );

  // Visitor-days: first and last event per class, then per traffic filter (least and greatest of its
  // classes'), then across tenants; each counted in the quarter of its first event and of its last.
  const perClass =
    `SELECT ${e('site_id')} AS w_site, ${day(e('ts_ms'))} AS w_day, ${e('tenant_id')} AS w_tenant, ${e('traffic_class')} AS w_class, ` +
    `${e('visitor_key')} AS w_key, min(${e('ts_ms')}) AS w_first, max(${e('ts_ms')}) AS w_last ` +
    `FROM ${id(src.events)} AS e GROUP BY w_site, w_day, w_tenant, w_class, w_key`;
  const perFilter =
    `SELECT w.w_site AS f_site, w.w_day AS f_day, w.w_tenant AS f_tenant, m.traffic AS f_traffic, w.w_key AS f_key, ` +
    `min(w.w_first) AS f_first, max(w.w_last) AS f_last FROM (${perClass}) AS w INNER JOIN ${map('m')} ON m.class = w.w_class ` +
    'GROUP BY w.w_site, w.w_day, w.w_tenant, m.traffic, w.w_key';
  const acrossTenants =
    `SELECT f.f_site AS f_site, f.f_day AS f_day, ${d.nullString()} AS f_tenant, f.f_traffic AS f_traffic, f.f_key AS f_key, ` +
    `min(f.f_first) AS f_first, max(f.f_last) AS f_last FROM (${perFilter}) AS f GROUP BY f.f_site, f.f_day, f.f_traffic, f.f_key`;
  for (const [all, rows] of [
    [false, perFilter],
    [true, acrossTenants],
  ] as const)
    for (const [atom, at] of [
      ['visitors', 'f_first'],
      [QUARTER_COLUMNS.lastVisitors, 'f_last'],
    ] as const)
      part(
        `r.f_site AS q_site, r.f_day AS q_day, ${v(all)} AS q_all, ${d.nullable('r.f_tenant')} AS q_tenant, r.f_traffic AS q_traffic, ` +
          `${v(QUARTER_GROUPING)} AS q_dim, ${keyOf(quarter(`r.${at}`))} AS q_quarter`,
        { [atom]: 'count(*)' },
        `(${rows}) AS r`,
        `r.f_site, r.f_day, r.f_tenant, r.f_traffic, ${quarter(`r.${at}`)}`,
      );

  const heads = ['u.q_site', 'u.q_day', 'u.q_all', 'u.q_tenant', 'u.q_traffic', 'u.q_dim', 'u.q_quarter', d.nullString(), d.nullString()];
  const cols = [...heads, ...ATOMS.map((a) => d.toInt64(`sum(u.q_${a})`))];
  const names = ROLLUP_COLUMNS.map(id);
  if (names.length !== cols.length) throw new Error('quarter rollup columns out of step with ROLLUP_COLUMNS');
  // ROLLUP_COLUMNS: site_id, day_ms, all_tenants, tenant_id, traffic, dim, dim_key, filter_dim, filter_key, atoms
  cols[7] = v('');
  return {
    sql: `SELECT ${cols.map((c, i) => `${c} AS ${names[i]}`).join(', ')} FROM (${parts.join(' UNION ALL ')}) AS u GROUP BY ${heads.slice(0, 7).join(', ')}`,
    params,
  };
}
