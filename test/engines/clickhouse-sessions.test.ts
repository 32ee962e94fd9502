// ClickHouse builds sessions in SQL without window functions (18.16 has none; day-rewrite.ts); DuckDB
// with them (engines/duckdb/sessions-sql.ts). On the same random events, imported at once or in two
// parts, every session row and every event's session id must be equal, on one server and two shards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { SESSION_COLUMNS } from '../../src/engines/clickhouse/schema.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { makeRow } from '../contract/event-store.contract.js';
import { committedRows, openScratch, skipReason, truncate, type Topology } from './clickhouse-scratch.js';
import { runs } from '../helpers/property-runs.js';

const BASE = Date.UTC(2025, 2, 1);
const MIN = 60_000;

/** Events crowded into few keys and instants, so gaps of exactly 30 min, equal times and midnight all occur. */
const rowArb: fc.Arbitrary<Omit<EventRow, 'event_id'>> = fc
  .record({
    site: fc.constantFrom('s1', 's2'),
    tenant: fc.constantFrom(null, 't1'),
    key: fc.constantFrom('k1', 'k2', 'k3'),
    minute: fc.constantFrom(0, 10, 30, 40, 60, 61, 24 * 60 - 5, 24 * 60 + 5, 24 * 60 + 40),
    ms: fc.constantFrom(0, 0, 1, 999),
    type: fc.constantFrom('pageview', 'action') as fc.Arbitrary<'pageview' | 'action'>,
    page: fc.constantFrom(null, '/', '/a', '/é'),
    family: fc.constantFrom('forms', 'errors', 'custom', 'instrumentation'),
    eng: fc.constantFrom(0, 2_000, 10_000),
    channel: fc.constantFrom('Direct', 'Search'),
    country: fc.constantFrom(null, 'DE', 'FR'),
  })
  .map((r) => {
    const { event_id: _id, ...row } = makeRow({
      site_id: r.site,
      tenant_id: r.tenant,
      visitor_key: r.key,
      ts_ms: BASE + r.minute * MIN + r.ms,
      type: r.type,
      path_canon: r.page,
      family: r.type === 'action' ? (r.family as EventRow['family']) : null,
      action_name: r.type === 'action' ? 'x' : null,
      engagement_time_ms: r.eng,
      channel: r.channel as EventRow['channel'],
      country: r.country,
    });
    return row;
  });

type Row = Record<string, unknown>;
const NUMERIC = ['start_ms', 'end_ms', 'pageviews', 'events', 'engagement_ms', 'meaningful_actions'];
const BOOLEAN = ['is_bounce', 'is_engaged'];
const COLUMNS = SESSION_COLUMNS.map(([c]) => c).filter((c) => c !== 'gen');
const plain = (r: Row) =>
  Object.fromEntries(
    COLUMNS.map((c) => [
      c,
      NUMERIC.includes(c) ? Number(r[c]) : BOOLEAN.includes(c) ? Boolean(Number(r[c])) : c === 'day' ? String(r.d ?? r.day) : r[c],
    ]),
  );
const bySession = (a: Row, b: Row) => (String(a.session_id) < String(b.session_id) ? -1 : 1);

for (const topology of ['single', 'cluster'] as Topology[]) {
  test(`clickhouse ${topology}: sessions and session ids equal DuckDB's, in one import or two`, {
    skip: skipReason(topology),
  }, async () => {
    const ch = await openScratch(topology);
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(rowArb, fc.constantFrom('a', 'é', 'A', '\uFFFD', '😀')), { minLength: 1, maxLength: 60 }),
          fc.nat(),
          async (drawn, cut) => {
            // equal times are ordered by event_id bytes: U+FFFD sorts before U+1F600 in bytes, after it in UTF-16
            const rows: EventRow[] = drawn.map(([r, p], i) => ({ ...r, event_id: `${p}${i}` }));
            const split = cut % (rows.length + 1);
            const duck = await openDuckDbEventStore({ file: ':memory:' });
            await truncate(ch);
            try {
              for (const store of [duck, ch.store]) {
                if (split > 0) await store.importBatch(rows.slice(0, split));
                if (split < rows.length) await store.importBatch(rows.slice(split));
              }
              const conn = await duck.instance.connect();
              try {
                const want = (await conn.runAndReadAll(`SELECT * EXCLUDE (day), day::VARCHAR AS day FROM sessions`))
                  .getRowObjectsJS()
                  .map(plain)
                  .sort(bySession);
                const got = (await committedRows(ch, 'sessions', `*, toString(day) AS d`)).map(plain).sort(bySession);
                assert.deepEqual(got, want);
                const ids = (rs: Row[]) => rs.map((r) => `${r.event_id} ${r.session_id}`).sort();
                assert.deepEqual(
                  ids(await committedRows(ch, 'events', 'event_id, session_id')),
                  ids((await conn.runAndReadAll('SELECT event_id, session_id FROM events')).getRowObjectsJS()),
                );
              } finally {
                conn.closeSync();
              }
            } finally {
              await duck.close();
            }
          },
        ),
        { numRuns: runs(15) },
      );
    } finally {
      await ch.close();
    }
  });
}
