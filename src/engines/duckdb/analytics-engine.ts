// AnalyticsEngine over DuckDB: the shared compiler's SQL, run as prepared statements with bound
// parameters. The store (tables, imports) belongs to the rest of engines/duckdb/.
import { BIGINT, BOOLEAN, DOUBLE, VARCHAR, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import { EngineError } from '../../domain/errors.js';
import { assembleRows, zeroAtoms, type AtomRow, type MetricRow } from '../../domain/query/assemble.js';
import { normalizeSpec, type QuerySpec } from '../../domain/query/query-spec.js';
import type { AnalyticsEngine, RunOptions } from '../../ports/analytics-engine.js';
import { BUCKET_COL, KEY_COL, DEFAULT_TABLES, type TableNames } from '../sql/compile-query.js';
import { duckdbDialect, type ParamType, type SqlParam } from '../sql/dialect.js';
import { compileSpec } from '../sql/compile-rollup.js';
import { rollupGate } from './rollups.js';

/** The few driver methods used (ARCHITECTURE principle 3), so tests can fake a failing driver. */
export interface DuckPrepared {
  bind(values: DuckDBValue[], types?: DuckDBType[]): void;
  runAndReadAll(): Promise<{ getRowObjectsJS(): Record<string, unknown>[] }>;
}
export interface DuckConnection {
  prepare(sql: string): Promise<DuckPrepared>;
  interrupt(): void;
}

export interface DuckDbAnalyticsEngineOptions<C extends DuckConnection = DuckConnection> {
  /**
   * A connection for one query. Queries run one at a time per connection (interrupt() stops
   * whatever runs on it), so a pool or a fresh connection per call is the caller's choice.
   */
  connect: () => Promise<C>;
  /** every connection from connect() comes back here after its query (e.g. closeSync, or a pool) */
  release?: (c: C) => void;
  tables?: TableNames;
  /** false: never read the daily rollups (comparisons, benches); default: read them where exact */
  rollups?: boolean;
}

const TYPES: Record<ParamType, DuckDBType> = { varchar: VARCHAR, bigint: BIGINT, double: DOUBLE, boolean: BOOLEAN };

function bindValue(p: SqlParam): DuckDBValue {
  if (p.value === null) return null;
  return p.type === 'bigint' ? BigInt(p.value as number) : (p.value as DuckDBValue);
}

function toNumber(v: unknown): number {
  if (typeof v === 'bigint') {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) throw new Error(`integer out of exact range: ${v}`);
    return n;
  }
  if (typeof v === 'number') return v;
  if (v === null || v === undefined) return 0;
  throw new Error(`unexpected numeric value ${String(v)}`);
}

function isTimeoutError(e: unknown): boolean {
  return e instanceof Error && /interrupt/i.test(e.message);
}

/** Errors in the SQL itself are bugs (500), not an unavailable store (503). */
function isQueryBug(e: unknown): boolean {
  return e instanceof Error && /(Parser|Binder|Conversion|Not implemented|Type Mismatch|Invalid Input) Error/.test(e.message);
}

/**
 * One statement on a connection of its own, bound, under a deadline (interrupt), with the faults
 * mapped: timeout and unavailable become EngineError, SQL bugs stay plain errors (500). Shared with
 * the report runner (report-runner.ts).
 */
export async function runDuckQuery<C extends DuckConnection>(
  opts: Pick<DuckDbAnalyticsEngineOptions<C>, 'connect' | 'release'>,
  sql: string,
  params: readonly SqlParam[],
  timeoutMs: number,
): Promise<Record<string, unknown>[]> {
  let conn: C;
  try {
    conn = await opts.connect();
  } catch (e) {
    throw new EngineError('unavailable', e);
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    conn.interrupt();
  }, timeoutMs);
  try {
    const stmt = await conn.prepare(sql);
    stmt.bind(params.map(bindValue), params.map((p) => TYPES[p.type]));
    const reader = await stmt.runAndReadAll();
    return reader.getRowObjectsJS();
  } catch (e) {
    if (timedOut || isTimeoutError(e)) throw new EngineError('timeout', e);
    if (isQueryBug(e)) throw e;
    throw new EngineError('unavailable', e);
  } finally {
    clearTimeout(timer);
    opts.release?.(conn);
  }
}

export class DuckDbAnalyticsEngine<C extends DuckConnection = DuckConnection> implements AnalyticsEngine {
  private readonly tables: TableNames;
  private readonly useRollups: ReturnType<typeof rollupGate>;
  constructor(private readonly opts: DuckDbAnalyticsEngineOptions<C>) {
    this.tables = opts.tables ?? DEFAULT_TABLES;
    this.useRollups = rollupGate(opts);
  }

  async run(spec: QuerySpec, options: RunOptions): Promise<MetricRow[]> {
    const normalized = normalizeSpec(spec);
    const compiled = compileSpec(normalized, duckdbDialect, this.tables, { rollups: await this.useRollups(normalized) });
    const rows = await this.query(compiled.sql, compiled.params, options.timeoutMs);
    const atomRows: AtomRow[] = rows.map((r) => {
      const atoms = zeroAtoms();
      for (const a of compiled.atoms) atoms[a] = toNumber(r[a]);
      return {
        bucketMs: compiled.hasBucket ? toNumber(r[BUCKET_COL]) : null,
        key: compiled.hasKey ? ((r[KEY_COL] as string | null) ?? null) : null,
        atoms,
      };
    });
    return assembleRows(normalized, atomRows);
  }

  newestEventAt(siteId: string): Promise<Date | null> {
    return this.edge('max', siteId);
  }

  firstEventAt(siteId: string): Promise<Date | null> {
    return this.edge('min', siteId);
  }

  private async edge(fn: 'min' | 'max', siteId: string): Promise<Date | null> {
    const params: SqlParam[] = [];
    const q = duckdbDialect.quoteIdent;
    const sql = `SELECT ${fn}(${q('ts_ms')}) AS edge FROM ${q(this.tables.events)} WHERE ${q('site_id')} = ${duckdbDialect.value(siteId, params)}`;
    const rows = await this.query(sql, params, 30_000);
    const v = rows[0]?.edge;
    return v === null || v === undefined ? null : new Date(toNumber(v));
  }

  private query(sql: string, params: SqlParam[], timeoutMs: number): Promise<Record<string, unknown>[]> {
    return runDuckQuery(this.opts, sql, params, timeoutMs);
  }
}
