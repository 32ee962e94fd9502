// The engine's question: read the rollups? Yes when not switched off (`rollups: false`), the engine
// reads the store's own tables, and the database has the rollups (stores opened by this code always
// do: rollups.ts builds them at open and in every import; tables loaded by hand, e.g. test fixtures,
// do not; the actions rollup is checked on its own). Only reads the rollups could answer pay for the check, and once seen the answer is kept:
// the tables are never dropped while a store is open, only rebuilt in one transaction.
import { VARCHAR } from '@duckdb/node-api';
import type { NormalizedSpec } from '../../domain/query/query-spec.js';
import { ACTIONS_TABLE, ROLLUP_TABLE } from '../sql/rollup-tables.js';
import { DEFAULT_TABLES, type TableNames } from '../sql/read/compile-query.js';
import { planRollup } from '../sql/read/rollup-plan.js';
import type { DuckConnection } from './duck-query.js';
import { LIVE_FROM_KEY, liveFromValue } from './live-days.js';

export interface RollupGate {
  /** the rollups answer this spec exactly and exist */
  forSpec(spec: NormalizedSpec): Promise<boolean>;
  /** the rollup tables (daily_rollups and daily_page_titles, made together) exist */
  available(): Promise<boolean>;
  /** the actions rollup (daily_actions) exists */
  actions(): Promise<boolean>;
  /** the store's first live day as stored (live-days.ts), read each time; null: none, or not the store's own tables */
  liveFrom(): Promise<number | null>;
}

export function rollupGate<C extends DuckConnection>(opts: {
  connect: () => Promise<C>;
  release?: (c: C) => void;
  tables?: TableNames;
  rollups?: boolean;
}): RollupGate {
  const seen = new Set<string>();
  const own = !opts.tables || (opts.tables.events === DEFAULT_TABLES.events && opts.tables.sessions === DEFAULT_TABLES.sessions);
  /**
   * The first row's `column` of a statement with one text parameter, on a connection of the pool;
   * undefined when there is no row or anything fails (the read that follows reports a fault of the
   * store as the engine always has).
   */
  const oneValue = async (sql: string, param: string, column: string): Promise<unknown> => {
    let conn: C;
    try {
      conn = await opts.connect();
    } catch {
      return undefined;
    }
    try {
      const stmt = await conn.prepare(sql);
      stmt.bind([param], [VARCHAR]);
      return (await stmt.runAndReadAll()).getRowObjectsJS()[0]?.[column];
    } catch {
      return undefined;
    } finally {
      opts.release?.(conn);
    }
  };
  const exists = async (table: string) => {
    if (opts.rollups === false || !own) return false;
    if (seen.has(table)) return true;
    const found =
      Number((await oneValue(`SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = $1 AND NOT temporary`, table, 'n')) ?? 0) > 0;
    if (found) seen.add(table);
    return found;
  };
  const available = () => exists(ROLLUP_TABLE);
  // tables loaded by hand (test fixtures) have no footfall_meta: no value, nothing is live
  const liveFrom = async () =>
    opts.rollups === false || !own
      ? null
      : liveFromValue(await oneValue(`SELECT value FROM footfall_meta WHERE key = $1`, LIVE_FROM_KEY, 'value'));
  return {
    available,
    liveFrom,
    actions: () => exists(ACTIONS_TABLE),
    forSpec: async (spec) => planRollup(spec).use === 'rollup' && (await available()),
  };
}
