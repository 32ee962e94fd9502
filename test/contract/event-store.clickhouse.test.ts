// The EventStore suite against live ClickHouse: one server, and two shards.
import { test } from 'node:test';
import { committedRows, openScratch, skipReason, type Topology } from '../engines/clickhouse-scratch.js';
import { runEventStoreContract } from './event-store.contract.js';
import { encodeClickHouseLiteral } from '../../src/engines/sql/clickhouse-literal.js';
import { EVENT_ROW_FIELDS, type EventRow } from '../../src/ports/event-store.js';

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
      // the visible rows: each day's current generation in each server's commit log
      engagementOf: async (site) => {
        const rows = await committedRows<{ event_id: string; ms: number }>(ch, ch.layout.events, 'event_id, engagement_time_ms AS ms', `site_id = ${encodeClickHouseLiteral(site)}`);
        return new Map(rows.map((r) => [r.event_id, Number(r.ms)]));
      },
      rowsOf: async (site) => {
        const rows = await committedRows<Record<string, unknown>>(ch, ch.layout.events, EVENT_ROW_FIELDS.join(', '), `site_id = ${encodeClickHouseLiteral(site)}`);
        return rows.map((r) => ({ ...r, has_click_id: r.has_click_id === 1, ts_ms: Number(r.ts_ms), engagement_time_ms: Number(r.engagement_time_ms) }) as unknown as EventRow);
      },
      close: () => ch.close(),
    };
  });
}
