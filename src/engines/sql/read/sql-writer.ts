// The pieces every SQL text of engines/sql is written with: values only through the Dialect's value
// hook, identifiers only through quoteIdent, and one rule for lists that may hold the "none" key.
// The QuerySpec compiler, the rollup reads and the report reads all extend or use this one writer.
import { DAY_MS } from '../../../domain/report-range.js';
import type { ReadScope } from '../../../ports/analytics-engine.js';
import type { Dialect, SqlParam, SqlValue } from '../dialect.js';

/** A statement with its bound values in placeholder order (empty for literal-encoding dialects). */
export interface CompiledSql {
  sql: string;
  params: SqlParam[];
}

/**
 * A condition every row read from a table under an alias must meet (e.g. a store's rule for which
 * rows are committed), or null for none. `table` is the logical table read.
 */
export type RowFilter = (table: LogicalTable, alias: string) => string | null;
export type LogicalTable = 'events' | 'sessions' | 'rollups' | 'titles' | 'actions';

/** Integer constants of the compilers (bucket sizes); request values go through the value hook. */
export function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError(`not an integer constant: ${n}`);
  return String(n);
}

export class SqlWriter {
  readonly params: SqlParam[] = [];
  constructor(
    readonly d: Dialect,
    readonly rowFilter?: RowFilter,
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
  /** `expr = value`, or IS NULL for the "none" key */
  eq(expr: string, value: string | null): string {
    return value === null ? `${expr} IS NULL` : `${expr} = ${this.v(value)}`;
  }
  /** `expr` is one of the values; null in the list matches NULL; an empty list matches nothing */
  inList(expr: string, values: readonly (string | null)[]): string {
    const strings = values.filter((x): x is string => x !== null);
    const ors: string[] = [];
    if (strings.length) ors.push(`${expr} IN (${strings.map((x) => this.v(x)).join(', ')})`);
    if (strings.length !== values.length) ors.push(`${expr} IS NULL`);
    return ors.length ? `(${ors.join(' OR ')})` : '1 = 0';
  }
  sumIf(cond: string, expr = '1'): string {
    return `sum(CASE WHEN ${cond} THEN ${expr} ELSE 0 END)`;
  }
  int64(expr: string): string {
    return this.d.toInt64(expr);
  }
  /** the start of the `size`-ms bucket holding a ms timestamp */
  bucket(tsExpr: string, size: number): string {
    return `${this.d.intDiv(tsExpr, int(size))} * ${int(size)}`;
  }
  dayBucket(tsExpr: string): string {
    return this.int64(this.bucket(tsExpr, DAY_MS));
  }
  /**
   * Site, window, traffic and tenant scope of a table read (docs/metrics.md "Scope of every query"):
   * `tsCol` is the row's time (events: ts_ms, sessions: start_ms).
   */
  inScope(alias: string, tsCol: string, scope: ReadScope, startMs: number, endMs: number): string[] {
    const out = [
      `${this.col(alias, 'site_id')} = ${this.v(scope.siteId)}`,
      `${this.col(alias, tsCol)} >= ${this.v(startMs)}`,
      `${this.col(alias, tsCol)} <= ${this.v(endMs)}`,
      this.inList(this.col(alias, 'traffic_class'), scope.trafficClasses),
    ];
    if (scope.tenantIds !== null) out.push(this.inList(this.col(alias, 'tenant_id'), scope.tenantIds));
    return out;
  }
  /**
   * The sessions events of the scope's site and window may belong to, with only `columns`, as a
   * relation to join as `s` (sessions never cross midnight UTC, so they lie in the window's days).
   * A derived table, not the table itself: engines that build the joined side in full (ClickHouse)
   * then hold only these rows.
   */
  sessionsOf(table: string, scope: ReadScope, startMs: number, endMs: number, columns: readonly string[]): string {
    const where = [
      `${this.col('s0', 'site_id')} = ${this.v(scope.siteId)}`,
      `${this.col('s0', 'start_ms')} >= ${this.v(Math.floor(startMs / DAY_MS) * DAY_MS)}`,
      `${this.col('s0', 'start_ms')} < ${this.v((Math.floor(endMs / DAY_MS) + 1) * DAY_MS)}`,
      ...this.visible(['sessions', 's0']),
    ];
    const cols = [...new Set(['session_id', ...columns])].map((c) => `${this.col('s0', c)} AS ${this.d.quoteIdent(c)}`);
    return `(SELECT ${cols.join(', ')} FROM ${this.table(table, 's0')} WHERE ${where.join(' AND ')})`;
  }
  /** The row filter's conditions for the given (table, alias) reads. */
  visible(...reads: [LogicalTable, string][]): string[] {
    if (!this.rowFilter) return [];
    return reads.map(([table, alias]) => this.rowFilter!(table, alias)).filter((c): c is string => c !== null);
  }
  done(sql: string): CompiledSql {
    return { sql, params: this.params };
  }
}
