// A request's data version and site facts (first and newest event) on ClickHouse come from one read of
// the commit log: one statement while nothing is committed, on one server and on two shards, with the
// store's own answers; and a copy of the log that a commit left short is still mended.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ident } from '../../src/engines/clickhouse/schema.js';
import { makeRow } from '../contract/event-store.contract.js';
import { openScratch, skipReason, type Topology } from './clickhouse-scratch.js';

const SITE = 'site_a';
const BASE = Date.UTC(2025, 2, 1);

for (const topology of ['single', 'cluster'] as Topology[]) {
  test(`clickhouse ${topology}: the data version and the site facts are one statement, the store's answers`, {
    skip: skipReason(topology),
  }, async () => {
    const ch = await openScratch(topology);
    try {
      const rows = Array.from({ length: 120 }, (_, i) =>
        makeRow({ site_id: SITE, visitor_key: `v${i}`, ts_ms: BASE + (i % 3) * 86_400_000 + i * 1000 }),
      );
      await ch.store.importBatch(rows);
      const e = ch.engine;
      const facts = async () => {
        const before = e.statements;
        const [version, first, newest] = await Promise.all([e.dataVersion(SITE), e.firstEventAt(SITE), e.newestEventAt(SITE)]);
        return { version, first: first?.getTime(), newest: newest?.getTime(), sent: e.statements - before };
      };
      const coverage = await ch.store.siteCoverage(SITE);
      const want = {
        version: await ch.store.dataVersion(SITE),
        first: Date.parse(coverage.firstEventAt!),
        newest: Date.parse(coverage.lastEventAt!),
      };
      assert.equal(want.first, Math.min(...rows.map((r) => r.ts_ms)));
      const a = await facts();
      assert.deepEqual({ ...a, sent: undefined }, { ...want, sent: undefined });
      // the other server's copy of the log is counted the first time only
      assert.equal(a.sent, ch.shards.length);
      const b = await facts();
      assert.deepEqual(b, { ...want, sent: 1 });

      const none = await Promise.all([e.dataVersion('nope'), e.firstEventAt('nope'), e.newestEventAt('nope')]);
      assert.deepEqual(none, [await ch.store.dataVersion('nope'), null, null]);

      if (ch.shards.length > 1) {
        // a commit whose copy to the second server never happened (its process died): the next read mends it
        const days = ident(ch.layout.days);
        const [last] = await ch.nodes[0].query<Record<string, unknown>>(
          `SELECT site_id, toString(day) AS day, gen, shard, events, first_ms, last_ms, committed_ms FROM ${days} WHERE site_id = '${SITE}' AND shard = 2 ORDER BY gen DESC LIMIT 1`,
        );
        assert.ok(last, 'the second server holds some of the site');
        const gen = Number(last.gen) + 1;
        await ch.nodes[0].insertNdjson(days, JSON.stringify({ ...last, gen }) + '\n');
        const c = await facts();
        const [copy] = await ch.nodes[1].query<{ n: number }>(
          `SELECT count() AS n FROM ${days} WHERE site_id = '${SITE}' AND gen = ${gen}`,
        );
        assert.equal(Number(copy.n), 1, 'the copy got the row');
        assert.notEqual(c.version, b.version);
        assert.equal(c.version, await ch.store.dataVersion(SITE));
        assert.equal((await facts()).sent, 1);
      }
    } finally {
      await ch.close();
    }
  });
}
