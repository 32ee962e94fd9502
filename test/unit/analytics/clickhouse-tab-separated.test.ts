// The staged rows' TabSeparated text (engines/clickhouse/tab-separated.ts): escapes, nulls, and the
// type checks that keep a bad row from being stored as something else. The round trip through a
// live ClickHouse is in the event-store contract ("every value is stored as given").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodedRowsTsv, eventRowsTsv } from '../../../src/engines/clickhouse/tab-separated.js';
import { EVENT_ROW_FIELDS, encodeEventRows, type EventRow } from '../../../src/ports/event-store.js';
import { makeRow } from '../../contract/event-store.contract.js';

const fieldsOf = (tsv: string) => tsv.replace(/\n$/, '').split('\t');
const at = (f: (typeof EVENT_ROW_FIELDS)[number]) => EVENT_ROW_FIELDS.indexOf(f);

test('tab separated: separators and escapes inside text are escaped, null is \\N, booleans are 1/0', () => {
  const row = makeRow({ page_title: 'a\tb\nc\rd\\e\0f', city: null, has_click_id: true, engagement_time_ms: 1234 });
  const fields = fieldsOf(eventRowsTsv([row]));
  assert.equal(fields.length, EVENT_ROW_FIELDS.length);
  assert.equal(fields[at('page_title')], 'a\\tb\\nc\\rd\\\\e\\0f');
  assert.equal(fields[at('city')], '\\N');
  assert.equal(fields[at('has_click_id')], '1');
  assert.equal(fields[at('engagement_time_ms')], '1234');
  // the literal text \N stays text
  assert.equal(fieldsOf(eventRowsTsv([makeRow({ city: '\\N' })]))[at('city')], '\\\\N');
});

test('tab separated: encoded rows (the wire arrays) give the same text as the rows', () => {
  const rows = [makeRow({ page_title: 'x\ty' }), makeRow({ tenant_id: 't1', referrer_host: null }), makeRow({ has_click_id: true })];
  assert.equal(encodedRowsTsv(encodeEventRows(rows)), eventRowsTsv(rows));
  assert.equal(encodedRowsTsv(''), '');
});

test('tab separated: a value of the wrong type is refused, naming the field', () => {
  const bad = (over: Record<string, unknown>) => () => eventRowsTsv([makeRow(over as Partial<EventRow>)]);
  assert.throws(bad({ visitor_key: null }), /visitor_key: null is not a String/);
  assert.throws(bad({ page_title: 7 }), /page_title: 7 is not a Nullable\(String\)/);
  assert.throws(bad({ ts_ms: '1' }), /ts_ms: "1" is not a Int64/);
  assert.throws(bad({ ts_ms: 1.5 }), /ts_ms: 1.5 is not a Int64/);
  assert.throws(bad({ has_click_id: 1 }), /has_click_id: 1 is not a UInt8/);
  assert.throws(() => encodedRowsTsv('[1,2]\n'), /not an encoded event row/);
});
