// The SQL that computes daily rollup rows from events and sessions, through the shared Dialect hooks.
// Each atom is counted by the rule the raw compiler (read/compile-query.ts) applies to a one-day window
// with the same filters; the property test (test/engines/rollups.test.ts) holds the two to equal
// answers.
//
// Why it is shaped this way (docs/decisions/rollups.md): a build reads the events ONCE, into two
// narrow intermediate tables the caller materializes, and every grouping then aggregates those:
// - page events: events summed per (site, day, tenant, class, path, visitor, session);
// - session events: the same summed per (session, class), with the session's dimension columns.
// Sums are aggregated per traffic CLASS first and only then spread over the traffic filters and the
// two tenant scopes (a handful of rows per key); visitors, a distinct count that cannot be summed
// over classes or tenants, are counted from one bit mask of classes per visitor and key. The same
// statements build the rows of a whole store, of the days an import touches, or of a subset of
// visitor-days (an import's delta: old rows subtracted, new rows added; see duckdb/rollups.ts).
import { TRAFFIC_CLASSES, TRAFFIC_FILTERS } from '../../../domain/events.js';
import { DIMENSION_DEFS, type Dimension } from '../../../domain/query/dimensions.js';
import { ATOMS, type Atom } from '../../../domain/query/metrics.js';
import { DAY_MS } from '../../../domain/report-range.js';
import type { Dialect, SqlParam, SqlValue } from '../dialect.js';
import { ROLLUP_COLUMNS, type RollupGrouping } from '../rollup-tables.js';

/** Session columns the session-scoped dimensions read (DIMENSION_DEFS), carried by the session-events table. */
export const SESSION_DIMENSION_COLUMNS = [
  ...new Set(
    Object.values(DIMENSION_DEFS)
      .filter((d) => d.scope === 'session')
      .map((d) => d.column),
  ),
] as const;

export interface CompiledBuild {
  sql: string;
  params: SqlParam[];
}

/**
 * Where a build reads: tables in the events and sessions layouts holding exactly the rows to count
 * (the whole store, or temp tables of the days or visitor-days a commit touches).
 */
export interface RollupSources {
  events: string;
  sessions: string;
}

/** Names of the intermediate tables the caller materializes from compileRollupInputs(), in order. */
export interface RollupInputNames {
  pageEvents: string;
  sessionRows: string;
  sessionEvents: string;
}

/** The two small tables a build expands rows with (compileRollupExpansions). */
export interface RollupExpansionNames {
  /** (traffic, class): a class counts once in every traffic filter holding it */
  trafficMap: string;
  /** (mask, traffic): every non-empty mask of CLASS_BITS with each filter sharing a class with it */
  trafficMasks: string;
}

/** One bit per traffic class, for visitor masks. */
export const CLASS_BITS: Readonly<Record<(typeof TRAFFIC_CLASSES)[number], number>> = Object.fromEntries(
  TRAFFIC_CLASSES.map((c, i) => [c, 1 << i]),
) as Record<(typeof TRAFFIC_CLASSES)[number], number>;

const q = (d: Dialect, name: string) => d.quoteIdent(name);

/** The CLASS_BITS bit of a traffic-class column (0 for an unknown class). */
export function classBit(d: Dialect, col: string, params: SqlParam[]): string {
  return `(CASE ${TRAFFIC_CLASSES.map((c) => `WHEN ${col} = ${d.value(c, params)} THEN ${CLASS_BITS[c]}`).join(' ')} ELSE 0 END)`;
}

/**
 * The intermediate tables, as SELECTs to materialize in this order (each reads the ones before):
 * - `pageEvents`: events summed per (site, day, tenant, class, path, visitor, session);
 * - `sessionRows`: the same per (session, class), with the session's dimension columns and its
 *   session atoms on the row of the session's own class (zero on the others: a session counts once);
 * - `sessionEvents`: sessionRows plus `simple` = 1 when the row is the only one of its visitor-day
 *   (one session, one class): that visitor then counts like a sum, without a distinct count.
 * All carry `day` (the stored DATE) and `day_ms`.
 */
export function compileRollupInputs(
  d: Dialect,
  src: RollupSources,
  names: RollupInputNames,
): { pageEvents: CompiledBuild; sessionRows: CompiledBuild; sessionEvents: CompiledBuild } {
  const id = (c: string) => q(d, c);
  const p1: SqlParam[] = [];
  const e = (c: string) => `e.${id(c)}`;
  const pv = `${e('type')} = ${d.value('pageview', p1)}`;
  const keyNames = ['site_id', 'day', 'tenant_id', 'traffic_class', 'path_canon', 'visitor_key', 'session_id'];
  const pageEvents =
    `SELECT ${keyNames.map((k) => `${e(k)} AS ${id(k)}`).join(', ')}, ` +
    `${d.toInt64(`${d.intDiv(`min(${e('ts_ms')})`, String(DAY_MS))} * ${DAY_MS}`)} AS ${id('day_ms')}, ` +
    `${d.toInt64(`sum(CASE WHEN ${pv} THEN 1 ELSE 0 END)`)} AS ${id('pageviews')}, ` +
    `${d.toInt64('count(*)')} AS ${id('events')}, ` +
    `${d.toInt64(`sum(CASE WHEN ${pv} THEN ${e('engagement_time_ms')} ELSE 0 END)`)} AS ${id('pv_eng_ms')} ` +
    `FROM ${id(src.events)} AS e GROUP BY ${keyNames.map(e).join(', ')}`;

  const x = (c: string) => `x.${id(c)}`;
  const s = (c: string) => `s.${id(c)}`;
  const perSession =
    `SELECT ${id('site_id')}, ${id('session_id')}, ${id('traffic_class')}, min(${id('day')}) AS ${id('day')}, min(${id('day_ms')}) AS ${id('day_ms')}, ` +
    `sum(${id('pageviews')}) AS ${id('pageviews')}, sum(${id('events')}) AS ${id('events')}, sum(${id('pv_eng_ms')}) AS ${id('pv_eng_ms')} ` +
    `FROM ${id(names.pageEvents)} GROUP BY ${id('site_id')}, ${id('session_id')}, ${id('traffic_class')}`;
  const own = `${x('traffic_class')} = ${s('traffic_class')}`;
  const onOwn = (expr: string) => d.toInt64(`CASE WHEN ${own} THEN ${expr} ELSE 0 END`);
  const flag = (cond: string) => `CASE WHEN ${cond} THEN 1 ELSE 0 END`;
  const sessionRows =
    `SELECT ${x('site_id')} AS ${id('site_id')}, ${x('day')} AS ${id('day')}, ${x('day_ms')} AS ${id('day_ms')}, ${s('tenant_id')} AS ${id('tenant_id')}, ` +
    `${x('traffic_class')} AS ${id('traffic_class')}, ${s('visitor_key')} AS ${id('visitor_key')}, ${x('session_id')} AS ${id('session_id')}, ` +
    `${d.toInt64(x('pageviews'))} AS ${id('pageviews')}, ${d.toInt64(x('events'))} AS ${id('events')}, ${d.toInt64(x('pv_eng_ms'))} AS ${id('pv_eng_ms')}, ` +
    `${onOwn('1')} AS ${id('sessions')}, ${onOwn(flag(d.isTrue(s('is_bounce'))))} AS ${id('bounces')}, ` +
    `${onOwn(flag(d.isTrue(s('is_engaged'))))} AS ${id('engaged')}, ${onOwn(s('engagement_ms'))} AS ${id('session_eng_ms')}, ` +
    `${SESSION_DIMENSION_COLUMNS.map(s).join(', ')} ` +
    `FROM (${perSession}) AS x INNER JOIN ${id(src.sessions)} AS s ON ${s('site_id')} = ${x('site_id')} AND ${s('day')} = ${x('day')} AND ${s('session_id')} = ${x('session_id')}`;

  const r = (c: string) => `r.${id(c)}`;
  const n = (c: string) => `n.${id(c)}`;
  const perVisitor = `SELECT ${id('site_id')}, ${id('day')}, ${id('visitor_key')}, count(*) AS ${id('n')} FROM ${id(names.sessionRows)} GROUP BY ${id('site_id')}, ${id('day')}, ${id('visitor_key')}`;
  const sessionEvents =
    `SELECT r.*, ${d.toInt64(`CASE WHEN ${n('n')} = 1 THEN 1 ELSE 0 END`)} AS ${id('simple')} FROM ${id(names.sessionRows)} AS r ` +
    `INNER JOIN (${perVisitor}) AS n ON ${n('site_id')} = ${r('site_id')} AND ${n('day')} = ${r('day')} AND ${n('visitor_key')} = ${r('visitor_key')}`;
  return {
    pageEvents: { sql: pageEvents, params: p1 },
    sessionRows: { sql: sessionRows, params: [] },
    sessionEvents: { sql: sessionEvents, params: [] },
  };
}

/** The expansion tables' rows (the caller stores them, e.g. as temp tables). */
export function compileRollupExpansions(d: Dialect): { trafficMap: CompiledBuild; trafficMasks: CompiledBuild } {
  const tp: SqlParam[] = [];
  const rows = Object.entries(TRAFFIC_FILTERS).flatMap(([name, classes]) =>
    classes.map((c) => `SELECT ${d.value(name, tp)} AS traffic, ${d.value(c, tp)} AS class`),
  );
  const mp: SqlParam[] = [];
  const all = TRAFFIC_CLASSES.reduce((m, c) => m | CLASS_BITS[c], 0);
  const masks: string[] = [];
  for (let mask = 1; mask <= all; mask++) {
    for (const [name, classes] of Object.entries(TRAFFIC_FILTERS)) {
      if (classes.some((c) => (mask & CLASS_BITS[c]) !== 0)) masks.push(`SELECT ${mask} AS mask, ${d.value(name, mp)} AS traffic`);
    }
  }
  return { trafficMap: { sql: rows.join(' UNION ALL '), params: tp }, trafficMasks: { sql: masks.join(' UNION ALL '), params: mp } };
}

/**
 * The name of an atom's partial sum inside a part: never a column name of the part's input, which
 * ClickHouse would resolve to the alias (an aggregate) wherever the part reads that column again.
 */
const sumOf = (atom: Atom) => `s_${atom}`;

/** The atoms a session grouping sums (visitors: the visitor-days of one row, `simple`). */
const SUMMED_SESSION_ATOMS: readonly Atom[] = [
  'pageviews',
  'events',
  'pv_eng_ms',
  'sessions',
  'bounces',
  'engaged',
  'session_eng_ms',
  'visitors',
  'entries',
  'exits',
];

/** The sums of SUMMED_SESSION_ATOMS over session-events rows `x` (`col` names a column of them). */
function sessionSums(col: (c: string) => string): string {
  const summed: Atom[] = ['pageviews', 'events', 'pv_eng_ms', 'sessions', 'bounces', 'engaged', 'session_eng_ms'];
  return (
    `${summed.map((a) => `sum(${col(a)}) AS ${sumOf(a)}`).join(', ')}, sum(${col('simple')}) AS ${sumOf('visitors')}, ` +
    `sum(CASE WHEN ${col('entry_page')} IS NOT NULL THEN ${col('sessions')} ELSE 0 END) AS ${sumOf('entries')}, ` +
    `sum(CASE WHEN ${col('exit_page')} IS NOT NULL THEN ${col('sessions')} ELSE 0 END) AS ${sumOf('exits')}`
  );
}

/** Whether a grouping is session-scoped (every grouping but the page's). */
export const isSessionGrouping = (g: RollupGrouping) => g.dim !== 'page' && g.filterDim !== 'page';
const SESSION_GROUPINGS = (groupings: readonly RollupGrouping[]) => groupings.filter(isSessionGrouping);

/** The grouping's id among the sets of compileSessionSets: GROUPING_ID's bits, 1 = a column not grouped. */
function sessionSetId(g: RollupGrouping): number {
  const grouped = new Set([g.dim, g.filterDim].filter((d): d is Dimension => d !== '').map((d) => DIMENSION_DEFS[d].column));
  return SESSION_DIMENSION_COLUMNS.reduce((id, c, i) => (grouped.has(c) ? id : id | (1 << (SESSION_DIMENSION_COLUMNS.length - 1 - i))), 0);
}

/** Columns of the rows every part yields before the final grouping. */
const HEADS = ['g_site', 'g_day', 'g_all', 'g_tenant', 'g_traffic', 'g_dk', 'g_fk'] as const;

type BuildTables = RollupInputNames &
  RollupExpansionNames & {
    /** compileSessionSets' tables, when the dialect has grouping sets and the caller built them */
    sessionSets?: { sums: string; visitors: string };
  };

class BuildCompiler {
  constructor(
    readonly d: Dialect,
    readonly t: BuildTables,
    readonly params: SqlParam[] = [],
    /** head columns the parts carry besides HEADS (and group by) */
    readonly carried: readonly string[] = [],
  ) {}

  v(x: SqlValue): string {
    return this.d.value(x, this.params);
  }
  col(alias: string, name: string): string {
    return `${alias}.${q(this.d, name)}`;
  }
  table(name: string, alias: string): string {
    return `${q(this.d, name)} AS ${alias}`;
  }

  /**
   * One tenant scope of rows of `from` (alias `a`) joined to an expansion table (alias `x`, whose
   * `traffic` names the filter): the output heads, the atom columns and the grouping.
   */
  scoped(from: string, join: string, all: boolean, atoms: Partial<Record<Atom, string>>): string {
    const heads = [
      'a.g_site AS g_site',
      'a.g_day AS g_day',
      `${this.v(all)} AS g_all`,
      all ? `${this.d.nullString()} AS g_tenant` : 'a.g_tenant AS g_tenant',
      'x.traffic AS g_traffic',
      'a.g_dk AS g_dk',
      'a.g_fk AS g_fk',
      ...this.carried.map((h) => `a.${h} AS ${h}`),
    ];
    const group = [
      'a.g_site',
      'a.g_day',
      ...(all ? [] : ['a.g_tenant']),
      'x.traffic',
      'a.g_dk',
      'a.g_fk',
      ...this.carried.map((h) => `a.${h}`),
    ];
    const cols = ATOMS.map((atom) => `${this.d.toInt64(atoms[atom] ?? '0')} AS ${atom}`);
    return `SELECT ${[...heads, ...cols].join(', ')} FROM (${from}) AS a ${join} GROUP BY ${group.join(', ')}`;
  }

  /**
   * Rows of `inner` (g_site, g_day, g_tenant, g_class, g_dk, g_fk and summed atoms) spread over the
   * traffic filters holding the class, in both tenant scopes.
   */
  spreadSums(inner: string, atoms: readonly Atom[]): string {
    const sums = Object.fromEntries(atoms.map((atom) => [atom, `sum(a.${sumOf(atom)})`]));
    const join = `INNER JOIN ${this.table(this.t.trafficMap, 'x')} ON x.class = a.g_class`;
    return `${this.scoped(inner, join, false, sums)} UNION ALL ${this.scoped(inner, join, true, sums)}`;
  }

  /**
   * Distinct visitors: `inner` yields g_site, g_day, g_tenant, g_dk, g_fk, g_visitor and g_mask (the
   * classes of that visitor's rows). A visitor counts once per key in every filter sharing a class
   * with it; for the all-tenants scope its masks over every tenant are merged first.
   */
  countVisitors(inner: string): string {
    const join = `INNER JOIN ${this.table(this.t.trafficMasks, 'x')} ON x.mask = a.g_mask`;
    const keys = ['w.g_site', 'w.g_day', 'w.g_dk', 'w.g_fk', ...this.carried.map((h) => `w.${h}`), 'w.g_visitor'].join(', ');
    const merged = `SELECT ${keys}, ${this.d.bitOr('w.g_mask')} AS g_mask FROM (${inner}) AS w GROUP BY ${keys}`;
    return `${this.scoped(inner, join, false, { visitors: 'count(*)' })} UNION ALL ${this.scoped(merged, join, true, { visitors: 'count(*)' })}`;
  }

  /** A grouping of session-scoped dimensions (or none: the totals), from the session events alone. */
  sessionGrouping(g: RollupGrouping): string[] {
    const x = (c: string) => this.col('x', c);
    const key = (dim: Dimension | '') => (dim === '' ? this.d.nullString() : x(DIMENSION_DEFS[dim].column));
    const dk = key(g.dim);
    const fk = key(g.filterDim);
    if (this.t.sessionSets) {
      // the sums and visitor masks of every session grouping, computed in one pass (compileSessionSets)
      const gid = sessionSetId(g);
      const heads = `x.g_site, x.g_day, x.g_tenant, ${dk} AS g_dk, ${fk} AS g_fk`;
      const sums = `SELECT ${heads}, x.g_class, ${SUMMED_SESSION_ATOMS.map(sumOf).join(', ')} FROM ${this.table(this.t.sessionSets.sums, 'x')} WHERE x.gid = ${gid}`;
      const visitors = `SELECT ${heads}, x.g_visitor, x.g_mask FROM ${this.table(this.t.sessionSets.visitors, 'x')} WHERE x.gid = ${gid}`;
      return [this.spreadSums(sums, SUMMED_SESSION_ATOMS), this.countVisitors(visitors)];
    }
    const se = this.table(this.t.sessionEvents, 'x');
    const sums =
      `SELECT ${x('site_id')} AS g_site, ${x('day_ms')} AS g_day, ${x('tenant_id')} AS g_tenant, ${x('traffic_class')} AS g_class, ${dk} AS g_dk, ${fk} AS g_fk, ` +
      `${sessionSums(x)} FROM ${se} GROUP BY ${[x('site_id'), x('day_ms'), x('tenant_id'), x('traffic_class'), dk, fk].join(', ')}`;
    const visitors =
      `SELECT ${x('site_id')} AS g_site, ${x('day_ms')} AS g_day, ${x('tenant_id')} AS g_tenant, ${dk} AS g_dk, ${fk} AS g_fk, ${x('visitor_key')} AS g_visitor, ` +
      `${this.d.bitOr(classBit(this.d, x('traffic_class'), this.params))} AS g_mask FROM ${se} WHERE ${x('simple')} = 0 ` +
      `GROUP BY ${[x('site_id'), x('day_ms'), x('tenant_id'), dk, fk, x('visitor_key')].join(', ')}`;
    return [this.spreadSums(sums, SUMMED_SESSION_ATOMS), this.countVisitors(visitors)];
  }

  /** The page grouping: a page is a key of the events themselves (docs/product.md §8.4). */
  pageGrouping(): string[] {
    const p = (c: string) => this.col('p', c);
    const x = (c: string) => this.col('x', c);
    const none = this.d.nullString();
    const pe = this.table(this.t.pageEvents, 'p');
    const eventSums =
      `SELECT ${p('site_id')} AS g_site, ${p('day_ms')} AS g_day, ${p('tenant_id')} AS g_tenant, ${p('traffic_class')} AS g_class, ${p('path_canon')} AS g_dk, ${none} AS g_fk, ` +
      `sum(${p('pageviews')}) AS ${sumOf('pageviews')}, sum(${p('events')}) AS ${sumOf('events')}, sum(${p('pv_eng_ms')}) AS ${sumOf('pv_eng_ms')} ` +
      `FROM ${pe} GROUP BY ${[p('site_id'), p('day_ms'), p('tenant_id'), p('traffic_class'), p('path_canon')].join(', ')}`;
    const visitors =
      `SELECT ${p('site_id')} AS g_site, ${p('day_ms')} AS g_day, ${p('tenant_id')} AS g_tenant, ${p('path_canon')} AS g_dk, ${none} AS g_fk, ${p('visitor_key')} AS g_visitor, ` +
      `${this.d.bitOr(classBit(this.d, p('traffic_class'), this.params))} AS g_mask FROM ${pe} WHERE ${p('pageviews')} > 0 ` +
      `GROUP BY ${[p('site_id'), p('day_ms'), p('tenant_id'), p('path_canon'), p('visitor_key')].join(', ')}`;
    // sessions with at least one pageview of the page, counted on the session's own row
    const viewed = `(SELECT DISTINCT ${p('site_id')} AS site_id, ${p('day')} AS day, ${p('session_id')} AS session_id, ${p('path_canon')} AS path_canon FROM ${pe} WHERE ${p('pageviews')} > 0)`;
    const sessionSums =
      `SELECT ${x('site_id')} AS g_site, ${x('day_ms')} AS g_day, ${x('tenant_id')} AS g_tenant, ${x('traffic_class')} AS g_class, vw.path_canon AS g_dk, ${none} AS g_fk, ` +
      `sum(${x('sessions')}) AS ${sumOf('sessions')}, sum(${x('bounces')}) AS ${sumOf('bounces')}, sum(${x('engaged')}) AS ${sumOf('engaged')}, sum(${x('session_eng_ms')}) AS ${sumOf('session_eng_ms')} ` +
      `FROM ${this.table(this.t.sessionEvents, 'x')} INNER JOIN ${viewed} AS vw ON vw.site_id = ${x('site_id')} AND vw.day = ${x('day')} AND vw.session_id = ${x('session_id')} ` +
      `WHERE ${x('sessions')} = 1 GROUP BY ${[x('site_id'), x('day_ms'), x('tenant_id'), x('traffic_class'), 'vw.path_canon'].join(', ')}`;
    const landing = (atom: 'entries' | 'exits', column: string) =>
      `SELECT ${x('site_id')} AS g_site, ${x('day_ms')} AS g_day, ${x('tenant_id')} AS g_tenant, ${x('traffic_class')} AS g_class, ${x(column)} AS g_dk, ${none} AS g_fk, count(*) AS ${sumOf(atom)} ` +
      `FROM ${this.table(this.t.sessionEvents, 'x')} WHERE ${x('sessions')} = 1 AND ${x(column)} IS NOT NULL ` +
      `GROUP BY ${[x('site_id'), x('day_ms'), x('tenant_id'), x('traffic_class'), x(column)].join(', ')}`;
    return [
      this.spreadSums(eventSums, ['pageviews', 'events', 'pv_eng_ms']),
      this.spreadSums(sessionSums, ['sessions', 'bounces', 'engaged', 'session_eng_ms']),
      this.spreadSums(landing('entries', 'entry_page'), ['entries']),
      this.spreadSums(landing('exits', 'exit_page'), ['exits']),
      this.countVisitors(visitors),
    ];
  }

  compile(g: RollupGrouping): string {
    const isPage = g.dim === 'page' || g.filterDim === 'page';
    if (isPage && (g.filterDim !== '' || g.dim !== 'page')) throw new Error('page is stored alone');
    const parts = isPage ? this.pageGrouping() : this.sessionGrouping(g);
    const cols = [
      'u.g_site',
      'u.g_day',
      'u.g_all',
      'u.g_tenant',
      'u.g_traffic',
      this.v(g.dim),
      'u.g_dk',
      this.v(g.filterDim),
      'u.g_fk',
      ...ATOMS.map((a) => this.d.toInt64(`sum(u.${a})`)),
    ];
    const names = ROLLUP_COLUMNS.map((c) => q(this.d, c));
    return `SELECT ${cols.map((c, i) => `${c} AS ${names[i]}`).join(', ')} FROM (${parts.join(' UNION ALL ')}) AS u GROUP BY ${HEADS.map((h) => `u.${h}`).join(', ')}`;
  }
}

/**
 * The rollup rows of these groupings, in ROLLUP_COLUMNS order, from the intermediate tables of
 * compileRollupInputs() (materialized under `tables`' names) and the expansion tables.
 */
export function compileRollupBuild(d: Dialect, groupings: readonly RollupGrouping[], tables: BuildTables): CompiledBuild {
  const c = new BuildCompiler(d, tables);
  return { sql: groupings.map((g) => c.compile(g)).join(' UNION ALL '), params: c.params };
}

/**
 * The rows of the session-scoped groupings among `groupings` in ONE statement, from compileSessionSets'
 * tables (`tables.sessionSets`, required): each set's rows are taken once per grouping of that set
 * (a small table of grouping number and set id), carry the grouping's number (g_gi) through the
 * same parts compileRollupBuild writes for one grouping, and are grouped by it too. The same rows as
 * compileRollupBuild of those groupings, with one statement's operators instead of one set per
 * grouping: what a small build pays for is mostly planning and starting each operator, which grow
 * with the statements, while its rows are few (docs/decisions/rollups.md).
 */
export function compileSessionRollupBuild(d: Dialect, groupings: readonly RollupGrouping[], tables: BuildTables): CompiledBuild {
  const sets = tables.sessionSets;
  if (!sets) throw new Error('compileSessionRollupBuild reads the session sets (compileSessionSets)');
  const c = new BuildCompiler(d, tables, [], ['g_gi']);
  const gs = SESSION_GROUPINGS(groupings);
  const x = (col: string) => c.col('x', col);
  const byGrouping = (value: (g: RollupGrouping) => string) =>
    `CASE m.m_gi ${gs.map((g, i) => `WHEN ${i} THEN ${value(g)}`).join(' ')} END`;
  const key = (pick: (g: RollupGrouping) => Dimension | '') =>
    byGrouping((g) => {
      const dim = pick(g);
      return dim === '' ? d.nullString() : x(DIMENSION_DEFS[dim].column);
    });
  const map = `(VALUES ${gs.map((g, i) => `(${i}, ${sessionSetId(g)})`).join(', ')}) AS m(m_gi, m_gid)`;
  const heads = `x.g_site, x.g_day, x.g_tenant, m.m_gi AS g_gi, ${key((g) => g.dim)} AS g_dk, ${key((g) => g.filterDim)} AS g_fk`;
  const from = (table: string) => `FROM ${c.table(table, 'x')} INNER JOIN ${map} ON m.m_gid = x.gid`;
  const sums = `SELECT ${heads}, x.g_class, ${SUMMED_SESSION_ATOMS.map(sumOf).join(', ')} ${from(sets.sums)}`;
  const visitors = `SELECT ${heads}, x.g_visitor, x.g_mask ${from(sets.visitors)}`;
  const parts = [c.spreadSums(sums, SUMMED_SESSION_ATOMS), c.countVisitors(visitors)];
  const named = (value: (g: RollupGrouping) => string) =>
    `CASE u.g_gi ${gs.map((g, i) => `WHEN ${i} THEN ${c.v(value(g))}`).join(' ')} END`;
  const cols = [
    'u.g_site',
    'u.g_day',
    'u.g_all',
    'u.g_tenant',
    'u.g_traffic',
    named((g) => g.dim),
    'u.g_dk',
    named((g) => g.filterDim),
    'u.g_fk',
    ...ATOMS.map((a) => d.toInt64(`sum(u.${a})`)),
  ];
  const names = ROLLUP_COLUMNS.map((col) => q(d, col));
  const sql =
    `SELECT ${cols.map((col, i) => `${col} AS ${names[i]}`).join(', ')} FROM (${parts.join(' UNION ALL ')}) AS u ` +
    `GROUP BY ${[...HEADS, 'g_gi'].map((h) => `u.${h}`).join(', ')}`;
  return { sql, params: c.params };
}

/**
 * For dialects with GROUPING SETS: the sums and the visitor masks of every session-scoped grouping in
 * ONE pass over the session events each (instead of one pass per grouping), as two SELECTs to
 * materialize; compileRollupBuild then reads them by grouping id (`sessionSets`). Every session
 * dimension column is carried; a grouping's rows have NULL in the columns it does not group by.
 */
export function compileSessionSets(
  d: Dialect,
  sessionEvents: string,
  groupings: readonly RollupGrouping[],
): { sums: CompiledBuild; visitors: CompiledBuild } {
  const params: SqlParam[] = [];
  const x = (c: string) => `x.${q(d, c)}`;
  const dims = SESSION_DIMENSION_COLUMNS.map(x);
  const sets = SESSION_GROUPINGS(groupings).map((g) =>
    [g.dim, g.filterDim].filter((dim): dim is Dimension => dim !== '').map((dim) => x(DIMENSION_DEFS[dim].column)),
  );
  const gid = `GROUPING_ID(${dims.join(', ')})`;
  const dimCols = SESSION_DIMENSION_COLUMNS.map((c) => `${x(c)} AS ${q(d, c)}`).join(', ');
  const base = [x('site_id'), x('day_ms'), x('tenant_id')];
  const sums =
    `SELECT ${gid} AS gid, ${x('site_id')} AS g_site, ${x('day_ms')} AS g_day, ${x('tenant_id')} AS g_tenant, ${x('traffic_class')} AS g_class, ${dimCols}, ` +
    `${sessionSums(x)} FROM ${q(d, sessionEvents)} AS x GROUP BY GROUPING SETS (${sets.map((k) => `(${[...base, x('traffic_class'), ...k].join(', ')})`).join(', ')})`;
  const visitors =
    `SELECT ${gid} AS gid, ${x('site_id')} AS g_site, ${x('day_ms')} AS g_day, ${x('tenant_id')} AS g_tenant, ${x('visitor_key')} AS g_visitor, ${dimCols}, ` +
    `${d.bitOr(classBit(d, x('traffic_class'), params))} AS g_mask FROM ${q(d, sessionEvents)} AS x WHERE ${x('simple')} = 0 ` +
    `GROUP BY GROUPING SETS (${sets.map((k) => `(${[...base, x('visitor_key'), ...k].join(', ')})`).join(', ')})`;
  return { sums: { sql: sums, params: [] }, visitors: { sql: visitors, params } };
}
