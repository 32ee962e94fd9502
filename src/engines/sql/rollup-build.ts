// The SQL that computes the daily rollup rows of the (site, day) pairs listed in a `days` table,
// one statement per grouping, through the shared Dialect hooks. Each atom is counted by the rule the
// raw compiler (compile-query.ts) applies to a one-day window with the same filters; the property
// test (test/engines/rollups.test.ts) holds the two to equal answers.
import { TRAFFIC_FILTERS } from '../../domain/events.js';
import { DIMENSION_DEFS, type Dimension } from '../../domain/query/dimensions.js';
import { ATOMS, type Atom } from '../../domain/query/metrics.js';
import { DAY_MS } from '../../domain/report-range.js';
import type { Dialect, SqlParam, SqlValue } from './dialect.js';
import type { RollupGrouping } from './rollup-plan.js';

/** Column order of the rollup table (schema and INSERT agree on it). */
export const ROLLUP_COLUMNS = ['site_id', 'day_ms', 'all_tenants', 'tenant_id', 'traffic', 'dim', 'dim_key', 'filter_dim', 'filter_key', ...ATOMS] as const;

export interface RollupBuildTables {
  events: string;
  sessions: string;
  /** (site_id, day) pairs to build: `day` the same UTC date type as events.day and sessions.day */
  days: string;
  /** the rows of compileRollupExpansions(): (traffic, class) and (all_tenants) */
  trafficMap: string;
  scopes: string;
}

export interface CompiledBuild {
  sql: string;
  params: SqlParam[];
}

const GROUP = ['g_site', 'g_day', 'g_all', 'g_tenant', 'g_traffic', 'g_dk', 'g_fk'] as const;

class BuildCompiler {
  g: RollupGrouping = { dim: '', filterDim: '' };
  constructor(
    readonly d: Dialect,
    readonly t: RollupBuildTables,
    readonly params: SqlParam[] = [],
  ) {}

  v(x: SqlValue): string {
    return this.d.value(x, this.params);
  }
  col(alias: string, name: string): string {
    return `${alias}.${this.d.quoteIdent(name)}`;
  }
  table(name: string, alias: string): string {
    return `${this.d.quoteIdent(name)} AS ${alias}`;
  }
  dayMs(tsExpr: string): string {
    return `${this.d.intDiv(tsExpr, String(DAY_MS))} * ${DAY_MS}`;
  }
  sumIf(cond: string, expr = '1'): string {
    return `sum(CASE WHEN ${cond} THEN ${expr} ELSE 0 END)`;
  }
  inDays(alias: string): string {
    return `INNER JOIN ${this.table(this.t.days, 'td')} ON ${this.col('td', 'site_id')} = ${this.col(alias, 'site_id')} AND ${this.col('td', 'day')} = ${this.col(alias, 'day')}`;
  }

  /** Traffic and tenant-scope expansion of the rows of `alias`. */
  expand(alias: string): string {
    return `INNER JOIN ${this.table(this.t.trafficMap, 'tm')} ON tm.class = ${this.col(alias, 'traffic_class')} CROSS JOIN ${this.table(this.t.scopes, 'sc')}`;
  }
  heads(alias: string, tsCol: string, dk: string, fk: string): string[] {
    return [
      `${this.col(alias, 'site_id')} AS g_site`,
      `${this.dayMs(this.col(alias, tsCol))} AS g_day`,
      `sc.all_tenants AS g_all`,
      `CASE WHEN ${this.d.isTrue('sc.all_tenants')} THEN NULL ELSE ${this.col(alias, 'tenant_id')} END AS g_tenant`,
      `tm.traffic AS g_traffic`,
      `${dk} AS g_dk`,
      `${fk} AS g_fk`,
    ];
  }
  part(heads: string[], atoms: Partial<Record<Atom, string>>, from: string, where: string[] = []): string {
    const cols = [...heads, ...ATOMS.map((a) => `${this.d.toInt64(atoms[a] ?? '0')} AS ${a}`)];
    return `SELECT ${cols.join(', ')} FROM ${from}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} GROUP BY ${GROUP.join(', ')}`;
  }

  get dims(): Dimension[] {
    return [this.g.dim, this.g.filterDim].filter((x): x is Dimension => x !== '');
  }
  get pageScoped(): boolean {
    return this.dims.includes('page');
  }
  /** The key of `dim` read from events `e` joined to sessions `s` (or from `pageAlias` for page). */
  key(dim: Dimension | '', pageExpr: string): string {
    if (dim === '') return 'NULL';
    const def = DIMENSION_DEFS[dim];
    return def.scope === 'page' ? pageExpr : this.col('s', def.column);
  }

  /**
   * pageviews, events, pv_eng_ms and visitors (pageviews only when a page is a key, as raw counts
   * them). Events are first summed per (day, tenant, class, keys, visitor key): the expansion into
   * traffic filters and tenant scopes then multiplies visitor-days, not events.
   */
  eventPart(): string {
    const pv = `${this.col('e', 'type')} = ${this.v('pageview')}`;
    const needsSession = this.dims.some((x) => DIMENSION_DEFS[x].scope === 'session');
    let from = this.table(this.t.events, 'e');
    if (needsSession) {
      from += ` LEFT JOIN ${this.table(this.t.sessions, 's')} ON ${this.col('s', 'session_id')} = ${this.col('e', 'session_id')} AND ${this.col('s', 'site_id')} = ${this.col('e', 'site_id')} AND ${this.col('s', 'day')} = ${this.col('e', 'day')}`;
    }
    from += ` ${this.inDays('e')}`;
    const page = this.col('e', 'path_canon');
    const grainKeys: [string, string][] = [
      ['site_id', this.col('e', 'site_id')],
      ['day_ms', this.dayMs(this.col('e', 'ts_ms'))],
      ['tenant_id', this.col('e', 'tenant_id')],
      ['traffic_class', this.col('e', 'traffic_class')],
      ['k_d', this.key(this.g.dim, page)],
      ['k_f', this.key(this.g.filterDim, page)],
      ['visitor_key', this.col('e', 'visitor_key')],
    ];
    const q = (n: string) => this.d.quoteIdent(n);
    const grain = `(SELECT ${grainKeys.map(([n, x]) => `${x} AS ${q(n)}`).join(', ')}, ${this.sumIf(pv)} AS ${q('pageviews')}, count(*) AS ${q('events')}, ${this.sumIf(pv, this.col('e', 'engagement_time_ms'))} AS ${q('pv_eng_ms')}, max(CASE WHEN ${pv} THEN 1 ELSE 0 END) AS ${q('viewed')} FROM ${from} GROUP BY ${grainKeys.map(([, x]) => x).join(', ')})`;
    const visitorKey = this.pageScoped ? `CASE WHEN ${this.col('i', 'viewed')} = 1 THEN ${this.col('i', 'visitor_key')} END` : this.col('i', 'visitor_key');
    return this.part(
      this.heads('i', 'day_ms', this.col('i', 'k_d'), this.col('i', 'k_f')),
      {
        pageviews: `sum(${this.col('i', 'pageviews')})`,
        events: `sum(${this.col('i', 'events')})`,
        pv_eng_ms: `sum(${this.col('i', 'pv_eng_ms')})`,
        visitors: this.d.countDistinct(visitorKey),
      },
      `${grain} AS i ${this.expand('i')}`,
    );
  }

  /** Session atoms by the session's day; a page key means "sessions with a pageview of the page". */
  sessionParts(): string[] {
    const sessions = `${this.table(this.t.sessions, 's')} ${this.inDays('s')}`;
    const counts = {
      sessions: 'count(*)',
      bounces: this.sumIf(this.d.isTrue(this.col('s', 'is_bounce'))),
      engaged: this.sumIf(this.d.isTrue(this.col('s', 'is_engaged'))),
      session_eng_ms: `sum(${this.col('s', 'engagement_ms')})`,
    };
    if (!this.pageScoped) {
      const heads = this.heads('s', 'start_ms', this.key(this.g.dim, 'NULL'), this.key(this.g.filterDim, 'NULL'));
      return [
        this.part(
          heads,
          {
            ...counts,
            entries: this.sumIf(`${this.col('s', 'entry_page')} IS NOT NULL`),
            exits: this.sumIf(`${this.col('s', 'exit_page')} IS NOT NULL`),
          },
          `${sessions} ${this.expand('s')}`,
        ),
      ];
    }
    // sessions never cross midnight UTC: a session's pageviews are on its own day
    const viewed = `(SELECT DISTINCT ${this.col('pe', 'session_id')} AS session_id, ${this.col('pe', 'path_canon')} AS path_canon FROM ${this.table(this.t.events, 'pe')} ${this.inDays('pe')} WHERE ${this.col('pe', 'type')} = ${this.v('pageview')})`;
    const byPage = (pageExpr: string) => this.heads('s', 'start_ms', this.key(this.g.dim, pageExpr), this.key(this.g.filterDim, pageExpr));
    const landing = (atom: 'entries' | 'exits', column: string) =>
      this.part(byPage(this.col('s', column)), { [atom]: 'count(*)' }, `${sessions} ${this.expand('s')}`, [`${this.col('s', column)} IS NOT NULL`]);
    return [
      this.part(byPage('p.path_canon'), counts, `${sessions} INNER JOIN ${viewed} AS p ON p.session_id = ${this.col('s', 'session_id')} ${this.expand('s')}`),
      landing('entries', 'entry_page'),
      landing('exits', 'exit_page'),
    ];
  }

  compile(g: RollupGrouping): string {
    this.g = g;
    const body = [this.eventPart(), ...this.sessionParts()].join(' UNION ALL ');
    const cols = [
      'u.g_site',
      'u.g_day',
      'u.g_all',
      'u.g_tenant',
      'u.g_traffic',
      this.v(this.g.dim),
      'u.g_dk',
      this.v(this.g.filterDim),
      'u.g_fk',
      ...ATOMS.map((a) => `${this.d.toInt64(`sum(u.${a})`)}`),
    ];
    const names = ROLLUP_COLUMNS.map((c) => this.d.quoteIdent(c));
    const selected = cols.map((c, i) => `${c} AS ${names[i]}`);
    return `SELECT ${selected.join(', ')} FROM (${body}) AS u GROUP BY ${GROUP.map((x) => `u.${x}`).join(', ')}`;
  }
}

/**
 * The two small tables a build expands rows with (the caller stores them, e.g. as temp tables):
 * `trafficMap` (traffic, class): a row counts once in every traffic filter holding its class;
 * `scopes` (all_tenants): every row counts in the all-tenants scope and in its own tenant's.
 */
export function compileRollupExpansions(d: Dialect): { trafficMap: CompiledBuild; scopes: CompiledBuild } {
  const tp: SqlParam[] = [];
  const rows = Object.entries(TRAFFIC_FILTERS).flatMap(([name, classes]) =>
    classes.map((c) => `SELECT ${d.value(name, tp)} AS traffic, ${d.value(c, tp)} AS class`),
  );
  const sp: SqlParam[] = [];
  return {
    trafficMap: { sql: rows.join(' UNION ALL '), params: tp },
    scopes: { sql: `SELECT ${d.value(true, sp)} AS all_tenants UNION ALL SELECT ${d.value(false, sp)} AS all_tenants`, params: sp },
  };
}

/**
 * The rows of these groupings for every (site, day) in `tables.days`, in ROLLUP_COLUMNS order: one
 * statement (planning a statement costs more than running it on a small import).
 */
export function compileRollupBuild(d: Dialect, groupings: readonly RollupGrouping[], tables: RollupBuildTables): CompiledBuild {
  const c = new BuildCompiler(d, tables);
  return { sql: groupings.map((g) => c.compile(g)).join(' UNION ALL '), params: c.params };
}
