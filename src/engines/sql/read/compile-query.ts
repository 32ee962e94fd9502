// One compiler from a QuerySpec to SQL for every SQL engine; dialect hooks cover the differences.
// Each metric's atoms are written here once (docs/metrics.md is the prose of the same rules).
import { DIMENSION_DEFS, type Dimension } from '../../../domain/query/dimensions.js';
import { atomsFor, presenceAtom, METRIC_DEFS, type Atom } from '../../../domain/query/metrics.js';
import type { NormalizedSpec } from '../../../domain/query/query-spec.js';
import { DAY_MS } from '../../../domain/report-range.js';
import type { Dialect, SqlParam } from '../dialect.js';
import { SqlWriter, type RowFilter } from './sql-writer.js';

export interface TableNames {
  events: string;
  sessions: string;
}
export const DEFAULT_TABLES: TableNames = { events: 'events', sessions: 'sessions' };

/** Engine-specific additions; DuckDB uses none. */
export interface CompileOptions {
  /** rows a store may read (e.g. its committed ones); see RowFilter */
  rowFilter?: RowFilter;
  /**
   * Only the grouped atom sums, without HAVING, ORDER BY or LIMIT: for partial results the caller adds
   * up by (bucket, key) and assembles (e.g. one query per shard).
   */
  partial?: boolean;
}

export interface CompiledQuery {
  sql: string;
  /** bound values in placeholder order (empty for literal-encoding dialects) */
  params: SqlParam[];
  /** result columns: BUCKET_COL when hasBucket, KEY_COL when hasKey, SPLIT_COL when hasSplit, then one per atom */
  hasBucket: boolean;
  hasKey: boolean;
  hasSplit: boolean;
  atoms: Atom[];
}

// Result column names are never column names of a table a query reads: ClickHouse resolves a name
// anywhere in a SELECT (WHERE included) to a SELECT alias of the same name, so `tenant_id AS dim_key`
// turned the rollup filter `dim_key = '/'` into `tenant_id = '/'`.
export const BUCKET_COL = 'bucket_ms';
export const KEY_COL = 'o_key';
export const SPLIT_COL = 'o_split_key';
const HOUR_MS = 3_600_000;

const EVENT_ATOMS: readonly Atom[] = ['pageviews', 'events', 'pv_eng_ms'];
const SESSION_ATOMS: readonly Atom[] = ['sessions', 'bounces', 'engaged', 'session_eng_ms', 'entries', 'exits'];

interface Part {
  select: Partial<Record<Atom, string>>;
  bucket?: string;
  key?: string;
  split?: string;
  from: string;
  where: string[];
}

class Compiler extends SqlWriter {
  constructor(
    readonly spec: NormalizedSpec,
    d: Dialect,
    readonly t: TableNames,
    readonly o: CompileOptions = {},
  ) {
    super(d, o.rowFilter);
  }

  /** Visibility of events `e` (their joined sessions are visible by construction: eventsFrom). */
  eventsVisible(): string[] {
    return this.visible(['events', 'e']);
  }

  isPageview(alias: string): string {
    return `${this.col(alias, 'type')} = ${this.v('pageview')}`;
  }
  get intervalSize(): number | undefined {
    return this.spec.interval === 'day' ? DAY_MS : this.spec.interval === 'hour' ? HOUR_MS : undefined;
  }
  get dim(): Dimension | undefined {
    return this.spec.dimension;
  }
  get pageFilter(): string | null | undefined {
    return 'page' in this.spec.filters ? this.spec.filters.page : undefined;
  }

  /** Site, window, traffic and tenant scope of either table. */
  scope(alias: string, tsCol: string): string[] {
    return this.inScope(alias, tsCol, this.spec, this.spec.startMs, this.spec.endMs);
  }

  /** Filters on session attributes and tenant, from the alias that holds them. */
  attributeFilters(sessionAlias: string, tenantAlias: string): string[] {
    const out: string[] = [];
    for (const [name, value] of Object.entries(this.spec.filters) as [Dimension, string | null][]) {
      const def = DIMENSION_DEFS[name];
      if (def.scope === 'session') out.push(this.eq(this.col(sessionAlias, def.column), value));
      if (def.scope === 'tenant') out.push(this.eq(this.col(tenantAlias, def.column), value));
    }
    return out;
  }

  needsSessionJoin(): boolean {
    const usesSession = (d: Dimension) => DIMENSION_DEFS[d].scope === 'session';
    return (
      (this.dim !== undefined && usesSession(this.dim)) ||
      this.spec.splitBy !== undefined ||
      (Object.keys(this.spec.filters) as Dimension[]).some(usesSession)
    );
  }

  /** events e, joined to their session when a session attribute is read. */
  eventsFrom(): string {
    const from = this.table(this.t.events, 'e');
    if (!this.needsSessionJoin()) return from;
    const used = [this.dim, this.spec.splitBy, ...(Object.keys(this.spec.filters) as Dimension[])]
      .filter((d): d is Dimension => d !== undefined && DIMENSION_DEFS[d].scope === 'session')
      .map((d) => DIMENSION_DEFS[d].column);
    const sessions = this.sessionsOf(this.t.sessions, this.spec, this.spec.startMs, this.spec.endMs, used);
    return `${from} LEFT JOIN ${sessions} AS s ON ${this.col('s', 'session_id')} = ${this.col('e', 'session_id')}`;
  }

  /** The split key (always a session attribute) read from the sessions `s` of any part. */
  splitKey(): string | undefined {
    return this.spec.splitBy ? this.col('s', DIMENSION_DEFS[this.spec.splitBy].column) : undefined;
  }

  eventKey(): string | undefined {
    if (!this.dim) return undefined;
    const def = DIMENSION_DEFS[this.dim];
    return this.col(def.scope === 'session' ? 's' : 'e', def.column);
  }

  /** pageviews, events, pv_eng_ms: every event in scope; a page filter keeps events of that page. */
  eventPart(atoms: Atom[]): Part {
    // expressions are built only for requested atoms: an unused placeholder would break binding
    const all: Record<string, () => string> = {
      pageviews: () => this.sumIf(this.isPageview('e')),
      events: () => 'count(*)',
      pv_eng_ms: () => this.sumIf(this.isPageview('e'), this.col('e', 'engagement_time_ms')),
    };
    const where = [...this.scope('e', 'ts_ms'), ...this.attributeFilters('s', 'e'), ...this.eventsVisible()];
    if (this.pageFilter !== undefined) where.push(this.eq(this.col('e', 'path_canon'), this.pageFilter));
    if (this.dim && this.spec.keyIn) where.push(this.inList(this.eventKey()!, this.spec.keyIn));
    return {
      select: Object.fromEntries(atoms.map((a) => [a, all[a]()])),
      bucket: this.intervalSize ? this.bucket(this.col('e', 'ts_ms'), this.intervalSize) : undefined,
      key: this.eventKey(),
      split: this.splitKey(),
      from: this.eventsFrom(),
      where,
    };
  }

  /**
   * visitors: distinct keys per UTC day (per hour in hourly series), summed. Reading a page means
   * viewing it, so a page dimension or filter counts pageviews only.
   */
  visitorPart(): Part {
    const where = [...this.scope('e', 'ts_ms'), ...this.attributeFilters('s', 'e'), ...this.eventsVisible()];
    const pageScoped = this.dim === 'page' || this.pageFilter !== undefined;
    if (pageScoped) where.push(this.isPageview('e'));
    if (this.pageFilter !== undefined) where.push(this.eq(this.col('e', 'path_canon'), this.pageFilter));
    if (this.dim && this.spec.keyIn) where.push(this.inList(this.eventKey()!, this.spec.keyIn));
    const unit = this.spec.interval === 'hour' ? HOUR_MS : DAY_MS;
    const key = this.eventKey();
    const split = this.splitKey();
    const inner = [
      `${this.bucket(this.col('e', 'ts_ms'), unit)} AS vb`,
      ...(key ? [`${key} AS ${KEY_COL}`] : []),
      ...(split ? [`${split} AS ${SPLIT_COL}`] : []),
      `${this.d.toInt64(this.d.countDistinct(this.col('e', 'visitor_key')))} AS visitors`,
    ];
    const groupBy = ['vb', ...(key ? [KEY_COL] : []), ...(split ? [SPLIT_COL] : [])];
    const sub = `(SELECT ${inner.join(', ')} FROM ${this.eventsFrom()} WHERE ${where.join(' AND ')} GROUP BY ${groupBy.join(', ')}) AS v`;
    return {
      select: { visitors: 'sum(v.visitors)' },
      // the hour or day bucket of a series is the visitor unit itself
      bucket: this.intervalSize ? 'v.vb' : undefined,
      key: key ? `v.${KEY_COL}` : undefined,
      split: split ? `v.${SPLIT_COL}` : undefined,
      from: sub,
      where: [],
    };
  }

  /** Pages viewed per session, for sessions by page: (session_id, path_canon) pairs of pageviews. */
  viewedPages(): string {
    // sessions never cross 00:00 UTC, so their pageviews lie within a day of the window's end
    const where = [
      `${this.col('pe', 'site_id')} = ${this.v(this.spec.siteId)}`,
      `${this.col('pe', 'ts_ms')} >= ${this.v(this.spec.startMs)}`,
      `${this.col('pe', 'ts_ms')} < ${this.v(this.spec.endMs + DAY_MS)}`,
      this.isPageview('pe'),
      ...this.visible(['events', 'pe']),
    ];
    if (this.pageFilter !== undefined) where.push(this.eq(this.col('pe', 'path_canon'), this.pageFilter));
    if (this.dim === 'page' && this.spec.keyIn) where.push(this.inList(this.col('pe', 'path_canon'), this.spec.keyIn));
    return `(SELECT DISTINCT ${this.col('pe', 'session_id')} AS session_id, ${this.col('pe', 'path_canon')} AS path_canon FROM ${this.table(this.t.events, 'pe')} WHERE ${where.join(' AND ')})`;
  }

  /**
   * Session atoms, by session start. A page dimension or filter counts sessions with a pageview of
   * the page; entries and exits then count sessions whose entry (exit) page it is.
   */
  sessionPart(atoms: Atom[]): Part {
    const pageDim = this.dim === 'page';
    const pf = this.pageFilter;
    const landing = (column: string) => (pf !== undefined ? this.eq(this.col('s', column), pf) : `${this.col('s', column)} IS NOT NULL`);
    const all: Record<string, () => string> = {
      sessions: () => 'count(*)',
      bounces: () => this.sumIf(this.d.isTrue(this.col('s', 'is_bounce'))),
      engaged: () => this.sumIf(this.d.isTrue(this.col('s', 'is_engaged'))),
      session_eng_ms: () => `sum(${this.col('s', 'engagement_ms')})`,
      entries: () => this.sumIf(landing('entry_page')),
      exits: () => this.sumIf(landing('exit_page')),
    };
    let from = this.table(this.t.sessions, 's');
    const where = [...this.scope('s', 'start_ms'), ...this.attributeFilters('s', 's'), ...this.visible(['sessions', 's'])];
    let key: string | undefined;
    if (pageDim) {
      from += ` INNER JOIN ${this.viewedPages()} AS p ON p.session_id = ${this.col('s', 'session_id')}`;
      key = 'p.path_canon';
    } else {
      if (pf !== undefined) where.push(`${this.col('s', 'session_id')} IN (SELECT session_id FROM ${this.viewedPages()} AS vp)`);
      if (this.dim) {
        key = this.col('s', DIMENSION_DEFS[this.dim].column);
        if (this.spec.keyIn) where.push(this.inList(key, this.spec.keyIn));
      }
    }
    return {
      select: Object.fromEntries(atoms.map((a) => [a, all[a]()])),
      bucket: this.intervalSize ? this.bucket(this.col('s', 'start_ms'), this.intervalSize) : undefined,
      key,
      split: this.splitKey(),
      from,
      where,
    };
  }

  /** Entries (exits) by page: sessions grouped by their entry (exit) page. */
  landingPart(atom: 'entries' | 'exits'): Part {
    const column = atom === 'entries' ? 'entry_page' : 'exit_page';
    const key = this.col('s', column);
    const where = [
      ...this.scope('s', 'start_ms'),
      ...this.attributeFilters('s', 's'),
      ...this.visible(['sessions', 's']),
      `${key} IS NOT NULL`,
    ];
    if (this.pageFilter !== undefined) where.push(this.eq(key, this.pageFilter));
    if (this.spec.keyIn) where.push(this.inList(key, this.spec.keyIn));
    return {
      select: { [atom]: 'count(*)' },
      bucket: this.intervalSize ? this.bucket(this.col('s', 'start_ms'), this.intervalSize) : undefined,
      key,
      split: this.splitKey(),
      from: this.table(this.t.sessions, 's'),
      where,
    };
  }

  parts(atoms: Atom[]): Part[] {
    const parts: Part[] = [];
    const eventAtoms = atoms.filter((a) => EVENT_ATOMS.includes(a));
    if (eventAtoms.length) parts.push(this.eventPart(eventAtoms));
    if (atoms.includes('visitors')) parts.push(this.visitorPart());
    const landing = this.dim === 'page' ? (['entries', 'exits'] as const).filter((a) => atoms.includes(a)) : [];
    const sessionAtoms = atoms.filter((a) => SESSION_ATOMS.includes(a) && !(landing as readonly Atom[]).includes(a));
    if (sessionAtoms.length) parts.push(this.sessionPart(sessionAtoms));
    for (const a of landing) parts.push(this.landingPart(a));
    return parts;
  }

  renderPart(p: Part, atoms: Atom[]): string {
    const cols: string[] = [];
    const group: string[] = [];
    if (this.intervalSize) {
      cols.push(`${this.d.toInt64(p.bucket!)} AS ${BUCKET_COL}`);
      group.push(BUCKET_COL);
    }
    if (this.dim) {
      cols.push(`${p.key!} AS ${KEY_COL}`);
      group.push(KEY_COL);
    }
    if (this.spec.splitBy) {
      cols.push(`${p.split!} AS ${SPLIT_COL}`);
      group.push(SPLIT_COL);
    }
    for (const a of atoms) cols.push(`${this.d.toInt64(p.select[a] ?? '0')} AS ${a}`);
    const where = p.where.length ? ` WHERE ${p.where.join(' AND ')}` : '';
    const groupBy = group.length ? ` GROUP BY ${group.join(', ')}` : '';
    return `SELECT ${cols.join(', ')} FROM ${p.from}${where}${groupBy}`;
  }

  compile(): CompiledQuery {
    const atoms = atomsFor(this.spec.metrics);
    const body = this.parts(atoms)
      .map((p) => this.renderPart(p, atoms))
      .join(' UNION ALL ');
    const outer: string[] = [];
    const group: string[] = [];
    if (this.intervalSize) {
      outer.push(`t.${BUCKET_COL} AS ${BUCKET_COL}`);
      group.push(`t.${BUCKET_COL}`);
    }
    if (this.dim) {
      outer.push(`t.${KEY_COL} AS ${KEY_COL}`);
      group.push(`t.${KEY_COL}`);
    }
    if (this.spec.splitBy) {
      outer.push(`t.${SPLIT_COL} AS ${SPLIT_COL}`);
      group.push(`t.${SPLIT_COL}`);
    }
    for (const a of atoms) outer.push(`${this.d.toInt64(`sum(t.${a})`)} AS ${a}`);
    let sql = `SELECT ${outer.join(', ')} FROM (${body}) AS t`;
    if (group.length) sql += ` GROUP BY ${group.join(', ')}`;
    const shape = {
      hasBucket: this.intervalSize !== undefined,
      hasKey: this.dim !== undefined,
      hasSplit: this.spec.splitBy !== undefined,
      atoms,
    };
    if (this.o.partial) return { sql, params: this.params, ...shape };
    if (this.dim) sql += ` HAVING ${this.total(presenceAtom(this.spec.orderBy))} <> 0`;
    const order: string[] = [];
    if (this.intervalSize) order.push(`t.${BUCKET_COL} ASC`);
    if (this.dim) order.push(`${this.orderValue()} DESC`, `t.${KEY_COL} ASC NULLS LAST`);
    if (this.spec.splitBy) order.push(`t.${SPLIT_COL} ASC NULLS LAST`);
    if (order.length) sql += ` ORDER BY ${order.join(', ')}`;
    if (this.spec.limit !== undefined) sql += ` LIMIT ${this.v(this.spec.limit)}`;
    return { sql, params: this.params, ...shape };
  }

  /** The sort value, computed as the assemble stage does: integer sums, or a double quotient. */
  orderValue(): string {
    const def = METRIC_DEFS[this.spec.orderBy];
    if (def.kind === 'count') return this.total(def.atom);
    const num = this.d.toFloat64(this.total(def.numerator));
    const den = this.d.toFloat64(this.total(def.denominator));
    return `(CASE WHEN ${this.total(def.denominator)} = 0 THEN 0 ELSE ${num} / ${den} END)`;
  }

  /** An atom's total in the outer query's HAVING and ORDER BY. */
  total(atom: Atom): string {
    return this.d.atomTotal ? this.d.atomTotal(atom) : `sum(t.${atom})`;
  }
}

/** Compiles a normalized spec: one statement, all values via the dialect's value hook. */
export function compileQuery(
  spec: NormalizedSpec,
  dialect: Dialect,
  tables: TableNames = DEFAULT_TABLES,
  options: CompileOptions = {},
): CompiledQuery {
  return new Compiler(spec, dialect, tables, options).compile();
}
