// A small import commits on one DuckDB thread (duckdb-import-session.ts ONE_THREAD_BELOW_ROWS) and
// gives the instance its threads back however the commit ends; a large one keeps them all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withRunHook } from './duckdb-run-hook.js';
import { openDuckDbEventStore, type DuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import type { EventRow } from '../../src/ports/event-store.js';

const DAY = Date.UTC(2026, 10, 26);

function rows(n: number): EventRow[] {
  return Array.from({ length: n }, (_, i) => ({
    event_id: `ev${i}`,
    site_id: 'site_a',
    tenant_id: null,
    ts_ms: DAY + i * 60_000,
    type: 'pageview',
    profile: 'extended',
    visitor_key: `v${i % 7}`,
    path_canon: `/p${i % 3}`,
    page_title: null,
    referrer_host: null,
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    has_click_id: false,
    country: null,
    region: null,
    city: null,
    device_type: 'desktop',
    browser_family: 'Chrome',
    os_family: 'Linux',
    traffic_class: 'human',
    engagement_time_ms: 0,
    action_name: null,
    family: null,
    event_name: null,
    action_id: null,
    action_target_host: null,
    form_id: null,
    form_action_path: null,
    channel: 'Direct',
    prop_keys: [],
    prop_values: [],
  }));
}

/** The statements run while `fn` runs; `fail` makes the first statement matching it throw. */
async function statementsOf(fn: () => Promise<unknown>, fail?: RegExp): Promise<string[]> {
  const seen: string[] = [];
  let failed = false;
  const hook = (sql: string) => {
    seen.push(sql);
    if (fail && !failed && fail.test(sql)) {
      failed = true;
      throw new Error('injected failure');
    }
  };
  await withRunHook(hook, fn).catch((err: unknown) => {
    if (!failed) throw err;
  });
  return seen;
}

async function threadsOf(store: DuckDbEventStore): Promise<number> {
  const c = await store.instance.connect();
  try {
    return Number((await c.runAndReadAll(`SELECT current_setting('threads')`)).getRowsJS()[0][0]);
  } finally {
    c.closeSync();
  }
}

async function withStore(opts: { oneThreadBelowRows?: number }, fn: (store: DuckDbEventStore) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ff-one-thread-'));
  const store = await openDuckDbEventStore({ file: path.join(dir, 'events.duckdb'), threads: 2, tempDir: dir, ...opts });
  try {
    await fn(store);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const setThreads = (statements: string[]) => statements.filter((s) => /^SET threads/.test(s));

test('a small import commits on one thread and gives the instance its two back', async () => {
  await withStore({}, async (store) => {
    const statements = await statementsOf(() => store.importBatch(rows(50)));
    assert.deepEqual(setThreads(statements), ['SET threads = 1', 'SET threads = 2']);
    // one thread from before the commit's first statement to after its last
    const first = statements.indexOf('SET threads = 1');
    const last = statements.indexOf('SET threads = 2');
    assert.ok(
      statements.slice(first + 1, last).some((s) => s.includes('COMMIT')),
      'the transaction runs between the two',
    );
    assert.equal(await threadsOf(store), 2);
    const c = await store.instance.connect();
    assert.equal(Number((await c.runAndReadAll('SELECT count(*) FROM events')).getRowsJS()[0][0]), 50);
    c.closeSync();
  });
});

test('a commit that fails still gives the instance its threads back', async () => {
  await withStore({}, async (store) => {
    const statements = await statementsOf(() => store.importBatch(rows(50)), /BEGIN TRANSACTION/);
    assert.deepEqual(setThreads(statements), ['SET threads = 1', 'SET threads = 2']);
    assert.equal(await threadsOf(store), 2);
  });
});

test('an import of as many rows as the bound keeps every thread', async () => {
  await withStore({ oneThreadBelowRows: 50 }, async (store) => {
    const statements = await statementsOf(() => store.importBatch(rows(50)));
    assert.deepEqual(setThreads(statements), []);
    assert.equal(await threadsOf(store), 2);
  });
});
