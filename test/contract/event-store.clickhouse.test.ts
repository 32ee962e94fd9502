// The EventStore suite against live ClickHouse: one server, and a Distributed table over two shards.
import { test } from 'node:test';
import { openScratch, skipReason, type Topology } from '../engines/clickhouse-scratch.js';
import { runEventStoreContract } from './event-store.contract.js';

for (const topology of ['single', 'cluster'] as Topology[]) {
  const skip = skipReason(topology);
  if (skip) {
    test(`clickhouse ${topology} event store contract`, { skip }, () => {});
    continue;
  }
  runEventStoreContract(`clickhouse ${topology}`, async () => {
    const ch = await openScratch(topology);
    return { store: ch.store, close: () => ch.close() };
  });
}
