// Values derived from stored or handed-out inputs and compared again later, by a later version: a change
// to how they are derived breaks what was stored or handed out before it, and no test that builds its
// data fresh would notice. Each is pinned to a literal computed outside the code (the command is given).
// The others live beside their code: event ids (ingest/identity.test.ts), daily visitor keys
// (ingest/visitor-key.test.ts), action keys (reports/action-key.test.ts), ids and secret hashes (tokens.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { embedKeySecret, EMBED_KEY_MASTER_NAME } from '../../src/services/embeds/embed-keys.js';
import { SHARDING_KEY } from '../../src/engines/clickhouse/schema.js';
import type { CatalogStore } from '../../src/ports/catalog-store.js';

test("an embed key's secret (never stored: derived again to verify every token its owner signs) is what earlier versions gave", async () => {
  // printf 'embed-key:ek_0123456789ABCDEFGHIJKL' | openssl dgst -sha256 -hmac master-of-keys -binary | base64 | tr '+/' '-_' | tr -d =
  const catalog = {
    getOrCreateSecret: async (name: string) => {
      assert.equal(name, EMBED_KEY_MASTER_NAME);
      return 'master-of-keys';
    },
  } as unknown as CatalogStore;
  assert.equal(EMBED_KEY_MASTER_NAME, 'embed-key-master', 'the name the master is stored under');
  assert.equal(await embedKeySecret(catalog, 'ek_0123456789ABCDEFGHIJKL'), 'ff_embed_AhEVlc8fUokPv-YsePZeece0ZNUR1TTwBeg-ZGIui4c');
});

test('the ClickHouse shard of a visitor is the one earlier versions wrote it to (a re-import finds its duplicates on that shard)', () => {
  assert.equal(SHARDING_KEY, 'cityHash64(site_id, visitor_key)');
});
