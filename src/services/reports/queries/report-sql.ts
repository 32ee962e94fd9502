// Shared pieces of the report queries: value binding and identifiers through the Dialect hooks,
// the scope of the events table, and the one hook the shared Dialect does not have yet
// (escaped LIKE), keyed by dialect name.
import type { Dialect, SqlParam, SqlValue } from '../../../engines/sql/dialect.js';
import type { ReportScope } from '../report-scope.js';

const DAY_MS = 86_400_000;

interface ExtraHooks {
  /** `expr LIKE pattern`, backslash escaping % and _ and itself */
  likeEscaped(expr: string, pattern: string): string;
}

const EXTRA: Record<string, ExtraHooks> = {
  duckdb: {
    likeEscaped: (expr, pattern) => `(${expr} LIKE ${pattern} ESCAPE '\\')`,
  },
  clickhouse: {
    // ClickHouse LIKE escapes with backslash natively
    likeEscaped: (expr, pattern) => `like(${expr}, ${pattern})`,
  },
};

export class ReportSql {
  readonly params: SqlParam[] = [];
  readonly extra: ExtraHooks;
  constructor(readonly d: Dialect) {
    const extra = EXTRA[d.name];
    if (!extra) throw new Error(`report queries have no hooks for dialect ${d.name}`);
    this.extra = extra;
  }
  v(x: SqlValue): string {
    return this.d.value(x, this.params);
  }
  col(alias: string, name: string): string {
    return `${alias}.${this.d.quoteIdent(name)}`;
  }
  table(name: string, alias: string): string {
    return `${this.d.quoteIdent(name)} AS ${alias}`;
  }
  eq(expr: string, value: string | null): string {
    return value === null ? `${expr} IS NULL` : `${expr} = ${this.v(value)}`;
  }
  inList(expr: string, values: readonly (string | null)[]): string {
    const strings = values.filter((x): x is string => x !== null);
    const ors: string[] = [];
    if (strings.length) ors.push(`${expr} IN (${strings.map((x) => this.v(x)).join(', ')})`);
    if (strings.length !== values.length) ors.push(`${expr} IS NULL`);
    return ors.length ? `(${ors.join(' OR ')})` : '1 = 0';
  }
  int(expr: string): string {
    return this.d.toInt64(expr);
  }
  dayBucket(tsExpr: string): string {
    return this.d.toInt64(`${this.d.intDiv(tsExpr, String(DAY_MS))} * ${DAY_MS}`);
  }
  /**
   * Site, window, traffic and tenant scope of the events table: the same rules as the shared
   * compiler's scope (docs/metrics.md "Scope of every query").
   */
  eventScope(alias: string, scope: ReportScope, startMs: number, endMs: number): string[] {
    const out = [
      `${this.col(alias, 'site_id')} = ${this.v(scope.siteId)}`,
      `${this.col(alias, 'ts_ms')} >= ${this.v(startMs)}`,
      `${this.col(alias, 'ts_ms')} <= ${this.v(endMs)}`,
      this.inList(this.col(alias, 'traffic_class'), scope.trafficClasses),
    ];
    if (scope.tenantIds !== null) out.push(this.inList(this.col(alias, 'tenant_id'), scope.tenantIds));
    return out;
  }
}
