// Custom properties through an NDJSON import into each store (docs/decisions/custom-properties.md): the
// events' prop_keys/prop_values read back with SQL, two empty arrays for an event without props; a
// re-import adds nothing, a repeat within the import is kept; a day rewritten by a later import (ClickHouse
// rewrites whole days) and a staged row of the release before props (30 values) keep their props.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { ident } from '../../src/engines/clickhouse/schema.js';
import { importLines } from '../../src/ingest/pipeline/import-lines.js';
import { readLineBatches } from '../../src/ingest/pipeline/read-lines.js';
import { eventIdentity } from '../../src/ingest/parse/identity.js';
import { EVENT_ROW_FIELDS, PROP_FIELDS, type EventStore } from '../../src/ports/event-store.js';
import { openScratch, skipReason, type Topology } from './clickhouse-scratch.js';
import { makeRow } from '../contract/event-store.contract.js';

const SITE = 'site_p';
const NOW = Date.parse('2025-03-10T12:00:00Z');
const site = { id: SITE, name: SITE, hostnames: ['p.example'], collectionProfile: 'extended', profileEffectiveAt: null };
const catalog = {
  getSite: async (id: string) => (id === SITE ? site : null),
  getTenant: async () => null,
  getOrCreateSecret: async () => 'sekret',
} as never;

const line = (ts: string, path: string, props?: unknown) =>
  JSON.stringify({ ts, type: 'pageview', site_id: SITE, path, visitor_key: 'k1', ...(props === undefined ? {} : { props }) });
const LINES = [
  line('2025-03-09T10:00:00Z', '/a', { plan: 'pro', n: 3, ok: true, x: null, "quote's\ttab\\": 'it\'s\n"x"' }),
  line('2025-03-09T10:01:00Z', '/b'),
  // the same line twice: both kept (occurrence 2 has its own id, props included)
  line('2025-03-09T10:02:00Z', '/c', { z: '1', a: 'é😀' }),
  line('2025-03-09T10:02:00Z', '/c', { z: '1', a: 'é😀' }),
];
const WANT: [string, string[], string[]][] = [
  ['/a', ['n', 'ok', 'plan', "quote's\ttab\\"], ['3', 'true', 'pro', 'it\'s\n"x"']],
  ['/b', [], []],
  ['/c', ['a', 'z'], ['é😀', '1']],
  ['/c', ['a', 'z'], ['é😀', '1']],
];

async function importText(store: EventStore, lines: readonly string[]) {
  const sink = await store.beginImport({ reidentify: eventIdentity, importId: `imp_${Math.random().toString(36).slice(2)}` });
  return importLines(readLineBatches(Readable.from([Buffer.from(lines.join('\n') + '\n')])), {
    format: { kind: 'events' },
    catalog,
    sink,
    nowMs: NOW,
  });
}

/** One store's check: `rows` reads [path, prop_keys, prop_values] of every event in time order. */
async function check(store: EventStore, rows: () => Promise<[string, string[], string[]][]>) {
  const first = await importText(store, LINES);
  assert.deepEqual([first.imported, first.rejected], [4, 0]);
  assert.deepEqual(await rows(), WANT);
  // the same lines again: nothing new (same content and props, same ids)
  const again = await importText(store, LINES);
  assert.deepEqual([again.imported, again.duplicates], [0, 4]);
  // a later event on the same day (a rewrite of the day where the store rewrites days), and a wire row of
  // the release before props (30 values: a spool written before the upgrade) on it too
  await importText(store, [line('2025-03-09T11:00:00Z', '/d', { k: 'v' })]);
  const old = makeRow({ site_id: SITE, ts_ms: Date.parse('2025-03-09T12:00:00Z'), path_canon: '/e' });
  const wire = EVENT_ROW_FIELDS.filter((f) => !(PROP_FIELDS as readonly string[]).includes(f)).map((f) => old[f]);
  assert.equal(wire.length, 30);
  const session = await store.beginImport();
  await session.appendEncoded(`${JSON.stringify(wire)}\n`, 1);
  await session.commit();
  assert.deepEqual(await rows(), [...WANT, ['/d', ['k'], ['v']], ['/e', [], []]]);
}

test('duckdb: an import stores the lines props, sorted, as text; none as two empty arrays', async () => {
  const store = await openDuckDbEventStore({ file: ':memory:' });
  try {
    await check(store, async () => {
      const c = await store.instance.connect();
      try {
        const r = await c.runAndReadAll('SELECT path_canon, prop_keys, prop_values FROM events ORDER BY ts_ms, event_id');
        return r.getRowsJS() as [string, string[], string[]][];
      } finally {
        c.closeSync();
      }
    });
  } finally {
    await store.close();
  }
});

for (const topology of ['single', 'cluster'] as Topology[]) {
  test(`clickhouse ${topology}: an import stores the lines props, through staging and day rewrites`, {
    skip: skipReason(topology),
  }, async () => {
    const ch = await openScratch(topology);
    try {
      await check(ch.store, async () => {
        const all: [string, string[], string[], number][] = [];
        // the current generation of each day on each server (what a read sees)
        for (const node of ch.nodes) {
          const rows = await node.query<{
            path_canon: string;
            prop_keys: string[];
            prop_values: string[];
            ts_ms: number;
            event_id: string;
          }>(
            `SELECT path_canon, prop_keys, prop_values, ts_ms, event_id FROM ${ident(ch.layout.events)}
             WHERE (site_id, day, gen) IN (SELECT site_id, day, max(gen) FROM ${ident(ch.layout.events)} GROUP BY site_id, day)`,
          );
          for (const r of rows) all.push([r.path_canon, r.prop_keys, r.prop_values, Number(r.ts_ms)]);
        }
        all.sort((a, b) => a[3] - b[3] || (a[0] < b[0] ? -1 : 1));
        return all.map(([p, k, v]) => [p, k, v]);
      });
    } finally {
      await ch.close();
    }
  });
}
