// The EventStore conformance suite: every implementation (DuckDB now, ClickHouse later) must
// pass it unchanged. It checks the port only; sessions are checked per engine in test/ingest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EventRow, EventStore } from '../../src/ports/event-store.js';

export interface EventStoreUnderTest {
  store: EventStore;
  close(): Promise<void>;
}

let seq = 0;
/** A plausible stored pageview; override what the test is about. */
export function makeRow(over: Partial<EventRow> = {}): EventRow {
  seq += 1;
  return {
    event_id: `ev-${seq}-${Math.random().toString(36).slice(2)}`,
    site_id: 'site_a',
    tenant_id: null,
    ts_ms: Date.parse('2025-03-01T10:00:00.000Z'),
    type: 'pageview',
    profile: 'extended',
    visitor_key: 'vk1',
    path_canon: '/',
    page_title: 'Home',
    referrer_host: null,
    utm_source: null,
    utm_medium: null,
    utm_campaign: null,
    has_click_id: false,
    country: 'DE',
    region: null,
    city: null,
    device_type: 'desktop',
    browser_family: 'Chrome',
    os_family: 'Windows',
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
    ...over,
  };
}

export function runEventStoreContract(name: string, factory: () => Promise<EventStoreUnderTest>): void {
  const withStore = (fn: (s: EventStore) => Promise<void>) => async () => {
    const sut = await factory();
    try {
      await fn(sut.store);
    } finally {
      await sut.close();
    }
  };

  test(`${name}: an empty store has no coverage`, withStore(async (s) => {
    assert.equal(await s.newestEventAt('site_a'), null);
    assert.deepEqual(await s.siteCoverage('site_a'), { firstEventAt: null, lastEventAt: null, events: 0 });
  }));

  test(`${name}: a batch is stored and reports the days it touched`, withStore(async (s) => {
    const rows = [
      makeRow({ ts_ms: Date.parse('2025-03-01T23:59:59.999Z') }),
      makeRow({ ts_ms: Date.parse('2025-03-02T00:00:00.000Z') }),
      makeRow({ site_id: 'site_b', ts_ms: Date.parse('2025-03-01T12:00:00.000Z') }),
    ];
    const r = await s.importBatch(rows);
    assert.equal(r.imported, 3);
    assert.equal(r.duplicates, 0);
    assert.deepEqual(r.days, [
      { site_id: 'site_a', day: '2025-03-01' },
      { site_id: 'site_a', day: '2025-03-02' },
      { site_id: 'site_b', day: '2025-03-01' },
    ]);
    assert.deepEqual(await s.siteCoverage('site_a'), {
      firstEventAt: '2025-03-01T23:59:59.999Z',
      lastEventAt: '2025-03-02T00:00:00.000Z',
      events: 2,
    });
    assert.equal(await s.newestEventAt('site_b'), '2025-03-01T12:00:00.000Z');
  }));

  test(`${name}: re-importing the same batch adds nothing`, withStore(async (s) => {
    const rows = [makeRow(), makeRow({ ts_ms: Date.parse('2025-03-01T11:00:00Z') })];
    assert.equal((await s.importBatch(rows)).imported, 2);
    const again = await s.importBatch(rows);
    assert.deepEqual(again, { imported: 0, duplicates: 2, days: [] });
    assert.equal((await s.siteCoverage('site_a')).events, 2);
  }));

  test(`${name}: identical events inside one batch are all kept, and only once`, withStore(async (s) => {
    const twin = makeRow({ event_id: 'same-content' });
    const r = await s.importBatch([twin, { ...twin }, { ...twin }], {
      reidentify: (row, occurrence) => `${row.event_id}/${occurrence}`,
    });
    assert.equal(r.imported, 3);
    assert.equal((await s.siteCoverage('site_a')).events, 3);
    const again = await s.importBatch([twin, { ...twin }, { ...twin }], {
      reidentify: (row, occurrence) => `${row.event_id}/${occurrence}`,
    });
    assert.equal(again.imported, 0);
    assert.equal(again.duplicates, 3);
  }));

  test(`${name}: a batch appended in chunks commits as one`, withStore(async (s) => {
    const session = await s.beginImport();
    await session.append([makeRow()]);
    await session.append([makeRow({ ts_ms: Date.parse('2025-03-05T10:00:00Z') })]);
    assert.equal((await s.siteCoverage('site_a')).events, 0, 'nothing visible before commit');
    const r = await session.commit();
    assert.equal(r.imported, 2);
    assert.equal((await s.siteCoverage('site_a')).events, 2);
  }));

  test(`${name}: the data version changes when an import adds events to the site, and only then`, withStore(async (s) => {
    const v0 = await s.dataVersion('site_a');
    const rows = [makeRow()];
    await s.importBatch(rows);
    const v1 = await s.dataVersion('site_a');
    assert.notEqual(v1, v0);
    await s.importBatch(rows);
    assert.equal(await s.dataVersion('site_a'), v1, 'a re-import that adds nothing keeps the version');
    const other = await s.dataVersion('site_b');
    await s.importBatch([makeRow({ site_id: 'site_b' })]);
    assert.equal(await s.dataVersion('site_a'), v1, "another site's import keeps this site's version");
    assert.notEqual(await s.dataVersion('site_b'), other);
  }));

  test(`${name}: an aborted import leaves nothing`, withStore(async (s) => {
    const session = await s.beginImport();
    await session.append([makeRow(), makeRow()]);
    await session.abort();
    assert.equal((await s.siteCoverage('site_a')).events, 0);
  }));

  test(`${name}: a batch that fails at commit leaves nothing, not even its good rows`, withStore(async (s) => {
    const bad = makeRow({ visitor_key: null as unknown as string });
    await assert.rejects(s.importBatch([makeRow(), makeRow(), bad]));
    assert.equal((await s.siteCoverage('site_a')).events, 0);
    // and the store still works afterwards
    assert.equal((await s.importBatch([makeRow()])).imported, 1);
  }));
}
