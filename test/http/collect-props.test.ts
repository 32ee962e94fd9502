// POST /api/event with custom properties (docs/decisions/custom-properties.md): stored as two sorted
// parallel arrays on the event, without the props the product maps to columns of its own, none under
// strict; read back with SQL from the store of either stack (DuckDB, or every ClickHouse server's committed rows).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { ClickHouseEventStore } from '../../src/engines/clickhouse/clickhouse-event-store.js';
import type { ClickHouseStoreParts } from '../../src/engines/clickhouse/clickhouse-store-parts.js';
import { collectHarness, pageview, type CollectHarness } from './helpers/collect.js';

type Stored = [string | null, string[], string[]];

/** Every stored event of the site: event name (or page) and its props, in time order, on either stack. */
async function storedProps(h: CollectHarness): Promise<Stored[]> {
  const store = h.container.events;
  if (store instanceof ClickHouseEventStore) {
    // the committed generation of each day on each server (commit-log.ts), as every read sees them
    const { shards, layout } = (store as unknown as { p: ClickHouseStoreParts }).p;
    const rows: (Stored & { ts: number; id: string })[] = [];
    for (const s of shards) {
      const visible = `(site_id, day, gen) IN (SELECT site_id, day, max(gen) FROM \`${layout.days}\` WHERE shard = ${s.num} GROUP BY site_id, day)`;
      const got = await s.node.query<{ n: string | null; k: string[]; v: string[]; ts: string; id: string }>(
        `SELECT coalesce(event_name, path_canon) AS n, prop_keys AS k, prop_values AS v, ts_ms AS ts, event_id AS id FROM \`${layout.events}\` WHERE ${visible} AND site_id = '${h.siteId}'`,
      );
      for (const r of got) rows.push(Object.assign([r.n, r.k, r.v] as Stored, { ts: Number(r.ts), id: r.id }));
    }
    rows.sort((a, b) => a.ts - b.ts || (a.id < b.id ? -1 : 1));
    return rows.map((r) => [r[0], r[1], r[2]]);
  }
  if (!(store instanceof DuckDbEventStore)) throw new Error('a store this test cannot read');
  const c = await store.instance.connect();
  try {
    const rows = await c.runAndReadAll(
      'SELECT coalesce(event_name, path_canon), prop_keys, prop_values FROM events WHERE site_id = $1 ORDER BY ts_ms, event_id',
      [h.siteId],
    );
    return rows.getRowsJS().map(([name, keys, values]) => [name as string | null, keys as string[], values as string[]]);
  } finally {
    c.closeSync();
  }
}

test('props of pageviews and custom events are stored, sorted, as text; mapped props and nulls are not', async () => {
  const h = await collectHarness();
  try {
    const props = { plan: 'pro', n: 3, ok: true, x: null };
    assert.equal((await h.post({ n: 'Signup', u: 'https://live.example/a', d: 'live.example', p: props })).statusCode, 202);
    h.clock.advance(1000);
    // the tracker's short key with the props as a JSON string (server-side senders), and the mapped ones
    const sent = JSON.stringify({ ...props, title: 'T', tenant_id: 'nope', action_id: 'x', url: 'https://o.example/' });
    assert.equal((await h.post(pageview('https://live.example/b', { p: sent }))).statusCode, 202);
    h.clock.advance(1000);
    assert.equal((await h.post(pageview('https://live.example/c'))).statusCode, 202);
    await h.flush();
    assert.deepEqual(await storedProps(h), [
      ['Signup', ['n', 'ok', 'plan'], ['3', 'true', 'pro']],
      ['/b', ['n', 'ok', 'plan', 'url'], ['3', 'true', 'pro', 'https://o.example/']],
      ['/c', [], []],
    ]);
  } finally {
    await h.close();
  }
});

test('a strict site stores no props', async () => {
  const h = await collectHarness({ profile: 'strict' });
  try {
    await h.post(pageview('https://live.example/a', { p: { plan: 'pro' } }));
    h.clock.advance(1000);
    await h.post({
      n: 'Outbound Link: Click',
      u: 'https://live.example/a',
      d: 'live.example',
      p: { url: 'https://o.example/', plan: 'pro' },
    });
    await h.flush();
    assert.deepEqual(await storedProps(h), [
      ['/a', [], []],
      ['/a', [], []],
    ]);
  } finally {
    await h.close();
  }
});

test('props past the bounds are refused as every bad field is: 422, INVALID_PARAMS, details.field props; nothing stored', async () => {
  const h = await collectHarness();
  try {
    const url = 'https://live.example/';
    const refused = async (p: unknown, message: RegExp) => {
      const res = await h.post({ n: 'Signup', u: url, d: 'live.example', p });
      assert.equal(res.statusCode, 422, res.body);
      const body = res.json();
      assert.equal(body.error.code, 'INVALID_PARAMS');
      assert.equal(body.error.details.field, 'props');
      assert.match(body.error.message, message);
    };
    const many = Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`k${i}`, i]));
    await refused(many, /more than 30 keys/);
    await refused({ ['k'.repeat(301)]: 'v' }, /props key must be 1 to 300 characters/);
    await refused({ k: 'v'.repeat(2001) }, /props\.k is longer than 2000 characters/);
    // at the bounds: stored
    const fits = { ...Object.fromEntries(Object.entries(many).slice(2)), ['k'.repeat(300)]: 'v'.repeat(2000) };
    assert.equal((await h.post({ n: 'Signup', u: url, d: 'live.example', p: fits })).statusCode, 202);
    await h.flush();
    const stored = await storedProps(h);
    assert.equal(stored.length, 1);
    assert.equal(stored[0][1].length, 30);
    assert.equal(stored[0][1][29], 'k'.repeat(300));
    assert.equal(stored[0][2][29], 'v'.repeat(2000));
  } finally {
    await h.close();
  }
});
