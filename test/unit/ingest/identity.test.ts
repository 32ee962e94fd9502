import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { assignIdentities, canonicalContent, createIdentityAssigner, eventIdentity, IDENTITY_FIELDS, identifyFirst } from '../../../src/ingest/parse/identity.js';
import { decodeEventRow, encodeEventRow, EVENT_ROW_FIELDS, type EventRow } from '../../../src/ports/event-store.js';
import type { NormalizedEvent } from '../../../src/ingest/parse/normalize.js';

const ev: NormalizedEvent = {
  site_id: 'site_1', tenant_id: null, ts_ms: Date.UTC(2024, 4, 1, 10), type: 'pageview', profile: 'extended', visitor_key: 'k1',
  path_canon: '/a', page_title: 'A', referrer_host: null, utm_source: null, utm_medium: null, utm_campaign: null,
  has_click_id: false, country: 'DE', region: null, city: null, device_type: 'desktop', browser_family: 'Chrome',
  os_family: 'Windows', traffic_class: 'human', engagement_time_ms: 0, action_name: null, family: null, event_name: null,
  action_id: null, action_target_host: null, form_id: null, form_action_path: null, channel: 'Direct',
};

test('every stored field takes part in the identity', () => {
  const fields = new Set<string>(IDENTITY_FIELDS);
  for (const key of Object.keys(ev)) assert.ok(fields.has(key), `${key} missing from IDENTITY_FIELDS`);
  assert.equal(fields.size, Object.keys(ev).length);
});

test('the id is stable, hex, and independent of key order', () => {
  const id = eventIdentity(ev, 1);
  assert.match(id, /^[0-9a-f]{32}$/);
  const reversed = Object.fromEntries(Object.entries(ev).reverse()) as unknown as NormalizedEvent;
  assert.equal(eventIdentity(reversed, 1), id);
  assert.equal(canonicalContent(reversed), canonicalContent(ev));
});

test('any content change or another occurrence changes the id', () => {
  const id = eventIdentity(ev, 1);
  assert.notEqual(eventIdentity(ev, 2), id);
  assert.notEqual(eventIdentity({ ...ev, ts_ms: ev.ts_ms + 1 }, 1), id);
  assert.notEqual(eventIdentity({ ...ev, path_canon: '/b' }, 1), id);
  assert.notEqual(eventIdentity({ ...ev, tenant_id: 't1' }, 1), id);
  assert.notEqual(eventIdentity({ ...ev, has_click_id: true }, 1), id);
  // null and the string "null" differ
  assert.notEqual(eventIdentity({ ...ev, page_title: 'null' }, 1), eventIdentity({ ...ev, page_title: null }, 1));
  assert.throws(() => eventIdentity(ev, 0), /occurrence/);
});

test('identical events in one batch are all kept, and the batch re-imports to the same ids', () => {
  const other = { ...ev, path_canon: '/b' };
  const batch = [ev, other, { ...ev }, ev];
  const ids = assignIdentities(batch).map((e) => e.event_id);
  assert.equal(new Set(ids).size, 4);
  assert.deepEqual(ids, [eventIdentity(ev, 1), eventIdentity(other, 1), eventIdentity(ev, 2), eventIdentity(ev, 3)]);
  assert.deepEqual(assignIdentities(batch).map((e) => e.event_id), ids);
});

test('one assigner counts occurrences across chunks of one import', () => {
  const assign = createIdentityAssigner();
  const first = assign(ev).event_id;
  const second = assign({ ...ev }).event_id;
  assert.equal(first, eventIdentity(ev, 1));
  assert.equal(second, eventIdentity(ev, 2));
});

test('identifyFirst gives the first occurrence id and exactly the port encoding of the row, for any values', () => {
  assert.deepEqual([...IDENTITY_FIELDS], EVENT_ROW_FIELDS.slice(1), 'the wire row is the id, then the identity fields in order');
  const strings = fc.option(fc.string({ unit: 'binary' }), { nil: null });
  fc.assert(
    fc.property(strings, strings, fc.integer({ min: 0, max: 2 ** 45 }), fc.boolean(), fc.integer({ min: 0, max: 86_400_000 }), (a, b, ts, click, eng) => {
      const e = { ...ev, tenant_id: a, page_title: b, city: a, form_id: b, ts_ms: ts, has_click_id: click, engagement_time_ms: eng };
      const { id, encoded } = identifyFirst(e);
      assert.equal(id, eventIdentity(e, 1));
      assert.equal(encoded, encodeEventRow({ ...e, event_id: id } as EventRow));
      assert.deepEqual(decodeEventRow(encoded), { ...e, event_id: id });
    }),
    { numRuns: 300 },
  );
});
