// The TypeScript sessionizer (used by the ClickHouse store, which has no window functions on 18.16)
// against DuckDB's SQL sessionization (engines/duckdb/sessions-sql.ts) on the same random events:
// every session row and every event's session id must be equal. Runs without any live server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { sessionize } from '../../src/engines/clickhouse/sessionize.js';
import type { EventRow } from '../../src/ports/event-store.js';
import { makeRow } from '../contract/event-store.contract.js';

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

test('the TypeScript sessionizer gives exactly the sessions DuckDB builds, in one import or two', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(rowArb, fc.constantFrom('a', 'é', 'A', '\uFFFD', '😀')), { minLength: 1, maxLength: 60 }),
      fc.nat(),
      async (drawn, cut) => {
        // equal times are ordered by event_id bytes: U+FFFD sorts before U+1F600 in bytes, after it in UTF-16
        const rows: EventRow[] = drawn.map(([r, p], i) => ({ ...r, event_id: `${p}${i}` }));
        const store = await openDuckDbEventStore({ file: ':memory:' });
        try {
          const split = cut % (rows.length + 1);
          if (split > 0) await store.importBatch(rows.slice(0, split));
          if (split < rows.length) await store.importBatch(rows.slice(split));
          const conn = await store.instance.connect();
          try {
            const dbSessions = (await conn.runAndReadAll(`SELECT * EXCLUDE (day), day::VARCHAR AS day FROM sessions ORDER BY session_id`))
              .getRowObjectsJS()
              .map((s) => ({ ...s, start_ms: Number(s.start_ms), end_ms: Number(s.end_ms), pageviews: Number(s.pageviews), events: Number(s.events), engagement_ms: Number(s.engagement_ms), meaningful_actions: Number(s.meaningful_actions) }));
            const byId = (a: Record<string, unknown>, b: Record<string, unknown>) => (String(a.event_id) < String(b.event_id) ? -1 : 1);
            const dbEvents = (await conn.runAndReadAll(`SELECT event_id, session_id FROM events`)).getRowObjectsJS().sort(byId);
            const mine = sessionize(rows);
            const sessions = [...mine.sessions].sort((a, b) => (a.session_id < b.session_id ? -1 : 1));
            assert.deepEqual(sessions.map((s) => ({ ...s })), dbSessions.map((s) => ({ ...s })));
            const events = mine.events.map((e) => ({ event_id: e.event_id, session_id: e.session_id })).sort(byId);
            assert.deepEqual(events, dbEvents);
          } finally {
            conn.closeSync();
          }
        } finally {
          await store.close();
        }
      },
    ),
    { numRuns: Number(process.env.FF_RUNS ?? 60) },
  );
});

test('equal times and types are ordered by event_id bytes, as DuckDB orders them', async () => {
  const at = BASE + 10 * MIN;
  const rows = [
    makeRow({ event_id: '😀', ts_ms: at, path_canon: '/emoji' }),
    makeRow({ event_id: '\uFFFD', ts_ms: at, path_canon: '/replacement' }),
  ];
  const store = await openDuckDbEventStore({ file: ':memory:' });
  try {
    await store.importBatch(rows);
    const conn = await store.instance.connect();
    const db = (await conn.runAndReadAll('SELECT entry_page, exit_page FROM sessions')).getRowObjectsJS();
    conn.closeSync();
    const [s] = sessionize(rows).sessions;
    assert.deepEqual([{ entry_page: s.entry_page, exit_page: s.exit_page }], db);
    assert.equal(s.entry_page, '/replacement', 'U+FFFD (EF BF BD) sorts before U+1F600 (F0 9F 98 80)');
  } finally {
    await store.close();
  }
});
