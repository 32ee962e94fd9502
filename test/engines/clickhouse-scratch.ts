// A throw-away database per test on the live ClickHouse servers the env names
// (FOOTFALL_TEST_CLICKHOUSE_URL, and for the two-shard suites FOOTFALL_TEST_CLICKHOUSE_SHARD2_URL +
// FOOTFALL_TEST_CLICKHOUSE_CLUSTER), dropped afterwards.
import { randomBytes } from 'node:crypto';
import { ClickHouseNode } from '../../src/engines/clickhouse/node.js';
import { openClickHouse, type OpenedClickHouse } from '../../src/engines/clickhouse/open-clickhouse.js';
import { ident } from '../../src/engines/clickhouse/schema.js';
import { needs } from '../helpers/services.js';

const env = (k: string) => process.env[k] || undefined;
export const CH_URL = env('FOOTFALL_TEST_CLICKHOUSE_URL');
export const CH_SHARD2_URL = env('FOOTFALL_TEST_CLICKHOUSE_SHARD2_URL');
export const CH_CLUSTER = env('FOOTFALL_TEST_CLICKHOUSE_CLUSTER');

export type Topology = 'single' | 'cluster';

const VARS: Record<Topology, string[]> = {
  single: ['FOOTFALL_TEST_CLICKHOUSE_URL'],
  cluster: ['FOOTFALL_TEST_CLICKHOUSE_URL', 'FOOTFALL_TEST_CLICKHOUSE_SHARD2_URL', 'FOOTFALL_TEST_CLICKHOUSE_CLUSTER'],
};

/** Whether a topology can run here, or why not; where the services must run, a missing one is an error. */
export function skipReason(t: Topology): string | false {
  return needs(...VARS[t]);
}

/** What a topology lacks here (false: nothing), whatever the environment requires: for the benches. */
export function clickHouseMissing(t: Topology): string | false {
  const missing = VARS[t].filter((v) => !env(v));
  return missing.length ? `${missing.join(', ')} not set (scripts/services.sh start prints them)` : false;
}

function hostOf(url: string): string {
  const m = /^clickhouse\+https?:\/\/([^/?]+)/.exec(url);
  if (!m) throw new Error(`not a clickhouse URL: ${url}`);
  return m[1];
}

export interface Scratch {
  url: string;
  database: string;
  drop(): Promise<void>;
}

export function scratchUrl(t: Topology): Scratch {
  const database = `ff_test_${randomBytes(6).toString('hex')}`;
  const hosts = t === 'single' ? [hostOf(CH_URL!)] : [hostOf(CH_URL!), hostOf(CH_SHARD2_URL!)];
  const scheme = CH_URL!.startsWith('clickhouse+https') ? 'https' : 'http';
  const url = `clickhouse+${scheme}://${hosts.join(',')}/${database}${t === 'cluster' ? `?cluster=${CH_CLUSTER}` : ''}`;
  return {
    url,
    database,
    drop: async () => {
      for (const h of hosts) {
        const n = new ClickHouseNode({ url: `${scheme}://${h}`, database: 'default', username: 'default', password: '' });
        try {
          await n.command(`DROP DATABASE IF EXISTS \`${database}\``);
        } finally {
          await n.close();
        }
      }
    },
  };
}

/** Opens a store on a fresh database; close() closes it and drops the database. */
export async function openScratch(t: Topology): Promise<OpenedClickHouse & { scratch: Scratch }> {
  const scratch = scratchUrl(t);
  const opened = await openClickHouse(scratch.url);
  return {
    ...opened,
    scratch,
    close: async () => {
      await opened.close();
      await scratch.drop();
    },
  };
}

/** Empties every table of the store on every server (a fresh start without new DDL). */
export async function truncate(ch: OpenedClickHouse): Promise<void> {
  const L = ch.layout;
  for (const n of ch.nodes)
    for (const t of [L.events, L.sessions, L.rollups, L.titles, L.actions, L.days]) await n.command(`TRUNCATE TABLE ${ident(t)}`);
}

/**
 * Rows of a store table that reads can see, from every server: the generation of each (site, day)
 * that server's commit log shows as current. `where` narrows them (SQL on the table's columns).
 */
export async function committedRows<T = Record<string, unknown>>(
  ch: OpenedClickHouse,
  table: string,
  columns: string,
  where = '1',
): Promise<T[]> {
  const out: T[] = [];
  for (const s of ch.shards) {
    const visible = `(site_id, day, gen) IN (SELECT site_id, day, max(gen) FROM ${ident(ch.layout.days)} WHERE shard = ${s.num} GROUP BY site_id, day)`;
    out.push(...(await s.node.query<T>(`SELECT ${columns} FROM ${ident(table)} WHERE ${visible} AND ${where}`)));
  }
  return out;
}
