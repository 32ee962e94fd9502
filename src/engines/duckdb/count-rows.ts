import type { DuckDBConnection } from '@duckdb/node-api';

/** How many rows `from` (a table, or any FROM clause) has. */
export async function countRows(c: Pick<DuckDBConnection, 'runAndReadAll'>, from: string): Promise<number> {
  return Number((await c.runAndReadAll(`SELECT count(*) FROM ${from}`)).getRowsJS()[0]?.[0] ?? 0);
}
