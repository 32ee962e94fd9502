import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  assignIdentities,
  canonicalContent,
  createIdentityAssigner,
  eventIdentity,
  IDENTITY_FIELDS,
  identifyFirst,
  PROP_IDENTITY_FIELDS,
} from '../../../src/ingest/parse/identity.js';
import { decodeEventRow, encodeEventRow, EVENT_ROW_FIELDS, type EventRow } from '../../../src/ports/event-store.js';
import type { NormalizedEvent } from '../../../src/ingest/parse/normalize.js';
import { LineProcessor } from '../../../src/ingest/pipeline/line-processor.js';
import { reidentify } from '../../../src/ingest/pipeline/import-lines.js';
import { runs } from '../../helpers/property-runs.js';

const ev: NormalizedEvent = {
  site_id: 'site_1',
  tenant_id: null,
  ts_ms: Date.UTC(2024, 4, 1, 10),
  type: 'pageview',
  profile: 'extended',
  visitor_key: 'k1',
  path_canon: '/a',
  page_title: 'A',
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
};

test('every stored field takes part in the identity (the custom properties when there are any)', () => {
  const fields = new Set<string>([...IDENTITY_FIELDS, ...PROP_IDENTITY_FIELDS]);
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
  assert.deepEqual(
    assignIdentities(batch).map((e) => e.event_id),
    ids,
  );
});

test('one assigner counts occurrences across chunks of one import', () => {
  const assign = createIdentityAssigner();
  const first = assign(ev).event_id;
  const second = assign({ ...ev }).event_id;
  assert.equal(first, eventIdentity(ev, 1));
  assert.equal(second, eventIdentity(ev, 2));
});

test('identifyFirst gives the first occurrence id and exactly the port encoding of the row, for any values', () => {
  assert.deepEqual(
    [...IDENTITY_FIELDS, ...PROP_IDENTITY_FIELDS],
    EVENT_ROW_FIELDS.slice(1),
    'the wire row is the id, then the identity fields in order, then the custom properties',
  );
  const strings = fc.option(fc.string({ unit: 'binary' }), { nil: null });
  fc.assert(
    fc.property(
      strings,
      strings,
      fc.integer({ min: 0, max: 2 ** 45 }),
      fc.boolean(),
      fc.integer({ min: 0, max: 86_400_000 }),
      (a, b, ts, click, eng) => {
        const e = { ...ev, tenant_id: a, page_title: b, city: a, form_id: b, ts_ms: ts, has_click_id: click, engagement_time_ms: eng };
        const { id, encoded } = identifyFirst(e);
        assert.equal(id, eventIdentity(e, 1));
        assert.equal(encoded, encodeEventRow({ ...e, event_id: id } as EventRow));
        assert.deepEqual(decodeEventRow(encoded), { ...e, event_id: id });
      },
    ),
    { numRuns: runs(300) },
  );
});

// Event ids are stored, and a later import (of any version) finds its duplicates by them: the id of a
// given event must never change. The literals below were computed outside the code, with coreutils:
//   printf '%s\n%s' "$CONTENT" 1 | sha256sum | cut -c1-32
// over the canonical content written out by hand (the identity fields in order, JSON).
const EV_CONTENT =
  '["site_1",null,1714557600000,"pageview","extended","k1","/a","A",null,null,null,null,false,"DE",null,null,"desktop","Chrome","Windows","human",0,null,null,null,null,null,null,null,"Direct"]';

test('the ids of a fixed event are the ones every earlier version stored', () => {
  assert.equal(canonicalContent(ev), EV_CONTENT);
  assert.equal(eventIdentity(ev, 1), '38ba787be74ad37327eeeac96504e4e0');
  assert.equal(eventIdentity(ev, 2), '8aa009e7751e54fe0785227c50c88218');
  assert.equal(eventIdentity(ev, 3), '203738490e20fd1d8c6f5416b8fa4e00');
  assert.deepEqual(identifyFirst(ev), {
    id: '38ba787be74ad37327eeeac96504e4e0',
    // the wire row ends with the (empty) custom properties; the id is the content's without them
    encoded: `["38ba787be74ad37327eeeac96504e4e0",${EV_CONTENT.slice(1, -1)},[],[]]`,
  });
  assert.deepEqual(
    assignIdentities([ev, ev, ev]).map((e) => e.event_id),
    ['38ba787be74ad37327eeeac96504e4e0', '8aa009e7751e54fe0785227c50c88218', '203738490e20fd1d8c6f5416b8fa4e00'],
  );
  // what every import hands the store for a repeat within its batch
  assert.equal(reidentify({ ...ev, event_id: '38ba787be74ad37327eeeac96504e4e0' }, 2), '8aa009e7751e54fe0785227c50c88218');
});

test('fixed import lines under a fixed secret are stored as every earlier version stored them: visitor key, derived fields, id', async () => {
  // visitor keys computed with openssl (visitor-key.test.ts shows the chain):
  //   SALT=$(printf 'site_a\0002025-03-09' | openssl dgst -sha256 -hmac sekret)
  //   printf '203.0.113.7\000<UA>' | openssl dgst -sha256 -mac HMAC -macopt hexkey:$SALT | cut -c1-16
  // ids as above, over the content of the row written out here.
  const UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0';
  const site = { id: 'site_a', hostnames: ['shop.example'], collectionProfile: 'extended' as const, profileEffectiveAt: null };
  const catalog = { site: () => site, tenantSite: () => null };
  const nowMs = Date.parse('2025-03-10T12:00:00Z');
  const emitted = async (p: LineProcessor, lines: string[]) => {
    const out: string[] = [];
    const tally = await p.process(lines, (_row, encoded) => out.push(encoded), 10);
    assert.deepEqual([tally.rejected, tally.skipped], [0, 0]);
    return out;
  };
  const events = new LineProcessor({ format: { kind: 'events' }, nowMs, secret: 'sekret' }, catalog, null);
  const rows = await emitted(events, [
    JSON.stringify({
      ts: '2025-03-09T14:03:11Z',
      type: 'pageview',
      site_id: 'site_a',
      url: 'https://shop.example/pricing?utm_source=mail',
      title: 'Pricing',
      referrer: 'https://www.google.com/',
      ip: '203.0.113.7',
      user_agent: UA,
    }),
    JSON.stringify({
      ts: '2025-03-09T14:05:00Z',
      type: 'action',
      site_id: 'site_a',
      path: '/pricing',
      action_name: 'outbound.click',
      action_target_host: 'partner.example',
      visitor_key: 'my-key-1',
    }),
  ]);
  assert.deepEqual(rows, [
    '["b0dd1cc4f41b25322121196950f96042","site_a",null,1741528991000,"pageview","extended","5ac9b3533c8116e2","/pricing","Pricing","google.com","mail",null,null,false,null,null,null,"desktop","Firefox","Linux","human",0,null,null,null,null,null,null,null,"Search",[],[]]',
    '["c865bda7c70cce8ee0753880e754cc27","site_a",null,1741529100000,"action","extended","my-key-1","/pricing",null,null,null,null,null,false,null,null,null,null,null,null,"human",0,"outbound.click","outbound",null,null,"partner.example",null,null,"Direct",[],[]]',
  ]);
  // the same line twice in one import: the second copy's id
  assert.equal(reidentify(decodeEventRow(rows[0]), 2), '8bc0b037fa6ac0e99718c7636a8f35d4');
  const log = new LineProcessor(
    { format: { kind: 'access-log', format: 'combined' }, nowMs, secret: 'sekret', defaultSiteId: 'site_a' },
    catalog,
    null,
  );
  assert.deepEqual(
    await emitted(log, [
      `203.0.113.9 - - [09/Mar/2025:14:03:11 +0000] "GET /docs/start?ref=x HTTP/1.1" 200 512 "https://duckduckgo.com/" "${UA}"`,
    ]),
    [
      '["1f6db1e046795370d24e66b66cabd68b","site_a",null,1741528991000,"pageview","extended","288188ebc80f8140","/docs/start",null,"duckduckgo.com",null,null,null,false,null,null,null,"desktop","Firefox","Linux","human",0,null,null,null,null,null,null,null,"Search",[],[]]',
    ],
  );
});

// Custom properties (docs/decisions/custom-properties.md): content of the events that have some, and
// of no other. The literals were computed as above, over the content with the two arrays appended:
//   CONTENT='[...,"Direct",["n","ok","plan"],["3","true","pro"]]'
test('an event without custom properties keeps the id it had before they existed; one with them has its own', () => {
  // empty arrays, or none at all (a row of the release before): the content and id of every earlier version
  assert.equal(canonicalContent({ ...ev, prop_keys: [], prop_values: [] }), EV_CONTENT);
  const { prop_keys: _k, prop_values: _v, ...propless } = ev;
  assert.equal(eventIdentity(propless, 1), '38ba787be74ad37327eeeac96504e4e0');
  const withProps = { ...ev, prop_keys: ['n', 'ok', 'plan'], prop_values: ['3', 'true', 'pro'] };
  assert.equal(canonicalContent(withProps), `${EV_CONTENT.slice(0, -1)},["n","ok","plan"],["3","true","pro"]]`);
  assert.equal(eventIdentity(withProps, 1), 'bcc0d1a0530e6332f93b696e8e48e408');
  assert.equal(eventIdentity(withProps, 2), 'a2a07534dc34e7219b6c41f13ebf445f');
  // other values, other event: a repeat within a batch is a repeat of the props too
  assert.notEqual(eventIdentity({ ...withProps, prop_values: ['3', 'true', 'free'] }, 1), eventIdentity(withProps, 1));
  const first = identifyFirst(withProps);
  assert.equal(first.id, 'bcc0d1a0530e6332f93b696e8e48e408');
  assert.equal(first.encoded, encodeEventRow({ ...withProps, event_id: first.id } as EventRow));
  assert.deepEqual(decodeEventRow(first.encoded), { ...withProps, event_id: first.id });
});

test('a wire row of the release before custom properties (30 values) decodes as a row without any', () => {
  const old = `["38ba787be74ad37327eeeac96504e4e0",${EV_CONTENT.slice(1)}`;
  assert.deepEqual(decodeEventRow(old), { ...ev, event_id: '38ba787be74ad37327eeeac96504e4e0' });
  assert.throws(() => decodeEventRow(`["38ba787be74ad37327eeeac96504e4e0",${EV_CONTENT.slice(1, -1)},[]]`), /not an encoded event row/);
});

test('an import line with props: stored sorted in UTF-8 byte order, scalars as text, nulls dropped; none under strict', async () => {
  const nowMs = Date.parse('2025-03-10T12:00:00Z');
  const site = { id: 'site_a', hostnames: ['shop.example'], collectionProfile: 'extended' as const, profileEffectiveAt: null };
  const line = JSON.stringify({
    ts: '2025-03-09T14:05:00Z',
    type: 'pageview',
    site_id: 'site_a',
    path: '/pricing',
    visitor_key: 'my-key-1',
    // U+FFFD sorts before U+1F600 in UTF-8 bytes (code points), after it in UTF-16 units
    props: { plan: 'pro', n: 3, ok: true, x: null, '\u{1F600}': 'smile', '\uFFFD': 'replacement', title: 'kept: not mapped in an import' },
  });
  const rowsOf = async (collectionProfile: 'extended' | 'strict') => {
    const out: EventRow[] = [];
    const p = new LineProcessor(
      { format: { kind: 'events' }, nowMs, secret: 'sekret' },
      { site: () => ({ ...site, collectionProfile }), tenantSite: () => null },
      null,
    );
    const tally = await p.process([line], (row) => out.push(row), 10);
    assert.deepEqual([tally.rejected, tally.skipped], [0, 0]);
    return out;
  };
  const [row] = await rowsOf('extended');
  assert.deepEqual(row.prop_keys, ['n', 'ok', 'plan', 'title', '\uFFFD', '\u{1F600}']);
  assert.deepEqual(row.prop_values, ['3', 'true', 'pro', 'kept: not mapped in an import', 'replacement', 'smile']);
  assert.equal(row.event_id, eventIdentity(row, 1));
  const [strict] = await rowsOf('strict');
  assert.deepEqual([strict.prop_keys, strict.prop_values], [[], []]);
  assert.equal(strict.event_id, eventIdentity({ ...row, profile: 'strict', prop_keys: [], prop_values: [] }, 1));
});
