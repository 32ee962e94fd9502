// The EventStore suite against live ClickHouse: one server, and two shards.
import { committedRows, scratchUrl, skipReason, type Topology } from '../engines/clickhouse-scratch.js';
import { runEventStoreContract, type EventStoreUnderTest, type TableRows } from './event-store.contract.js';
import { runLifecycleContract } from './event-store-lifecycle.contract.js';
import { encodeClickHouseLiteral } from '../../src/engines/sql/clickhouse-literal.js';
import { openClickHouse, type OpenedClickHouse } from '../../src/engines/clickhouse/open-clickhouse.js';
import {
  ACTIONS_TABLE_COLUMNS,
  EVENT_COLUMNS,
  ROLLUP_TABLE_COLUMNS,
  SESSION_COLUMNS,
  TITLE_TABLE_COLUMNS,
} from '../../src/engines/clickhouse/schema.js';
import { EVENT_ROW_FIELDS, type EventRow } from '../../src/ports/event-store.js';

/** Every table's visible rows of the site (without generations and import ids) as JSON, with their day. */
async function tables(ch: OpenedClickHouse, site: string): Promise<TableRows> {
  const L = ch.layout;
  // `day` comes as ff_day (an alias named like a column would replace it in committedRows' filter)
  const of = (columns: [string, string][]) =>
    columns
      .map(([c]) => c)
      .filter((c) => c !== 'gen' && c !== 'import_id' && c !== 'day')
      .map((c) => `\`${c}\``)
      .join(', ');
  const sources: Record<string, [string, [string, string][]]> = {
    events: [L.events, EVENT_COLUMNS],
    sessions: [L.sessions, SESSION_COLUMNS],
    rollups: [L.rollups, ROLLUP_TABLE_COLUMNS],
    titles: [L.titles, TITLE_TABLE_COLUMNS],
    actions: [L.actions, ACTIONS_TABLE_COLUMNS],
  };
  const out: TableRows = {};
  for (const [name, [table, columns]] of Object.entries(sources)) {
    const rows = await committedRows<Record<string, unknown>>(
      ch,
      table,
      `toString(day) AS ff_day, ${of(columns)}`,
      `site_id = ${encodeClickHouseLiteral(site)}`,
    );
    out[name] = rows.map(({ ff_day, ...row }) => ({ day: String(ff_day), row: JSON.stringify(row) }));
  }
  return out;
}

async function underTest(topology: Topology): Promise<EventStoreUnderTest> {
  const scratch = scratchUrl(topology);
  let ch = await openClickHouse(scratch.url);
  const where = (site: string) => `site_id = ${encodeClickHouseLiteral(site)}`;
  const sut: EventStoreUnderTest = {
    store: ch.store,
    // the visible rows: each day's current generation in each server's commit log
    engagementOf: async (site) => {
      const rows = await committedRows<{ event_id: string; ms: number }>(
        ch,
        ch.layout.events,
        'event_id, engagement_time_ms AS ms',
        where(site),
      );
      return new Map(rows.map((r) => [r.event_id, Number(r.ms)]));
    },
    rowsOf: async (site) => {
      const rows = await committedRows<Record<string, unknown>>(ch, ch.layout.events, EVENT_ROW_FIELDS.join(', '), where(site));
      return rows.map(
        (r) =>
          ({
            ...r,
            has_click_id: r.has_click_id === 1,
            ts_ms: Number(r.ts_ms),
            engagement_time_ms: Number(r.engagement_time_ms),
          }) as unknown as EventRow,
      );
    },
    importIdsOf: async (site) => {
      const rows = await committedRows<{ event_id: string; import_id: string | null }>(
        ch,
        ch.layout.events,
        'event_id, import_id',
        where(site),
      );
      return new Map(rows.map((r) => [r.event_id, r.import_id]));
    },
    tables: (site) => tables(ch, site),
    location: { kind: 'clickhouse', url: scratch.url },
    release: () => ch.close(),
    reopen: async () => {
      ch = await openClickHouse(scratch.url);
      sut.store = ch.store;
    },
    close: async () => {
      await ch.close();
      await scratch.drop();
    },
  };
  return sut;
}

for (const topology of ['single', 'cluster'] as Topology[]) {
  // without the servers every test of both suites is listed as skipped, with the reason
  const skip = skipReason(topology);
  runEventStoreContract(`clickhouse ${topology}`, () => underTest(topology), { skip });
  runLifecycleContract(`clickhouse ${topology}`, () => underTest(topology), { skip });
}
