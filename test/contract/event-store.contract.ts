// The EventStore conformance suite: every implementation (DuckDB now, ClickHouse later) must
// pass it unchanged. It checks the port only; sessions are checked per engine in test/ingest.
import { skippable } from '../helpers/services.js';
import assert from 'node:assert/strict';
import { encodeEventRows, type EventRow, type EventStore } from '../../src/ports/event-store.js';

export interface EventStoreUnderTest {
  store: EventStore;
  /** engagement_time_ms of the site's stored (visible) events, by event_id */
  engagementOf(siteId: string): Promise<Map<string, number>>;
  /** the site's stored (visible) events, EVENT_ROW_FIELDS only */
  rowsOf(siteId: string): Promise<EventRow[]>;
  /** the import id each of the site's stored (visible) events remembers (null: none), by event_id */
  importIdsOf(siteId: string): Promise<Map<string, string | null>>;
  /**
   * Every visible row of the site in every table (events without their import id, sessions, rollups,
   * page titles, action rows), each as a JSON text with its UTC day: two stores holding the same
   * events give equal tables.
   */
  tables(siteId: string): Promise<TableRows>;
  /** Where a child process opens the same store (a store in memory has none). */
  location?: StoreLocation;
  /** Closes `store` (a child may then open the data), and opens it again as `store`. */
  release?(): Promise<void>;
  reopen?(): Promise<void>;
  close(): Promise<void>;
}

/** Rows by table: each row's UTC day (YYYY-MM-DD) and its values as JSON. */
export type TableRows = Record<string, { day: string; row: string }[]>;

/** A store a child process can open: a DuckDB file, or ClickHouse servers by URL. */
export type StoreLocation = { kind: 'duckdb'; file: string } | { kind: 'clickhouse'; url: string };

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
    prop_keys: [],
    prop_values: [],
    ...over,
  };
}

/** A test body run on a store of `factory`'s, closed afterwards. */
export const storeTest =
  (factory: () => Promise<EventStoreUnderTest>) => (fn: (s: EventStore, sut: EventStoreUnderTest) => Promise<void>) => async () => {
    const sut = await factory();
    try {
      await fn(sut.store, sut);
    } finally {
      await sut.close();
    }
  };

export function runEventStoreContract(
  name: string,
  factory: () => Promise<EventStoreUnderTest>,
  opts: { skip?: string | false } = {},
): void {
  // a suite that cannot run here lists each of its tests as skipped, with the reason
  const test = skippable(opts.skip);
  const withStore = storeTest(factory);

  test(
    `${name}: an empty store has no coverage`,
    withStore(async (s) => {
      assert.equal(await s.newestEventAt('site_a'), null);
      assert.deepEqual(await s.siteCoverage('site_a'), { firstEventAt: null, lastEventAt: null, events: 0 });
    }),
  );

  test(
    `${name}: a batch is stored and reports the days it touched`,
    withStore(async (s) => {
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
    }),
  );

  test(
    `${name}: every value is stored as given, appended as rows, as encoded rows or as their bytes`,
    withStore(async (s, sut) => {
      // what a text format could take for a separator, an escape or a null marker, and more than ASCII
      // (and what a JSON reader could take for a value: null, true, a number, an array, escapes)
      const texts = [
        'tab\there',
        'line\nbreak',
        'carriage\rreturn',
        'back\\slash',
        '\\N',
        'NULL',
        '"quoted" \'single\'',
        ',;|',
        'ünïcødé 中文 😀',
        '',
        'null',
        'true',
        '42',
        '["a",1]',
        '{"k":null}',
        '\\u0041 \u2028\u0001\u007f',
      ];
      const row = (i: number, text: string) =>
        makeRow({
          event_id: `rt-${i}`,
          ts_ms: Date.parse('2025-03-01T10:00:00.000Z') + i * 1000,
          type: i % 2 ? 'action' : 'pageview',
          path_canon: `/p/${text}`,
          page_title: text,
          referrer_host: i % 3 ? null : `ref${i}.example`,
          utm_campaign: text,
          has_click_id: i % 2 === 0,
          city: text === '' ? null : text,
          engagement_time_ms: i * 123_457,
          action_name: i % 2 ? 'ui.click' : null,
          family: i % 2 ? 'custom' : null,
          event_name: i % 2 ? text : null,
          action_id: i % 2 ? `${text}#${i}` : null,
          form_action_path: i % 2 ? text : null,
        });
      const plain = texts.map((t, i) => row(i, t));
      const encoded = texts.map((t, i) => ({ ...row(100 + i, t), site_id: 'site_b' }));
      // as the admin socket hands them on: the UTF-8 bytes, in a view that does not start its buffer
      const asBytes = texts.map((t, i) => ({ ...row(200 + i, t), site_id: 'site_c' }));
      const padded = Buffer.from('xx' + encodeEventRows(asBytes), 'utf8');
      const session = await s.beginImport();
      await session.append(plain);
      await session.appendEncoded(encodeEventRows(encoded), encoded.length);
      await session.appendEncoded(padded.subarray(2), asBytes.length);
      assert.equal((await session.commit()).imported, plain.length + encoded.length + asBytes.length);
      const byId = (rows: EventRow[]) => [...rows].sort((a, b) => a.event_id.localeCompare(b.event_id));
      assert.deepEqual(byId(await sut.rowsOf('site_a')), byId(plain));
      assert.deepEqual(byId(await sut.rowsOf('site_b')), byId(encoded));
      assert.deepEqual(byId(await sut.rowsOf('site_c')), byId(asBytes));
    }),
  );

  test(
    `${name}: re-importing the same batch adds nothing`,
    withStore(async (s) => {
      const rows = [makeRow(), makeRow({ ts_ms: Date.parse('2025-03-01T11:00:00Z') })];
      assert.equal((await s.importBatch(rows)).imported, 2);
      const again = await s.importBatch(rows);
      assert.deepEqual(again, { imported: 0, duplicates: 2, days: [] });
      assert.equal((await s.siteCoverage('site_a')).events, 2);
    }),
  );

  test(
    `${name}: identical events inside one batch are all kept, and only once`,
    withStore(async (s) => {
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
    }),
  );

  test(
    `${name}: a batch appended in chunks commits as one`,
    withStore(async (s) => {
      const session = await s.beginImport();
      await session.append([makeRow()]);
      await session.append([makeRow({ ts_ms: Date.parse('2025-03-05T10:00:00Z') })]);
      assert.equal((await s.siteCoverage('site_a')).events, 0, 'nothing visible before commit');
      const r = await session.commit();
      assert.equal(r.imported, 2);
      assert.equal((await s.siteCoverage('site_a')).events, 2);
    }),
  );

  test(
    `${name}: the data version changes when an import adds events to the site, and only then`,
    withStore(async (s) => {
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
    }),
  );

  test(
    `${name}: an aborted import leaves nothing`,
    withStore(async (s) => {
      const session = await s.beginImport();
      await session.append([makeRow(), makeRow()]);
      await session.abort();
      assert.equal((await s.siteCoverage('site_a')).events, 0);
    }),
  );

  test(
    `${name}: a batch that fails at commit leaves nothing, not even its good rows`,
    withStore(async (s) => {
      const bad = makeRow({ visitor_key: null as unknown as string });
      await assert.rejects(s.importBatch([makeRow(), makeRow(), bad]));
      assert.equal((await s.siteCoverage('site_a')).events, 0);
      // and the store still works afterwards
      assert.equal((await s.importBatch([makeRow()])).imported, 1);
    }),
  );

  const at = (hhmm: string) => Date.parse(`2025-03-01T${hhmm}:00.000Z`);
  const engagementRows = () => ({
    early: makeRow({ ts_ms: at('10:00'), path_canon: '/a' }),
    latest: makeRow({ ts_ms: at('10:05'), path_canon: '/a' }),
    otherPath: makeRow({ ts_ms: at('10:06'), path_canon: '/b' }),
    later: makeRow({ ts_ms: at('10:20'), path_canon: '/a' }),
    otherVisitor: makeRow({ ts_ms: at('10:07'), path_canon: '/a', visitor_key: 'vk2' }),
  });

  test(
    `${name}: engagement goes to the visitor's latest pageview of the path at or before it, that day`,
    withStore(async (s, sut) => {
      const r = engagementRows();
      await s.importBatch(Object.values(r));
      const v1 = await s.dataVersion('site_a');
      const session = await s.beginImport();
      await session.appendEngagement([
        { site_id: 'site_a', visitor_key: 'vk1', ts_ms: at('10:10'), path_canon: '/a', engagement_ms: 5_000 },
      ]);
      const result = await session.commit();
      assert.equal(result.imported, 0);
      assert.deepEqual(result.engagement, { applied: 1, dropped: 0 });
      const eng = await sut.engagementOf('site_a');
      assert.equal(eng.get(r.latest.event_id), 5_000);
      for (const other of [r.early, r.otherPath, r.later, r.otherVisitor]) assert.equal(eng.get(other.event_id), 0);
      assert.notEqual(await s.dataVersion('site_a'), v1, 'engagement changes what reads see');
    }),
  );

  test(
    `${name}: engagement sent with its pageview in one import applies, and adds up`,
    withStore(async (s, sut) => {
      const pv = makeRow({ ts_ms: at('11:00'), path_canon: '/c', engagement_time_ms: 1_000 });
      const session = await s.beginImport();
      await session.append([pv]);
      const e = { site_id: 'site_a', visitor_key: 'vk1', ts_ms: at('11:01'), path_canon: '/c', engagement_ms: 2_500 };
      await session.appendEngagement([e, { ...e, ts_ms: at('11:02') }]);
      const result = await session.commit();
      assert.equal(result.imported, 1);
      assert.deepEqual(result.engagement, { applied: 2, dropped: 0 });
      assert.equal((await sut.engagementOf('site_a')).get(pv.event_id), 6_000);
    }),
  );

  test(
    `${name}: engagement without its pageview is dropped and changes nothing`,
    withStore(async (s, sut) => {
      const r = engagementRows();
      await s.importBatch(Object.values(r));
      const v1 = await s.dataVersion('site_a');
      const e = { site_id: 'site_a', visitor_key: 'vk1', ts_ms: at('10:10'), path_canon: '/a', engagement_ms: 5_000 };
      const session = await s.beginImport();
      await session.appendEngagement([
        { ...e, visitor_key: 'vk9' }, // another visitor
        { ...e, path_canon: '/zzz' }, // a path never viewed
        { ...e, ts_ms: at('09:00') }, // before any pageview of the path
        { ...e, ts_ms: Date.parse('2025-03-02T10:10:00.000Z') }, // another day
      ]);
      const result = await session.commit();
      assert.deepEqual(result.engagement, { applied: 0, dropped: 4 });
      assert.equal(result.imported, 0);
      assert.ok([...(await sut.engagementOf('site_a')).values()].every((ms) => ms === 0));
      assert.equal(await s.dataVersion('site_a'), v1);
    }),
  );

  test(
    `${name}: a checkpoint is committed with its rows, per source, and only with them`,
    withStore(async (s, sut) => {
      assert.equal(await s.checkpoint('spool-1'), null, 'none before any import carried one');
      const pv = makeRow({ ts_ms: at('12:00'), path_canon: '/k' });
      await s.importBatch([pv], { checkpoint: { source: 'spool-1', position: 100 } });
      assert.equal(await s.checkpoint('spool-1'), 100);
      assert.equal(await s.checkpoint('spool-2'), null, 'sources are independent');

      const aborted = await s.beginImport({ checkpoint: { source: 'spool-1', position: 200 } });
      await aborted.append([makeRow()]);
      await aborted.abort();
      assert.equal(await s.checkpoint('spool-1'), 100, 'an aborted import moves nothing');

      const bad = makeRow({ visitor_key: null as unknown as string });
      await assert.rejects(s.importBatch([makeRow(), bad], { checkpoint: { source: 'spool-1', position: 300 } }));
      assert.equal(await s.checkpoint('spool-1'), 100, 'a failed commit moves nothing');

      // Replaying a loaded batch with its old checkpoint is what the loader avoids: a batch that only
      // repeats stored events (or carries engagement that finds nothing) still moves the position.
      const again = await s.importBatch([pv], { checkpoint: { source: 'spool-1', position: 400 } });
      assert.equal(again.imported, 0);
      assert.equal(await s.checkpoint('spool-1'), 400);
      const engagementOnly = await s.beginImport({ checkpoint: { source: 'spool-1', position: 500 } });
      await engagementOnly.appendEngagement([
        { site_id: 'site_a', visitor_key: 'vk1', ts_ms: at('12:01'), path_canon: '/k', engagement_ms: 700 },
      ]);
      assert.deepEqual((await engagementOnly.commit()).engagement, { applied: 1, dropped: 0 });
      assert.equal(await s.checkpoint('spool-1'), 500);
      assert.equal((await sut.engagementOf('site_a')).get(pv.event_id), 700);
      const empty = await s.beginImport({ checkpoint: { source: 'spool-2', position: 7 } });
      await empty.commit();
      assert.equal(await s.checkpoint('spool-2'), 7, 'an import of nothing still stores its checkpoint');
      assert.equal(await s.checkpoint('spool-1'), 500);
      await assert.rejects(s.beginImport({ checkpoint: { source: 'spool-1', position: -1 } }), /non-negative safe integer/);
    }),
  );
}
