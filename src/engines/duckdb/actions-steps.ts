// The DuckDB build of the action rows (sql/write/actions-build.ts defines them; compileActionsBuild is
// the one-statement-per-grouping form ClickHouse runs). That form aggregates the input per session
// again for each of the 32 groupings: 'simple' and 'all' of a grouping re-read the same rows, and the
// session's channel, device, country and browser (one value per session) make five per-session
// passes of what is one. Here the per-session work is done once per level, each level from the
// finer one below it (action -> family -> any / meaningful), with both eligibility variants carried
// as columns, and every grouping then only counts those rows (figures in docs/decisions/rollups.md).
// Still one statement per step: a statement's memory grows with its operators (the
// memory limit; see duckdb-actions-rollup.ts).
import { MEANINGFUL_FAMILIES, SIMPLE_ACTIONS, TRAFFIC_FILTERS } from '../../domain/events.js';
import { duckdbDialect as d, type SqlParam } from '../sql/dialect.js';
import { actionRowsSelect, type ActionRowsRefs } from '../sql/write/actions-build.js';
import { ACTION_DIMS, ACTION_GROUPINGS, identityOf, type ActionGrouping, type ActionLevel } from '../sql/rollup-tables.js';
import { classBit, type CompiledBuild } from '../sql/write/rollup-build.js';

const CLASSES = [...new Set(Object.values(TRAFFIC_FILTERS).flat())];
/** The dimensions the session fixes (k_<dim> of the input); `page` is the event's. */
const SESSION_DIMS = ACTION_DIMS.filter((x) => x !== 'page');
const HEAD = ['g_site', 'g_day', 'g_tenant'];
const ELIGIBLE = ['all', 'simple'] as const;

/** A per-session table: `level`'s keys, with the page (`paged`) or the session's dimensions. */
const tableOf = (out: string, level: ActionLevel, paged: boolean) => `${out}_${paged ? 'p' : 's'}_${level}`;

const keysOf = (level: ActionLevel) => identityOf(level).map((c) => `k_${c}`);

/** One per-session table: what it reads, its SELECT, and the groupings counted from it. */
export interface ActionsStep {
  table: string;
  reads: string;
  build: CompiledBuild;
  groupings: ActionGrouping[];
}

/**
 * The per-session tables, in order (each reads the input or an earlier one): per (site, day, tenant,
 * level keys, [page,] session) the class mask `m_<eligible>` and the occurrences per class
 * `c_<class>_<eligible>` of all actions and of the simple ones (mask 0: none), and without page the
 * session's dimensions (one value per session: sessions are joined on their unique id). A session's
 * row of a coarser level is the OR and the sums of its finer rows. Ordered so that a table's last
 * reader comes soon after it (the caller drops it then): at most three are held at once.
 */
export function actionsSteps(input: string, out: string): ActionsStep[] {
  const int = (x: string) => `CAST(${x} AS BIGINT)`;
  const step = (
    level: ActionLevel,
    paged: boolean,
    reads: string,
    columns: (params: SqlParam[]) => string[],
    where?: (params: SqlParam[]) => string,
  ): ActionsStep => {
    const params: SqlParam[] = [];
    const keys = [...HEAD, ...keysOf(level), ...(paged ? ['k_page'] : []), 'g_session'].join(', ');
    const cols = columns(params).join(', ');
    const carried = paged ? '' : SESSION_DIMS.map((x) => `, any_value(k_${x}) AS k_${x}`).join('');
    const filter = where ? ` WHERE ${where(params)}` : '';
    return {
      table: tableOf(out, level, paged),
      reads,
      build: { sql: `SELECT ${keys}, ${cols}${carried} FROM ${reads}${filter} GROUP BY ${keys}`, params },
      groupings: ACTION_GROUPINGS.filter((g) => g.grp === level && (g.dim === 'page') === paged),
    };
  };
  // from the input, per action identity: simple or not by its action name
  const finest = (params: SqlParam[]) => {
    const simple = `k_action_name IN (${SIMPLE_ACTIONS.map((a) => d.value(a, params)).join(', ')})`;
    const bit = classBit(d, 'g_class', params);
    const isClass = CLASSES.map((c) => `g_class = ${d.value(c, params)}`);
    return [
      `bit_or(${bit}) AS m_all`,
      ...CLASSES.map((c, i) => `${int(`sum(CASE WHEN ${isClass[i]} THEN n ELSE 0 END)`)} AS c_${c}_all`),
      `bit_or(CASE WHEN ${simple} THEN ${bit} ELSE 0 END) AS m_simple`,
      ...CLASSES.map((c, i) => `${int(`sum(CASE WHEN ${simple} AND ${isClass[i]} THEN n ELSE 0 END)`)} AS c_${c}_simple`),
    ];
  };
  const merged = () =>
    ELIGIBLE.flatMap((e) => [`bit_or(m_${e}) AS m_${e}`, ...CLASSES.map((c) => `${int(`sum(c_${c}_${e})`)} AS c_${c}_${e}`)]);
  const meaningful = (params: SqlParam[]) => `k_family IN (${MEANINGFUL_FAMILIES.map((f) => d.value(f, params)).join(', ')})`;
  const from = (level: ActionLevel, paged: boolean) => tableOf(out, level, paged);
  // the meaningful groupings have no page dimension
  return [
    step('action', false, input, finest),
    step('action', true, input, finest),
    step('family', false, from('action', false), merged),
    step('family', true, from('action', true), merged),
    step('any', false, from('family', false), merged),
    step('meaningful', false, from('family', false), merged, meaningful),
    step('any', true, from('family', true), merged),
  ];
}

/**
 * The rows (ACTIONS_COLUMNS order) of one grouping, from its level's per-session table: its
 * sessions counted once in every traffic filter sharing a class with their mask. The sessions are
 * counted per (key, mask) first, then those few rows per key expanded to the traffic filters (not
 * every session's row: that aggregated three times as many rows on the wide keys).
 */
export function actionsGroupingSql(g: ActionGrouping, out: string, trafficMasks: string): CompiledBuild {
  const params: SqlParam[] = [];
  const src = tableOf(out, g.grp, g.dim === 'page');
  const keys = [...HEAD, ...keysOf(g.grp), ...(g.dim ? [`k_${g.dim}`] : [])];
  const perMask =
    `SELECT ${keys.join(', ')}, m_${g.eligible} AS mask, count(*) AS n, ${CLASSES.map((c) => `sum(c_${c}_${g.eligible}) AS c_${c}`).join(', ')} ` +
    `FROM ${src} WHERE m_${g.eligible} <> 0 GROUP BY ${keys.join(', ')}, m_${g.eligible}`;
  return perMaskCounted(g, keys, perMask, trafficMasks, params);
}

/**
 * The rows of `perMask` (`keys`, mask, n, c_<class>: sessions and occurrences per key and class
 * mask) counted in every traffic filter sharing a class with the mask; `together`: rows of several
 * groupings, told apart by the columns it names (actionsGroupingsSql).
 */
function perMaskCounted(
  g: ActionGrouping,
  keys: readonly string[],
  perMask: string,
  trafficMasks: string,
  params: SqlParam[],
  together?: { labels: NonNullable<ActionRowsRefs['labels']>; by: readonly string[] },
): CompiledBuild {
  const select = actionRowsSelect(d, g, params, {
    site: 'a.g_site',
    day: 'a.g_day',
    tenant: 'a.g_tenant',
    traffic: 'x.traffic',
    key: (c) => (keys.includes(`k_${c}`) ? `a.k_${c}` : null),
    sessions: 'sum(a.n)',
    occurrences: (c) => `a.c_${c}`,
    ...(together ? { labels: together.labels } : {}),
  });
  // mask 0 (no simple action, or no known class) has no traffic filter (the masks table starts at 1)
  const by = [...keys.slice(0, 3).map((k) => `a.${k}`), 'x.traffic', ...keys.slice(3).map((k) => `a.${k}`), ...(together?.by ?? [])];
  return {
    sql: `SELECT ${select} FROM (${perMask}) AS a INNER JOIN ${d.quoteIdent(trafficMasks)} AS x ON x.mask = a.mask GROUP BY ${by.join(', ')}`,
    params,
  };
}

/**
 * The rows of every grouping counted from one per-session table (`groupings`: a step's, at least
 * one) in ONE statement: each row is taken once per grouping (a small table of grouping numbers),
 * with that grouping's mask, occurrences and dimension key, and counted as actionsGroupingSql counts
 * it, grouped by the grouping's number too. The same rows as actionsGroupingSql of each, with one
 * grouping's operators: a small build pays mostly for planning and starting operators (rollups.ts).
 */
export function actionsGroupingsSql(groupings: readonly ActionGrouping[], out: string, trafficMasks: string): CompiledBuild {
  const params: SqlParam[] = [];
  const g0 = groupings[0];
  const src = tableOf(out, g0.grp, g0.dim === 'page');
  const keys = [...HEAD, ...keysOf(g0.grp)];
  const each = (value: (g: ActionGrouping) => string, of = 'm.gi') =>
    `CASE ${of} ${groupings.map((g, i) => `WHEN ${i} THEN ${value(g)}`).join(' ')} END`;
  const mask = each((g) => `m_${g.eligible}`);
  const perMask =
    `SELECT ${keys.join(', ')}, m.gi AS gi, ${each((g) => (g.dim ? `k_${g.dim}` : 'CAST(NULL AS VARCHAR)'))} AS k_dim, ${mask} AS mask, count(*) AS n, ` +
    `${CLASSES.map((c) => `sum(${each((g) => `c_${c}_${g.eligible}`)}) AS c_${c}`).join(', ')} ` +
    `FROM ${src} CROSS JOIN (VALUES ${groupings.map((_, i) => `(${i})`).join(', ')}) AS m(gi) WHERE ${mask} <> 0 ` +
    `GROUP BY ${keys.join(', ')}, gi, k_dim, mask`;
  const labels = {
    eligible: each((g) => d.value(g.eligible, params), 'a.gi'),
    dim: each((g) => d.value(g.dim, params), 'a.gi'),
    dimKey: 'a.k_dim',
  };
  return perMaskCounted(g0, keys, perMask, trafficMasks, params, { labels, by: ['a.gi', 'a.k_dim'] });
}
