// The EventStore suite against live ClickHouse: one server, and a Distributed table over two shards.
import { test } from 'node:test';
import { openScratch, skipReason, type Topology } from '../engines/clickhouse-scratch.js';
import { runEventStoreContract } from './event-store.contract.js';
import { encodeClickHouseLiteral } from '../../src/engines/sql/clickhouse-literal.js';

for (const topology of ['single', 'cluster'] as Topology[]) {
  const skip = skipReason(topology);
  if (skip) {
    test(`clickhouse ${topology} event store contract`, { skip }, () => {});
    continue;
  }
  runEventStoreContract(`clickhouse ${topology}`, async () => {
    const ch = await openScratch(topology);
    return {
      store: ch.store,
      // the visible rows: each day's current generation in the commit log
      engagementOf: async (site) => {
        const lit = encodeClickHouseLiteral(site);
        const gens = await ch.nodes[0].query<{ d: string; g: number }>(
          `SELECT toString(day) AS d, max(gen) AS g FROM ${ch.layout.days} WHERE site_id = ${lit} GROUP BY day`,
        );
        if (gens.length === 0) return new Map();
        const visible = gens.map((x) => `(toDate(${encodeClickHouseLiteral(x.d)}), ${encodeClickHouseLiteral(Number(x.g))})`).join(', ');
        const rows = await ch.nodes[0].query<{ event_id: string; ms: number }>(
          `SELECT event_id, engagement_time_ms AS ms FROM ${ch.layout.events} WHERE site_id = ${lit} AND (day, gen) IN (${visible})`,
        );
        return new Map(rows.map((r) => [r.event_id, Number(r.ms)]));
      },
      close: () => ch.close(),
    };
  });
}
