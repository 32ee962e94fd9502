// The actions rollup (docs/decisions/rollups.md "Actions get their own rollup"): per (site, UTC
// day, tenant, traffic filter, grouping, key) the distinct sessions and the occurrences of action
// events, so the actions report reads days, not events. Exact because a session never crosses UTC
// midnight and belongs to one (site, tenant, visitor key): distinct sessions per (day, tenant, key)
// sum over days and tenants (and over visitor-days, so an import's delta is exact too). Traffic is
// NOT summed over classes (a session's events may differ in class): a session counts once in every
// traffic filter sharing a class with its matching events (the class mask of rollup-build.ts).
// The table's shape and groupings are in sql/rollup-tables.ts.
// read/compile-actions-rollup.ts reads them, read/actions-plan.ts decides when they answer exactly.
import { MEANINGFUL_FAMILIES, SIMPLE_ACTIONS, TRAFFIC_FILTERS } from '../../../domain/events.js';
import { DAY_MS } from '../../../domain/report-range.js';
import type { Dialect, SqlParam } from '../dialect.js';
import { classBit, type CompiledBuild, type RollupSources } from './rollup-build.js';
import { ACTION_IDENTITY, ACTIONS_COLUMNS, identityOf, type ActionDim, type ActionGrouping } from '../rollup-tables.js';

/** Session columns of the dimensions read from the session (the session's, not the event's, attribute). */
const SESSION_DIM_COLUMN: Record<Exclude<ActionDim, 'page'>, string> = {
  channel: 'channel',
  device: 'device_type',
  country: 'country',
  browser: 'browser_family',
};

/**
 * The input table to materialize: action events summed per (site, day, tenant, class, session,
 * identity, page, session dimensions), columns g_site, g_day, g_tenant, g_class, g_session, k_<key>
 * (every key Nullable), n. Sessions are LEFT JOINed on their id, as the event-scan read does.
 */
export function compileActionsInput(d: Dialect, src: RollupSources): CompiledBuild {
  const params: SqlParam[] = [];
  const q = (c: string) => d.quoteIdent(c);
  const e = (c: string) => `e.${q(c)}`;
  const heads: [string, string][] = [
    [e('site_id'), 'g_site'],
    [d.toInt64(`${d.intDiv(e('ts_ms'), String(DAY_MS))} * ${DAY_MS}`), 'g_day'],
    [d.nullable(e('tenant_id')), 'g_tenant'],
    [e('traffic_class'), 'g_class'],
    [e('session_id'), 'g_session'],
    ...ACTION_IDENTITY.map((c): [string, string] => [d.nullable(e(c)), `k_${c}`]),
    [d.nullable(e('path_canon')), 'k_page'],
    ...Object.keys(SESSION_DIM_COLUMN).map((k): [string, string] => [d.nullable(`s.j_${k}`), `k_${k}`]),
  ];
  const sessions = `(SELECT ${q('session_id')} AS j_session, ${Object.entries(SESSION_DIM_COLUMN)
    .map(([k, c]) => `${q(c)} AS j_${k}`)
    .join(', ')} FROM ${q(src.sessions)}) AS s`;
  const sql =
    `SELECT ${heads.map(([x, name]) => `${x} AS ${name}`).join(', ')}, ${d.toInt64('count(*)')} AS n ` +
    `FROM ${q(src.events)} AS e LEFT JOIN ${sessions} ON s.j_session = ${e('session_id')} ` +
    `WHERE ${e('type')} = ${d.value('action', params)} GROUP BY ${heads.map(([x]) => x).join(', ')}`;
  return { sql, params };
}

/**
 * The rows (ACTIONS_COLUMNS order) of these groupings from the materialized input table, one
 * UNION ALL part a grouping. `trafficMasks` is rollup-build.ts's (mask, traffic) expansion table.
 */
export function compileActionsBuild(d: Dialect, groupings: readonly ActionGrouping[], input: string, trafficMasks: string): CompiledBuild {
  const params: SqlParam[] = [];
  const v = (x: string) => d.value(x, params);
  const i = (c: string) => `i.${c}`;
  const inList = (expr: string, values: readonly string[]) => `${expr} IN (${values.map(v).join(', ')})`;
  // renamed: no output column may share a name with a column the same SELECT reads (ClickHouse)
  const masks = `(SELECT mask AS x_mask, traffic AS x_traffic FROM ${d.quoteIdent(trafficMasks)}) AS x`;
  const classes = [...new Set(Object.values(TRAFFIC_FILTERS).flat())];
  const parts = groupings.map((g) => {
    const keys = [...identityOf(g.grp).map((c) => `k_${c}`), ...(g.dim ? [`k_${g.dim}`] : [])];
    const where: string[] = [];
    if (g.eligible === 'simple') where.push(inList(i('k_action_name'), SIMPLE_ACTIONS));
    if (g.grp === 'meaningful') where.push(inList(i('k_family'), MEANINGFUL_FAMILIES));
    // per session and key: the classes of its events (mask) and its occurrences per class
    const perSession =
      `SELECT ${['g_site', 'g_day', 'g_tenant', ...keys, 'g_session'].map((c) => `${i(c)} AS h_${c.slice(2)}`).join(', ')}, ` +
      `${d.bitOr(classBit(d, i('g_class'), params))} AS h_mask, ` +
      `${classes.map((c) => `${d.toInt64(`sum(CASE WHEN ${i('g_class')} = ${v(c)} THEN ${i('n')} ELSE 0 END)`)} AS c_${c}`).join(', ')} ` +
      `FROM ${d.quoteIdent(input)} AS i${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ` +
      `GROUP BY ${['g_site', 'g_day', 'g_tenant', ...keys, 'g_session'].map(i).join(', ')}`;
    const select = actionRowsSelect(d, g, params, {
      site: 'a.h_site',
      day: 'a.h_day',
      tenant: 'a.h_tenant',
      traffic: 'x.x_traffic',
      key: (c) => (keys.includes(`k_${c}`) ? `a.h_${c}` : null),
      sessions: 'count(*)',
      occurrences: (c) => `a.c_${c}`,
    });
    return (
      `SELECT ${select} ` +
      `FROM (${perSession}) AS a INNER JOIN ${masks} ON x.x_mask = a.h_mask ` +
      `GROUP BY ${['a.h_site', 'a.h_day', 'a.h_tenant', 'x.x_traffic', ...keys.map((k) => `a.h_${k.slice(2)}`)].join(', ')}`
    );
  });
  return { sql: parts.join(' UNION ALL '), params };
}

/** Where a grouping's rows read their parts: `key(c)` the identity or dimension column c, if kept. */
export interface ActionRowsRefs {
  site: string;
  day: string;
  tenant: string;
  traffic: string;
  key: (c: string) => string | null;
  /** the aggregate of the distinct sessions */
  sessions: string;
  /** a class's occurrences of one row (summed over the traffic filter's classes) */
  occurrences: (cls: string) => string;
  /** rows of several groupings of one level: their eligible, dim and dim_key columns (SQL), not `g`'s */
  labels?: { eligible: string; dim: string; dimKey: string };
}

/** The SELECT list of a grouping's rows, in ACTIONS_COLUMNS order and names. */
export function actionRowsSelect(d: Dialect, g: ActionGrouping, params: SqlParam[], r: ActionRowsRefs): string {
  const v = (x: string) => d.value(x, params);
  const occurrences = `CASE ${Object.entries(TRAFFIC_FILTERS)
    .map(([name, members]) => `WHEN ${r.traffic} = ${v(name)} THEN ${members.map(r.occurrences).join(' + ')}`)
    .join(' ')} ELSE 0 END`;
  const cols = [
    r.site,
    r.day,
    r.tenant,
    r.traffic,
    v(g.grp),
    r.labels?.eligible ?? v(g.eligible),
    r.labels?.dim ?? v(g.dim),
    ...ACTION_IDENTITY.map((c) => r.key(c) ?? d.nullString()),
    r.labels?.dimKey ?? ((g.dim && r.key(g.dim)) || d.nullString()),
    d.toInt64(r.sessions),
    d.toInt64(`sum(${occurrences})`),
  ];
  return cols.map((c, n) => `${c} AS ${d.quoteIdent(ACTIONS_COLUMNS[n])}`).join(', ');
}
