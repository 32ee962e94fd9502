// ReportQueryRunner over DuckDB: the same connections, binding and fault mapping as the DuckDB
// AnalyticsEngine (engines/duckdb/analytics-engine.ts). Wired by the container next to that engine.
import { BIGINT, BOOLEAN, DOUBLE, VARCHAR, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import { EngineError } from '../../../domain/errors.js';
import type { DuckConnection } from '../../../engines/duckdb/analytics-engine.js';
import { duckdbDialect, type ParamType, type SqlParam } from '../../../engines/sql/dialect.js';
import type { RunOptions } from '../../../ports/analytics-engine.js';
import type { CompiledReportQuery, ReportQueryRunner } from './report-query-runner.js';

const TYPES: Record<ParamType, DuckDBType> = { varchar: VARCHAR, bigint: BIGINT, double: DOUBLE, boolean: BOOLEAN };

function bindValue(p: SqlParam): DuckDBValue {
  if (p.value === null) return null;
  return p.type === 'bigint' ? BigInt(p.value as number) : (p.value as DuckDBValue);
}

const QUERY_BUG = /(Parser|Binder|Conversion|Not implemented|Type Mismatch|Invalid Input) Error/;

export function duckdbReportRunner<C extends DuckConnection>(opts: { connect: () => Promise<C>; release?: (c: C) => void }): ReportQueryRunner {
  return {
    dialect: duckdbDialect,
    async rows(query: CompiledReportQuery, options: RunOptions) {
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
      }, options.timeoutMs);
      try {
        const stmt = await conn.prepare(query.sql);
        stmt.bind(query.params.map(bindValue), query.params.map((p) => TYPES[p.type]));
        return (await stmt.runAndReadAll()).getRowObjectsJS();
      } catch (e) {
        if (timedOut || (e instanceof Error && /interrupt/i.test(e.message))) throw new EngineError('timeout', e);
        if (e instanceof Error && QUERY_BUG.test(e.message)) throw e;
        throw new EngineError('unavailable', e);
      } finally {
        clearTimeout(timer);
        opts.release?.(conn);
      }
    },
  };
}
