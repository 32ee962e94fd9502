// A string as a DuckDB SQL literal, for the few statements that take no bound values (the file a
// read_json reads, a VALUES list of days); query values are bound (sql/dialect.ts).
export function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
