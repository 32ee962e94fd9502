// Imports locate client addresses (docs/product.md §3): access-log lines and NDJSON lines with `ip`.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { harness, NOW, pv } from './harness.js';
import { openGeoLookup } from '../../src/ingest/parse/mmdb-geo-lookup.js';
import { importLines, type ImportSink } from '../../src/ingest/pipeline/import-lines.js';
import { importChunksParallel } from '../../src/ingest/pipeline/import-parallel.js';
import { readLineBatches, readLineChunks } from '../../src/ingest/pipeline/read-lines.js';
import { decodeEventRow, type EventRow } from '../../src/ports/event-store.js';
import { writeSampleDatabases } from '../unit/ingest/geo-samples.js';

const db = writeSampleDatabases();
after(() => fs.rmSync(db.dir, { recursive: true, force: true }));
const geo = openGeoLookup(db.maxmind);

const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const log = (ip: string, minute: number, path = '/') =>
  `${ip} - - [05/Mar/2025:10:${String(minute).padStart(2, '0')}:00 +0000] "GET ${path} HTTP/1.1" 200 512 "-" "${UA}"`;
const ACCESS_LOG = { kind: 'access-log', format: 'combined' } as const;
const GEO_COLUMNS = 'SELECT path_canon, country, region, city FROM events ORDER BY path_canon';

test('access-log lines get country, ISO 3166-2 region and city from their address; the address is not stored', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    const summary = await h.run(
      [log('81.2.69.142', 1, '/gb'), log('2001:480::1', 2, '/us6'), log('10.1.2.3', 3, '/private'), log('67.43.156.7', 4, '/bt')],
      { site: s, format: ACCESS_LOG, geo },
    );
    assert.equal(summary.imported, 4);
    assert.deepEqual(await h.query(GEO_COLUMNS), [
      { path_canon: '/bt', country: 'BT', region: null, city: null },
      { path_canon: '/gb', country: 'GB', region: 'GB-ENG', city: 'London' },
      { path_canon: '/private', country: null, region: null, city: null },
      { path_canon: '/us6', country: 'US', region: 'US-CA', city: 'San Diego' },
    ]);
    const everything = JSON.stringify(await h.query('SELECT * FROM events'));
    for (const ip of ['81.2.69.142', '2001:480::1', '10.1.2.3', '67.43.156.7']) assert.ok(!everything.includes(ip), ip);
  } finally {
    await h.close();
  }
});

test('a strict site keeps the country only', async () => {
  const h = await harness();
  try {
    const s = await h.site({ profile: 'strict' });
    await h.run([log('81.2.69.142', 1)], { site: s, format: ACCESS_LOG, geo });
    assert.deepEqual(await h.query(GEO_COLUMNS), [{ path_canon: '/', country: 'GB', region: null, city: null }]);
  } finally {
    await h.close();
  }
});

test('NDJSON lines with ip are located; explicit fields win', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    const line = (path: string, over: Record<string, unknown>) =>
      pv(s, '2025-03-05T10:00:00Z', { path, visitor_key: undefined, ip: '216.160.83.57', user_agent: UA, ...over });
    await h.run(
      [
        line('/derived', {}),
        line('/own-city', { city: 'Tacoma' }),
        line('/own-region', { country: 'US', region: 'Oregon' }),
        line('/own-country', { country: 'CA' }),
        pv(s, '2025-03-05T10:00:00Z', { path: '/keyed', visitor_key: 'k1', ip: '89.160.20.113' }),
      ],
      { geo },
    );
    assert.deepEqual(await h.query(GEO_COLUMNS), [
      { path_canon: '/derived', country: 'US', region: 'US-WA', city: 'Milton' },
      { path_canon: '/keyed', country: 'SE', region: 'SE-E', city: 'Linköping' },
      { path_canon: '/own-city', country: 'US', region: 'US-WA', city: 'Tacoma' },
      // another country than the address's: nothing derived
      { path_canon: '/own-country', country: 'CA', region: null, city: null },
      // another region: the address's city is not taken either; the line's region is stored as its code
      { path_canon: '/own-region', country: 'US', region: 'US-OR', city: null },
    ]);
  } finally {
    await h.close();
  }
});

test('without a database nothing is derived (geolocation off)', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    await h.run([log('81.2.69.142', 1)], { site: s, format: ACCESS_LOG, geo: null });
    assert.deepEqual(await h.query(GEO_COLUMNS), [{ path_canon: '/', country: null, region: null, city: null }]);
  } finally {
    await h.close();
  }
});

test('parse workers locate addresses exactly as the importing thread does', async () => {
  const h = await harness();
  try {
    const s = await h.site();
    const ips = ['81.2.69.142', '2.125.160.220', '89.160.20.120', '2001:480::9', '2001:218::1', '192.168.0.4', '175.16.199.9'];
    const text = Array.from({ length: 700 }, (_, i) => log(ips[i % ips.length], i % 60, `/p${i % 13}`)).join('\n');
    const rows = (): ImportSink & { rows: EventRow[] } => {
      const got: EventRow[] = [];
      return {
        rows: got,
        append: async (r) => {
          got.push(...r);
        },
        appendEncoded: async (t) => {
          got.push(...t.split('\n').filter(Boolean).map(decodeEventRow));
        },
        commit: async () => ({ imported: got.length, duplicates: 0, days: [] }),
        abort: async () => undefined,
      };
    };
    const opts = { format: ACCESS_LOG, catalog: h.control.catalog, nowMs: NOW, defaultSiteId: s, chunkSize: 100, geo };
    const a = rows();
    await importLines(readLineBatches(Readable.from([Buffer.from(text)])), { ...opts, sink: a });
    const b = rows();
    await importChunksParallel(readLineChunks(Readable.from([Buffer.from(text)])), {
      ...opts,
      sink: { ...b, appendEncoded: b.appendEncoded! },
      workers: 2,
    });
    assert.equal(b.rows.length, 700);
    assert.deepEqual(b.rows, a.rows);
    assert.deepEqual(new Set(a.rows.map((r) => r.country)), new Set(['GB', 'SE', 'US', 'JP', null, 'CN']));
  } finally {
    await h.close();
  }
});
