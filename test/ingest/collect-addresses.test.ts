// "The client address and User-Agent give the daily visitor key, device, browser, OS, bot class and
// location, and are then dropped" (README, Live collection): an address collected live is in no file
// of the data dir and no table of the store, neither in the spool while it waits nor after the loader
// has moved it (events, sessions, rollups and whatever else the store keeps). The import path's events
// are checked in geolocation.test.ts.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { collectHarness, pageview } from '../http/helpers/collect.js';
import type { DuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { writeSampleDatabases } from '../unit/ingest/geo-samples.js';

const db = writeSampleDatabases();
after(() => fs.rmSync(db.dir, { recursive: true, force: true }));

/** Each client address as sent, and the spellings it could be stored under. */
const ADDRESSES: { sent: string; spellings: string[] }[] = [
  { sent: '81.2.69.142', spellings: ['81.2.69.142'] },
  { sent: '2001:480::1', spellings: ['2001:480::1', '2001:480:0:0:0:0:0:1', '2001:0480:0000:0000:0000:0000:0000:0001'] },
  // a dual-stack socket's spelling of an IPv4 client
  { sent: '::ffff:216.160.83.57', spellings: ['216.160.83.57', '::ffff:216.160.83.57', '::ffff:d8a0:5339'] },
];

/** Every file under `dir`, as bytes (latin1 text: an address in ASCII or UTF-8 reads the same). */
function filesUnder(dir: string): { file: string; text: string }[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const file = path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name);
      return { file, text: fs.readFileSync(file).toString('latin1') };
    });
}

function holdingAnAddress(where: { name: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { name, text } of where)
    for (const a of ADDRESSES) for (const s of a.spellings) if (text.includes(s)) found.push(`${name}: ${s}`);
  return found;
}

test('an address collected live is stored nowhere: not in the spool while it waits, not in any table or file after the load', async () => {
  const h = await collectHarness({ config: { geoipDb: db.maxmind } });
  try {
    for (const [i, a] of ADDRESSES.entries()) {
      const url = `https://live.example/from-${i}`;
      assert.equal((await h.post(pageview(url), { ip: a.sent })).statusCode, 202);
      assert.equal((await h.post({ n: 'engagement', d: 'live.example', u: url, e: 4000 }, { ip: a.sent })).statusCode, 202);
      assert.equal((await h.post({ n: 'Signup', d: 'live.example', u: url }, { ip: a.sent })).statusCode, 202);
    }
    const dataDir = h.container.config.dataDir;
    const spool = filesUnder(path.join(dataDir, 'spool'));
    assert.ok(
      spool.some((f) => f.text.includes('/from-2')),
      'the spool holds the waiting events',
    );
    assert.deepEqual(holdingAnAddress(spool.map((f) => ({ name: f.file, text: f.text }))), [], 'the spool');

    await h.flush();
    // the addresses were used: each located (sample GeoIP database)
    const cities = await h.breakdown('city');
    assert.deepEqual(cities, { London: 1, 'San Diego': 1, Milton: 1 });

    const store = h.container.events as DuckDbEventStore;
    const c = await store.instance.connect();
    const tables: { name: string; text: string }[] = [];
    try {
      const names = (await c.runAndReadAll(`SELECT schema_name, table_name FROM duckdb_tables() ORDER BY 1, 2`)).getRowObjectsJson() as {
        schema_name: string;
        table_name: string;
      }[];
      assert.ok(
        names.some((t) => t.table_name === 'sessions') && names.some((t) => t.table_name === 'events'),
        names.map((t) => t.table_name).join(),
      );
      for (const t of names) {
        const rows = (await c.runAndReadAll(`SELECT * FROM "${t.schema_name}"."${t.table_name}"`)).getRowObjectsJson();
        tables.push({ name: `${t.schema_name}.${t.table_name}`, text: JSON.stringify(rows) });
      }
    } finally {
      c.closeSync();
    }
    assert.ok(tables.find((t) => t.name.endsWith('.events'))!.text.includes('/from-1'), 'the events were loaded');
    assert.deepEqual(holdingAnAddress(tables), [], 'the store');
    assert.deepEqual(holdingAnAddress(filesUnder(dataDir).map((f) => ({ name: f.file, text: f.text }))), [], 'the data dir');
  } finally {
    await h.close();
  }
});
