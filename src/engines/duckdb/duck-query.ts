// One statement on a DuckDB connection of its own, bound, under a deadline, with the driver's faults
// mapped to the engine's error kinds. The few driver methods used are declared here (ARCHITECTURE
// principle 3), so tests can fake a failing driver.
import { BIGINT, BOOLEAN, DOUBLE, VARCHAR, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import { EngineError } from '../../domain/errors.js';
import type { ParamType, SqlParam } from '../sql/dialect.js';

export interface DuckPrepared {
  bind(values: DuckDBValue[], types?: DuckDBType[]): void;
  runAndReadAll(): Promise<{ getRowObjectsJS(): Record<string, unknown>[] }>;
}
export interface DuckConnection {
  prepare(sql: string): Promise<DuckPrepared>;
  interrupt(): void;
}

const TYPES: Record<ParamType, DuckDBType> = { varchar: VARCHAR, bigint: BIGINT, double: DOUBLE, boolean: BOOLEAN };

function bindValue(p: SqlParam): DuckDBValue {
  if (p.value === null) return null;
  return p.type === 'bigint' ? BigInt(p.value as number) : (p.value as DuckDBValue);
}

/** The compilers' values (dialect.value) as the driver binds them: the values, and their types. */
export function bindingOf(params: readonly SqlParam[]): [DuckDBValue[], DuckDBType[]] {
  return [params.map(bindValue), params.map((p) => TYPES[p.type])];
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
 * mapped: timeout and unavailable become EngineError, SQL bugs stay plain errors (500).
 */
export async function runDuckQuery<C extends DuckConnection>(
  opts: { connect: () => Promise<C>; release?: (c: C) => void },
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
    stmt.bind(...bindingOf(params));
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
