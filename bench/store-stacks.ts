// The event stores a bench runs on, in turn: DuckDB in the data dir, then one ClickHouse server and two
// shards when the FOOTFALL_TEST_CLICKHOUSE_* servers are set (scripts/services.sh), each on a scratch
// database. Not a bench itself (no `run`).
import { clickHouseMissing, scratchUrl, type Scratch } from '../test/engines/clickhouse-scratch.js';

export interface StoreStack {
  name: string;
  /** FOOTFALL_EVENTS_URL of the stack (none: DuckDB) */
  eventsUrl?: string;
  /** its scratch database, dropped by the bench */
  scratch?: Scratch;
}

/** DuckDB, and the ClickHouse stacks the environment names (logging the ones it does not). */
export function storeStacks(log: (s: string) => void): StoreStack[] {
  const stacks: StoreStack[] = [{ name: 'DuckDB' }];
  for (const t of ['single', 'cluster'] as const) {
    const skip = clickHouseMissing(t);
    if (skip) log(`ClickHouse ${t}: skipped (${skip})`);
    else {
      const scratch = scratchUrl(t);
      stacks.push({ name: t === 'single' ? 'ClickHouse' : 'ClickHouse x2', eventsUrl: scratch.url, scratch });
    }
  }
  return stacks;
}
