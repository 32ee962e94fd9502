// The query API's read (/api/v2/query) for every SQL engine: integer sums over the raw events and
// sessions of a site, grouped by its dimensions and its local time bucket, with Plausible's filters.
// docs/metrics.md "The query API" is the prose of the same rules:
// - kept events: the site, traffic and tenants in scope, time in the window, every event filter, and
//   (through their session) every visit filter and has_done / has_not_done;
// - events, pageviews: the kept events; visitors: distinct keys of the kept events per UTC day, summed
//   (keys rotate at 00:00 UTC); where the query names event:page, reading a page means viewing it, so
//   visitors and visits count pageviews only (as /v1 does);
// - visits (and bounces, their pageviews and engagement): the sessions that start in the window, pass
//   the visit filters, and, with event filters or an event dimension, hold a kept event (grouped by
//   each event key they hold), in the bucket of their start.
// One statement of three parts (events, visitors, visits) in UNION ALL, summed per group by the outer
// query; no order and no limit, so partial results of several servers add up (mergePartials).
import { ACTION_DETAIL_SEPARATOR, type QueryFilter } from '../../../domain/query-api/query-body.js';
import { queryGroupOf, type QueryGroup } from '../../../domain/query-api/query-groups.js';
import { DAY_MS } from '../../../domain/report-range.js';
import { SIMPLE_ACTIONS } from '../../../domain/events.js';
import type { QueryAtom } from '../../../domain/query-api/query-metrics.js';
import type { NamedGoal, QueryRow, QueryRowsRequest } from '../../../ports/analytics-engine.js';
import type { Dialect } from '../dialect.js';
import type { ReadOptions } from './compile-actions.js';
import { goalPatternToLike } from './compile-goals.js';
import { DEFAULT_TABLES, type TableNames } from './compile-query.js';
import { toInt, type CompiledRead } from './read-rows.js';
import { bucketSql } from './query-buckets.js';
import { int, SqlWriter } from './sql-writer.js';

const BUCKET = 'q_bucket';
const keyCol = (i: number) => `q_k${i}`;
// result names no table has (ClickHouse resolves a column name to a SELECT alias of the same name)
const atomCol = (a: QueryAtom) => `q_${a}`;
const groupOf = (dimension: string) => queryGroupOf(dimension as Parameters<typeof queryGroupOf>[0], 'filters');
const EVENT_ATOMS: readonly QueryAtom[] = ['events', 'pageviews'];
const VISIT_ATOMS: readonly QueryAtom[] = ['visits', 'bounces', 'visit_pageviews', 'visit_eng_ms'];
const GOAL_FILTER_COLUMNS = ['action_id', 'action_target_host', 'form_id', 'form_action_path'] as const;
/** The detail event:action names after the action's name: the first of these it has. */
const ACTION_DETAILS = ['action_target_host', 'form_id', 'action_id'] as const;
const EVENT_COLUMNS = [
  'site_id',
  'ts_ms',
  'session_id',
  'visitor_key',
  'type',
  'tenant_id',
  'traffic_class',
  'path_canon',
  'event_name',
  'action_name',
  'prop_keys',
  'prop_values',
] as const;

/**
 * A pattern that turns case off inline ((?i)) as one group, the same pattern to RE2: ClickHouse 18.16 first
 * looks for the literal text a pattern requires outside its groups, case-sensitively whatever (?i) says
 * (match('PARIS', '(?i)paris') is 0, match('PARIS', '(?:(?i)paris)') is 1).
 */
const caselessAsGroup = (pattern: string) => (/\(\?[A-Za-z]*i/.test(pattern) ? `(?:${pattern})` : pattern);

/** Filters split by what they select: event filters (kept events) and visit filters (kept sessions). */
function splitFilters(filters: readonly QueryFilter[]): { event: QueryFilter[]; visit: QueryFilter[] } {
  const out = { event: [] as QueryFilter[], visit: [] as QueryFilter[] };
  const visit = (f: QueryFilter): boolean => {
    if ('dimension' in f) return !f.dimension.startsWith('event:');
    if ('filters' in f) return f.filters.every(visit);
    return f.op === 'not' ? visit(f.filter) : true;
  };
  const walk = (f: QueryFilter) => {
    // an "and" may mix kinds: its members are top-level conditions like any other
    if (f.op === 'and' && !f.filters.every(visit) && f.filters.some(visit)) f.filters.forEach(walk);
    else (visit(f) ? out.visit : out.event).push(f);
  };
  filters.forEach(walk);
  return out;
}

/**
 * Whether the query names event:page anywhere (then visitors and visits count pageviews only). Not when it
 * groups by event:action: its rows are actions, whose visitors and visits a page would otherwise zero.
 */
function namesPage(req: QueryRowsRequest): boolean {
  if (req.groups.some((g) => g.kind === 'action')) return false;
  const inFilter = (f: QueryFilter): boolean =>
    'dimension' in f ? f.dimension === 'event:page' : 'filters' in f ? f.filters.some(inFilter) : f.op === 'not' && inFilter(f.filter);
  return req.groups.some((g) => g.kind === 'page') || req.filters.some(inFilter);
}

/** The query API's statement; its scope, filters and goal rules are the pieces the funnel read (compile-funnel.ts) builds on. */
export class QueryApiCompiler extends SqlWriter {
  protected readonly t: TableNames;
  protected readonly filters: { event: QueryFilter[]; visit: QueryFilter[] };
  private readonly pageScoped: boolean;
  private readonly goalGroup: number;
  private readonly propKeyGroup: number;

  constructor(
    d: Dialect,
    readonly req: QueryRowsRequest,
    o: ReadOptions,
  ) {
    super(d, o.rowFilter);
    this.t = o.tables ?? DEFAULT_TABLES;
    this.filters = splitFilters(req.filters);
    this.pageScoped = namesPage(req);
    this.goalGroup = req.groups.findIndex((g) => g.kind === 'goal');
    this.propKeyGroup = req.groups.findIndex((g) => g.kind === 'propKey');
  }

  /** The days (UTC) that hold every session starting in the window: sessions never cross 00:00 UTC. */
  protected get dayWindow(): { startMs: number; endMs: number } {
    const { startMs, endMs } = this.req.window;
    return { startMs: Math.floor(startMs / DAY_MS) * DAY_MS, endMs: Math.ceil(endMs / DAY_MS) * DAY_MS };
  }

  /** Site, traffic, tenants and [startMs, endMs) of a table read under `alias`, with the store's visibility. */
  protected scoped(alias: string, tsCol: string, table: 'events' | 'sessions', w: { startMs: number; endMs: number }): string[] {
    // inScope's window is inclusive: [startMs, endMs - 1] of integer ms is [startMs, endMs)
    return [...this.inScope(alias, tsCol, this.req.scope, w.startMs, w.endMs - 1), ...this.visible([table, alias])];
  }

  // ---- dimensions and filters

  private visitExpr(alias: string, column: string): string {
    if (column === 'source') return `coalesce(${this.col(alias, 'utm_source')}, ${this.col(alias, 'referrer_host')})`;
    return this.col(alias, column);
  }

  private visitColumns(): string[] {
    const cols = new Set<string>();
    const add = (column: string) => {
      if (column === 'source') cols.add('utm_source').add('referrer_host');
      else cols.add(column);
    };
    for (const g of this.req.groups) if (g.kind === 'visit') add(g.column);
    const walk = (f: QueryFilter): void => {
      if ('dimension' in f) {
        if (!f.dimension.startsWith('event:')) add(this.groupOfVisit(f.dimension));
      } else if ('filters' in f) f.filters.forEach(walk);
      else if (f.op === 'not') walk(f.filter);
    };
    this.filters.visit.forEach(walk);
    return [...cols];
  }

  private groupOfVisit(dimension: string): string {
    const g = groupOf(dimension);
    if (g.kind !== 'visit') throw new RangeError(`${dimension} is not a visit dimension`);
    return g.column;
  }

  /** An event group's value on events `e` (the goal group reads the key its goal branch gives). */
  private eventExpr(g: QueryGroup, e: string): string {
    switch (g.kind) {
      case 'page':
        return this.col(e, 'path_canon');
      case 'name':
        return `(CASE WHEN ${this.col(e, 'type')} = ${this.v('pageview')} THEN ${this.v('pageview')} ELSE coalesce(${this.col(e, 'event_name')}, ${this.col(e, 'action_name')}) END)`;
      case 'prop':
        return this.d.propValue(this.col(e, 'prop_keys'), this.col(e, 'prop_values'), this.v(g.key));
      case 'goal':
        return `${e}.q_goal`;
      case 'propKey':
        return `${e}.q_prop_key`;
      case 'action': {
        // the /v1 actions report's label: the name, then the first detail the action has
        const name = `coalesce(${this.col(e, 'event_name')}, ${this.col(e, 'action_name')}, ${this.v('')})`;
        const detail = `coalesce(${ACTION_DETAILS.map((c) => this.col(e, c)).join(', ')})`;
        return `(CASE WHEN ${this.col(e, 'type')} = ${this.v('pageview')} THEN NULL WHEN ${detail} IS NULL THEN ${name} ELSE concat(${name}, ${this.v(ACTION_DETAIL_SEPARATOR)}, coalesce(${detail}, ${this.v('')})) END)`;
      }
      case 'visit':
        throw new RangeError('a visit group is read from the session');
    }
  }

  /** A group's value in a part: events `e` joined to their session `s` (tenant: the event's own). */
  private groupExpr(g: QueryGroup, e: string, s: string): string {
    if (g.kind !== 'visit') return this.eventExpr(g, e);
    return g.column === 'tenant_id' ? this.col(e, 'tenant_id') : this.visitExpr(s, g.column);
  }

  /** A goal's rule on events `e` (compile-goals.ts: pageviews by pattern, actions by name and fields). */
  protected goalMatch(goal: NamedGoal, e: string): string {
    if (goal.type === 'PAGEVIEW_MATCH')
      return `(${this.col(e, 'type')} = ${this.v('pageview')} AND ${this.d.likeEscaped(this.col(e, 'path_canon'), this.v(goalPatternToLike(goal.pattern)))})`;
    const parts = [
      `${this.col(e, 'type')} = ${this.v('action')}`,
      `(${this.col(e, 'event_name')} = ${this.v(goal.pattern)} OR ${this.col(e, 'action_name')} = ${this.v(goal.pattern)})`,
    ];
    for (const f of GOAL_FILTER_COLUMNS) {
      const v = goal.filters?.[f];
      if (typeof v === 'string') parts.push(`${this.col(e, f)} = ${this.v(v)}`);
    }
    return `(${parts.join(' AND ')})`;
  }

  /** One clause of is / contains / matches on `expr`; "(none)" with is / is_not means no value. */
  private clause(op: string, expr: string, value: string, caseSensitive: boolean): string {
    const base = op.replace(/_not$/, '');
    if (base === 'matches') return this.d.matchesRe2(expr, this.v(caselessAsGroup(value)));
    // (a value enters the statement only where it is used: every placeholder must be bound)
    const lhs = caseSensitive ? expr : this.d.lower(expr);
    const text = (x: string) => (caseSensitive ? this.v(x) : this.d.lower(this.v(x)));
    if (base === 'is') return value === '(none)' ? `${expr} IS NULL` : `${lhs} = ${text(value)}`;
    const pattern = `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.d.likeEscaped(lhs, text(pattern));
  }

  /** A filter as a condition, its dimensions read by `dim`; NULL never matches a positive clause. */
  protected condition(f: QueryFilter, dim: (dimension: string) => string, sessionId: string, e = 'e'): string {
    if ('dimension' in f) {
      if (f.dimension === 'event:goal') {
        const goals = this.req.goals.filter((g) =>
          f.clauses.some((c) => {
            // goal names are matched here, by the filter's case rule (case-sensitive unless it says not)
            const [name, clause] = f.caseSensitive ? [g.name, c] : [g.name.toLowerCase(), c.toLowerCase()];
            return f.op === 'is' ? name === clause : name.includes(clause);
          }),
        );
        return goals.length ? `(${goals.map((g) => this.goalMatch(g, e)).join(' OR ')})` : '1 = 0';
      }
      const expr = dim(f.dimension);
      const any = `(${f.clauses.map((c) => this.clause(f.op, expr, c, f.caseSensitive)).join(' OR ')})`;
      return f.op.endsWith('_not') ? `NOT ${this.d.orFalse(any)}` : this.d.orFalse(any);
    }
    if ('filters' in f) return `(${f.filters.map((g) => this.condition(g, dim, sessionId, e)).join(f.op === 'and' ? ' AND ' : ' OR ')})`;
    if (f.op === 'not') return `NOT ${this.d.orFalse(this.condition(f.filter, dim, sessionId, e))}`;
    // has_done: the session holds an event (any of its own, in the days it can lie in) that matches
    const w = this.dayWindow;
    const inner = [
      `${this.col('hd', 'site_id')} = ${this.v(this.req.scope.siteId)}`,
      `${this.col('hd', 'ts_ms')} >= ${this.v(w.startMs)}`,
      `${this.col('hd', 'ts_ms')} < ${this.v(w.endMs)}`,
      ...this.visible(['events', 'hd']),
      this.condition(f.filter, (d) => this.eventDim(d, 'hd'), sessionId, 'hd'),
    ];
    const held = `${sessionId} IN (SELECT ${this.col('hd', 'session_id')} FROM ${this.table(this.t.events, 'hd')} WHERE ${inner.join(' AND ')})`;
    return f.op === 'has_done' ? held : `NOT (${held})`;
  }

  protected eventDim(dimension: string, e: string): string {
    return this.eventExpr(groupOf(dimension), e);
  }

  protected visitDim(dimension: string, s: string, e: string | null): string {
    const column = this.groupOfVisit(dimension);
    return column === 'tenant_id' && e !== null ? this.col(e, 'tenant_id') : this.visitExpr(s, column);
  }

  // ---- relations

  /**
   * The events in scope as `e`: the table itself; with the property-key group one row per custom property of
   * each event (none for an event without), holding its key as q_prop_key; or with the goal group one branch
   * per goal (an event that meets two goals counts for each), each holding its goal's name as q_goal.
   */
  private eventSource(w: { startMs: number; endMs: number }): { from: string; where: string[] } {
    if (this.propKeyGroup < 0 && this.goalGroup < 0)
      return { from: this.table(this.t.events, 'e'), where: this.scoped('e', 'ts_ms', 'events', w) };
    const cols = [...EVENT_COLUMNS, ...GOAL_FILTER_COLUMNS].map((c) => `${this.col('e', c)} AS ${this.d.quoteIdent(c)}`).join(', ');
    const scoped = this.scoped('e', 'ts_ms', 'events', w);
    if (this.propKeyGroup >= 0) {
      const pairs = this.d.propPairs(this.d.quoteIdent(this.t.events), 'e');
      return { from: `(SELECT ${cols}, p_key AS q_prop_key FROM ${pairs} WHERE ${scoped.join(' AND ')}) AS e`, where: [] };
    }
    const branch = (name: string, match: string) =>
      `SELECT ${cols}, ${this.v(name)} AS q_goal FROM ${this.table(this.t.events, 'e')} WHERE ${[...scoped, match].join(' AND ')}`;
    // a site without goals: the same columns (q_goal included, which the groups read) and no row
    const branches = this.req.goals.length ? this.req.goals.map((g) => branch(g.name, this.goalMatch(g, 'e'))) : [branch('', '1 = 0')];
    return { from: `(${branches.join(' UNION ALL ')}) AS e`, where: [] };
  }

  /** Kept events `e` (joined to their session `s` when a visit filter or group reads it) in window `w`. */
  private keptEvents(w: { startMs: number; endMs: number }, opts: { pageviewsOnly: boolean }): { from: string; where: string[] } {
    const src = this.eventSource(w);
    const columns = this.visitColumns().filter((c) => c !== 'tenant_id');
    let from = src.from;
    if (columns.length) {
      const sessions = this.sessionsOf(this.t.sessions, this.req.scope, w.startMs, w.endMs - 1, columns);
      from += ` LEFT JOIN ${sessions} AS s ON ${this.col('s', 'session_id')} = ${this.col('e', 'session_id')}`;
    }
    const sid = this.col('e', 'session_id');
    const where = [
      ...src.where,
      ...this.filters.event.map((f) => this.condition(f, (d) => this.eventDim(d, 'e'), sid)),
      ...this.filters.visit.map((f) => this.condition(f, (d) => this.visitDim(d, 's', 'e'), sid)),
    ];
    if (opts.pageviewsOnly) where.push(`${this.col('e', 'type')} = ${this.v('pageview')}`);
    // grouped by event:action, a pageview is in no group (not one of NULL); a strict site's, the simple actions alone
    const action = this.req.groups.find((g): g is Extract<QueryGroup, { kind: 'action' }> => g.kind === 'action');
    if (action) where.push(`${this.col('e', 'type')} <> ${this.v('pageview')}`);
    if (action?.simpleOnly) where.push(this.inList(this.col('e', 'action_name'), SIMPLE_ACTIONS));
    return { from, where };
  }

  /** The bucket key of a time column, by the local clock or by edges (QueryBucketing). */
  private bucketOf(ts: string): string | null {
    return this.req.bucketing ? bucketSql(this.d, this.req.bucketing, ts) : null;
  }

  // ---- parts

  /** Each requested atom, from its part's expression (built only when requested) or 0. */
  private atomCols(present: Partial<Record<QueryAtom, () => string>>): string[] {
    return this.req.atoms.map((a) => `${this.d.toInt64(present[a]?.() ?? '0')} AS ${atomCol(a)}`);
  }

  private groupCols(exprs: string[], bucket: string | null): { cols: string[]; names: string[] } {
    const cols = exprs.map((x, i) => `${this.d.nullable(x)} AS ${keyCol(i)}`);
    const names = exprs.map((_, i) => keyCol(i));
    if (bucket !== null) {
      cols.push(`${this.d.toInt64(bucket)} AS ${BUCKET}`);
      names.push(BUCKET);
    }
    return { cols, names };
  }

  private eventsPart(): string {
    const k = this.keptEvents(this.req.window, { pageviewsOnly: false });
    const g = this.groupCols(
      this.req.groups.map((x) => this.groupExpr(x, 'e', 's')),
      this.bucketOf(this.col('e', 'ts_ms')),
    );
    const atoms = this.atomCols({
      events: () => 'count(*)',
      pageviews: () => this.sumIf(`${this.col('e', 'type')} = ${this.v('pageview')}`),
    });
    return this.select([...g.cols, ...atoms], k.from, k.where, g.names);
  }

  /**
   * Visitors: distinct keys per UTC day, summed. With `withEvents`, events and pageviews come from the same
   * scan (one pass over the events instead of two; where visitors count pageviews only, the distinct count
   * takes the pageviews' keys alone, and the groups are those of every kept event, as eventsPart's).
   */
  private visitorsPart(withEvents: boolean): string {
    const pageviewsOnly = this.pageScoped && !withEvents;
    const k = this.keptEvents(this.req.window, { pageviewsOnly });
    const g = this.groupCols(
      this.req.groups.map((x) => this.groupExpr(x, 'e', 's')),
      this.bucketOf(this.col('e', 'ts_ms')),
    );
    const isPageview = () => `${this.col('e', 'type')} = ${this.v('pageview')}`;
    const key =
      this.pageScoped && withEvents ? `(CASE WHEN ${isPageview()} THEN ${this.col('e', 'visitor_key')} END)` : this.col('e', 'visitor_key');
    const inner = this.select(
      [
        ...g.cols,
        `${this.d.intDiv(this.col('e', 'ts_ms'), int(DAY_MS))} AS q_day`,
        `${this.d.countDistinct(key)} AS q_v`,
        ...(withEvents ? ['count(*) AS q_ev', `${this.sumIf(isPageview())} AS q_pv`] : []),
      ],
      k.from,
      k.where,
      [...g.names, 'q_day'],
    );
    const outer = this.atomCols({
      visitors: () => 'sum(v.q_v)',
      ...(withEvents ? { events: () => 'sum(v.q_ev)', pageviews: () => 'sum(v.q_pv)' } : {}),
    });
    return this.select(
      [...g.names.map((n) => `v.${n} AS ${n}`), ...outer],
      `(${inner}) AS v`,
      [],
      g.names.map((n) => `v.${n}`),
    );
  }

  private visitsPart(): string {
    const eventGroups = this.req.groups.map((g, i) => [g, i] as const).filter(([g]) => g.kind !== 'visit');
    const heldBy = this.filters.event.length > 0 || eventGroups.length > 0 || this.pageScoped;
    const s = 's';
    let from = this.table(this.t.sessions, s);
    if (heldBy) {
      // the sessions' kept events (by each event key they hold), over the days their events lie in
      const k = this.keptEvents({ startMs: this.req.window.startMs, endMs: this.dayWindow.endMs }, { pageviewsOnly: this.pageScoped });
      const keys = eventGroups.map(([g, i]) => `${this.d.nullable(this.eventExpr(g, 'e'))} AS ${keyCol(i)}`);
      const held = `SELECT DISTINCT ${[`${this.col('e', 'session_id')} AS q_sid`, ...keys].join(', ')} FROM ${k.from} WHERE ${k.where.join(' AND ')}`;
      from += ` INNER JOIN (${held}) AS x ON x.q_sid = ${this.col(s, 'session_id')}`;
    }
    const exprs = this.req.groups.map((g, i) => (g.kind === 'visit' ? this.visitExpr(s, g.column) : `x.${keyCol(i)}`));
    const g = this.groupCols(exprs, this.bucketOf(this.col(s, 'start_ms')));
    const sid = this.col(s, 'session_id');
    const where = [
      ...this.scoped(s, 'start_ms', 'sessions', this.req.window),
      ...this.filters.visit.map((f) => this.condition(f, (d) => this.visitDim(d, s, null), sid)),
    ];
    const atoms = this.atomCols({
      visits: () => 'count(*)',
      bounces: () => this.sumIf(this.d.isTrue(this.col(s, 'is_bounce'))),
      visit_pageviews: () => `sum(${this.col(s, 'pageviews')})`,
      visit_eng_ms: () => `sum(${this.col(s, 'engagement_ms')})`,
    });
    return this.select([...g.cols, ...atoms], from, where, g.names);
  }

  private select(cols: string[], from: string, where: string[], groupBy: string[]): string {
    return (
      `SELECT ${cols.join(', ')} FROM ${from}` +
      (where.length ? ` WHERE ${where.join(' AND ')}` : '') +
      (groupBy.length ? ` GROUP BY ${groupBy.join(', ')}` : '')
    );
  }

  compile(): CompiledRead {
    const atoms = this.req.atoms;
    const parts: string[] = [];
    const eventAtoms = atoms.some((a) => EVENT_ATOMS.includes(a));
    if (atoms.includes('visitors')) parts.push(this.visitorsPart(eventAtoms));
    else if (eventAtoms) parts.push(this.eventsPart());
    if (atoms.some((a) => VISIT_ATOMS.includes(a))) parts.push(this.visitsPart());
    const keys = [...this.req.groups.map((_, i) => keyCol(i)), ...(this.req.bucketing ? [BUCKET] : [])];
    const outer = [...keys.map((k) => `t.${k} AS ${k}`), ...atoms.map((a) => `${this.d.toInt64(`sum(t.${atomCol(a)})`)} AS ${atomCol(a)}`)];
    const sql =
      `SELECT ${outer.join(', ')} FROM (${parts.join(' UNION ALL ')}) AS t` +
      (keys.length ? ` GROUP BY ${keys.map((k) => `t.${k}`).join(', ')}` : '');
    return {
      sql,
      params: this.params,
      columns: [...keys, ...atoms.map(atomCol)],
      text: this.req.groups.map((_, i) => keyCol(i)),
      keys,
      merge: Object.fromEntries(atoms.map((a) => [atomCol(a), 'sum'])),
    };
  }
}

export function compileQueryRows(d: Dialect, req: QueryRowsRequest, options: ReadOptions = {}): CompiledRead {
  if (req.atoms.length === 0) throw new RangeError('a query API read needs at least one atom');
  return new QueryApiCompiler(d, req, options).compile();
}

/** Result rows of compileQueryRows (or their merge) as QueryRows. */
export function decodeQueryRows(req: QueryRowsRequest, rows: readonly Record<string, unknown>[]): QueryRow[] {
  return rows.map((r) => ({
    keys: req.groups.map((_, i) => {
      const v = r[keyCol(i)];
      return v === null || v === undefined ? null : String(v);
    }),
    bucket: req.bucketing ? toInt(r[BUCKET]) : null,
    atoms: Object.fromEntries(req.atoms.map((a) => [a, toInt(r[atomCol(a)])])),
  }));
}
