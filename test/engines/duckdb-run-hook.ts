// Tests that watch (or break) the statements an import sends: every DuckDBConnection.run of the
// process goes through `hook` first while `fn` runs (a throw from it fails that call).
import { DuckDBConnection } from '@duckdb/node-api';

type Run = (sql: string, ...rest: unknown[]) => Promise<unknown>;

export async function withRunHook<T>(
  hook: (sql: string, connection: DuckDBConnection) => void | Promise<void>,
  fn: () => Promise<T>,
): Promise<T> {
  const proto = DuckDBConnection.prototype as unknown as { run: Run };
  const run = proto.run;
  proto.run = async function (this: DuckDBConnection, sql: string, ...rest: unknown[]) {
    await hook(sql, this);
    return run.call(this, sql, ...rest);
  };
  try {
    return await fn();
  } finally {
    proto.run = run;
  }
}
