// The few places SQL engines differ. The compiler (read/compile-query.ts) writes everything else once.
import { encodeClickHouseLiteral } from './clickhouse-literal.js';

export type SqlValue = string | number | boolean | null;
export type ParamType = 'varchar' | 'bigint' | 'double' | 'boolean';

/** A bound parameter (engines that bind) with the type it binds as. */
export interface SqlParam {
  value: SqlValue;
  type: ParamType;
}

export interface Dialect {
  readonly name: string;
  quoteIdent(name: string): string;
  /**
   * The ONLY way a value enters SQL: returns a placeholder and appends to `params` (binding engines),
   * or returns an encoded literal (engines without server-side parameters).
   */
  value(v: SqlValue, params: SqlParam[]): string;
  /** floor(expr / divisor) on non-negative integers, as a signed 64-bit integer */
  intDiv(expr: string, divisor: string): string;
  /** exact distinct count (never an estimate) of the non-NULL values; 0 when there are none */
  countDistinct(expr: string): string;
  toInt64(expr: string): string;
  toFloat64(expr: string): string;
  /** a boolean column used as a condition (ClickHouse stores them as UInt8) */
  isTrue(expr: string): string;
  /** the value of `value` at the greatest `order` tuple of the group (latest title, latest generation) */
  argMax(value: string, order: readonly string[]): string;
  /** `expr LIKE pattern`, where backslash escapes %, _ and itself in the pattern */
  likeEscaped(expr: string, pattern: string): string;
  /**
   * How the outer query's HAVING and ORDER BY name an atom's total. Unset: aggregate again
   * (sum(t.atom)). ClickHouse resolves `t.atom` there to the SELECT alias of the same name and
   * would nest aggregates, so it names that alias (already the total) instead.
   */
  atomTotal?(atom: string): string;
  /** a NULL of the string type (unions and CASE branches need the type where a dialect cannot infer it) */
  nullString(): string;
  /** the expression as a nullable value (ClickHouse unions need the same Nullable types in every part) */
  nullable(expr: string): string;
  /** bitwise OR over a group of non-negative integers (class masks of rollup visitors) */
  bitOr(expr: string): string;
  /** bitwise AND of two non-negative integers */
  bitAnd(a: string, b: string): string;
  /** the text in lower case, Unicode-aware (case-insensitive filters of the query API) */
  lower(expr: string): string;
  /** `expr` matches the RE2 pattern anywhere (unanchored, as RE2's partial match) */
  matchesRe2(expr: string, pattern: string): string;
  /** a condition that may be NULL (a nullable column compared) as a plain boolean, NULL meaning false */
  orFalse(cond: string): string;
  /** the value of custom property `key` from the parallel arrays, or NULL when the event has none */
  propValue(keys: string, values: string, key: string): string;
  /** a non-negative integer as its decimal text (a quarter-hour's number in a rollup key) */
  intText(expr: string): string;
  /** GROUP BY GROUPING SETS and GROUPING_ID (ClickHouse 18.16 has neither) */
  readonly groupingSets: boolean;
  /**
   * a FROM item of `table` AS `alias` with one row per custom property of each event: its columns as
   * `alias`.column, the property as p_key and p_value (events without properties have no row)
   */
  propPairs(table: string, alias: string): string;
  /** aggregate: the group's values of `expr` where `cond` holds, as a list (empty or NULL: none) */
  listIf(expr: string, cond: string): string;
  /** the least value of a listIf list at or after `after`, else `never` */
  leastFrom(list: string, after: string, never: string): string;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
function checkIdent(name: string): string {
  // identifiers come from our own registries; anything else is a bug, never user input
  if (!IDENT.test(name)) throw new Error(`refusing identifier ${JSON.stringify(name)}`);
  return name;
}

export function paramType(v: SqlValue): ParamType {
  if (typeof v === 'string' || v === null) return 'varchar';
  if (typeof v === 'boolean') return 'boolean';
  if (!Number.isFinite(v)) throw new RangeError(`not a finite number: ${v}`);
  return Number.isSafeInteger(v) ? 'bigint' : 'double';
}

export const duckdbDialect: Dialect = {
  name: 'duckdb',
  quoteIdent: (name) => `"${checkIdent(name)}"`,
  value(v, params) {
    params.push({ value: v, type: paramType(v) });
    return `$${params.length}`;
  },
  intDiv: (expr, divisor) => `(${expr} // ${divisor})`,
  countDistinct: (expr) => `count(DISTINCT ${expr})`,
  toInt64: (expr) => `CAST(${expr} AS BIGINT)`,
  toFloat64: (expr) => `CAST(${expr} AS DOUBLE)`,
  isTrue: (expr) => expr,
  argMax: (value, order) => `arg_max(${value}, (${order.join(', ')}))`,
  nullString: () => 'CAST(NULL AS VARCHAR)',
  nullable: (expr) => expr,
  bitOr: (expr) => `bit_or(${expr})`,
  bitAnd: (a, b) => `(${a} & ${b})`,
  groupingSets: true,
  lower: (expr) => `lower(${expr})`,
  matchesRe2: (expr, pattern) => `regexp_matches(${expr}, ${pattern})`,
  orFalse: (cond) => `coalesce(${cond}, false)`,
  intText: (expr) => `CAST(${expr} AS VARCHAR)`,
  // several unnest() in one SELECT are zipped: the parallel arrays pair up
  propPairs: (table, alias) => `(SELECT *, unnest(prop_keys) AS p_key, unnest(prop_values) AS p_value FROM ${table}) AS ${alias}`,
  listIf: (expr, cond) => `list(${expr}) FILTER (WHERE ${cond})`,
  leastFrom: (list, after, never) => `coalesce(list_min(list_filter(${list}, x -> x >= ${after})), ${never})`,
  propValue: (keys, values, key) => `(CASE WHEN list_contains(${keys}, ${key}) THEN ${values}[list_position(${keys}, ${key})] END)`,
  likeEscaped: (expr, pattern) => `(${expr} LIKE ${pattern} ESCAPE '\\')`,
};

/**
 * ClickHouse 18.16 has no server-side parameters: every value goes through the audited literal
 * encoder. uniqExact keeps distinct counts exact (uniq would estimate).
 */
export const clickhouseDialect: Dialect = {
  name: 'clickhouse',
  quoteIdent: (name) => `\`${checkIdent(name)}\``,
  value: (v) => encodeClickHouseLiteral(v),
  intDiv: (expr, divisor) => `intDiv(${expr}, ${divisor})`,
  // uniqExact of a Nullable argument is NULL when every value is NULL
  countDistinct: (expr) => `ifNull(uniqExact(${expr}), 0)`,
  toInt64: (expr) => `toInt64(${expr})`,
  toFloat64: (expr) => `toFloat64(${expr})`,
  isTrue: (expr) => `(${expr} = 1)`,
  argMax: (value, order) => `argMax(${value}, tuple(${order.join(', ')}))`,
  // ClickHouse's LIKE escapes with backslash natively
  likeEscaped: (expr, pattern) => `like(${expr}, ${pattern})`,
  atomTotal: (atom) => checkIdent(atom),
  nullString: () => 'CAST(NULL AS Nullable(String))',
  nullable: (expr) => `toNullable(${expr})`,
  bitOr: (expr) => `groupBitOr(${expr})`,
  bitAnd: (a, b) => `bitAnd(${a}, ${b})`,
  groupingSets: false,
  // lower() is ASCII-only in ClickHouse; match() is RE2 as DuckDB's regexp_matches
  lower: (expr) => `lowerUTF8(${expr})`,
  matchesRe2: (expr, pattern) => `match(${expr}, ${pattern})`,
  orFalse: (cond) => `ifNull(${cond}, 0)`,
  intText: (expr) => `toString(${expr})`,
  propPairs: (table, alias) => `${table} AS ${alias} ARRAY JOIN ${alias}.prop_keys AS p_key, ${alias}.prop_values AS p_value`,
  listIf: (expr, cond) => `groupArrayIf(${expr}, ${cond})`,
  // arrayMin is newer than 18.16: the least through arrayReduce, over the list with `never` appended
  leastFrom: (list, after, never) => `arrayReduce('min', arrayPushBack(arrayFilter(x -> x >= ${after}, ${list}), ${never}))`,
  propValue: (keys, values, key) => `if(has(${keys}, ${key}), toNullable(${values}[indexOf(${keys}, ${key})]), NULL)`,
};
