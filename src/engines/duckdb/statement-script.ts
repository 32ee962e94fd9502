// Statements of one connection sent to DuckDB together: one call runs them all, in order. Each call
// is a trip through the thread pool whose answer waits for the event loop, and a bound statement
// takes three (extract, prepare, execute); while the server answers a stream of requests a turn of
// the loop lasts milliseconds, so a commit of ~150 statements spent more time waiting for turns than
// running them. Bound values are written into the SQL as literals of their bound type (a statement
// of several can bind none); only the compilers' values (dialect.value) are ever inlined.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { SqlParam } from '../sql/dialect.js';
import { sqlString } from './sql-string.js';

const TYPES = { varchar: 'VARCHAR', bigint: 'BIGINT', double: 'DOUBLE', boolean: 'BOOLEAN' } as const;

/** A bound value as a literal of its type. */
function literal(p: SqlParam): string {
  if (p.value === null) return `CAST(NULL AS ${TYPES[p.type]})`;
  switch (p.type) {
    case 'boolean':
      return p.value ? 'true' : 'false';
    case 'varchar':
      return `CAST(${sqlString(String(p.value))} AS VARCHAR)`;
    case 'bigint':
      return `CAST(${BigInt(p.value as number | string).toString()} AS BIGINT)`;
    case 'double': {
      const n = Number(p.value);
      if (!Number.isFinite(n)) throw new Error(`no literal for the double ${String(p.value)}`);
      return `CAST(${String(n)} AS DOUBLE)`;
    }
  }
}

/** `sql` with its placeholders ($1, $2, ...; dialect.value's) replaced by the literals of `params`. */
export function inlineParams(sql: string, params: readonly SqlParam[]): string {
  if (params.length === 0) return sql;
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const p = params[Number(n) - 1];
    if (p === undefined) throw new Error(`no value for $${n}`);
    return literal(p);
  });
}

/** Statements gathered, then run in one call (run()), in the order they were added. */
export class StatementScript {
  private statements: string[] = [];

  add(sql: string, params: readonly SqlParam[] = []): this {
    this.statements.push(inlineParams(sql, params));
    return this;
  }

  /**
   * Runs what was added and then `query`, in the same call, and returns the query's rows; starts
   * empty again. What an import reads between its statements (counts, mostly) thus costs no call of
   * its own: the statements before it wait in the script until then.
   */
  async read(c: DuckDBConnection, query: string): Promise<unknown[][]> {
    const script = [...this.statements, query].join(';\n');
    this.statements = [];
    return (await c.runAndReadAll(script)).getRowsJS();
  }

  /** Runs what was added (nothing: no call) and starts empty again. */
  async run(c: DuckDBConnection): Promise<void> {
    if (this.statements.length === 0) return;
    const script = this.statements.join(';\n');
    this.statements = [];
    await c.run(script);
  }
}
