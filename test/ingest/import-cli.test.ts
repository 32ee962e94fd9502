// `footfall import` output a person can act on: skips by reason, common logs, a failing exit when
// nothing went in, a warning for days the API will not serve, clear geolocation setting errors.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openControlPlane } from '../../src/control/open-control-plane.js';
import { openEventStore } from '../../src/engines/duckdb/open-event-store.js';
import { writeSampleDatabases } from '../unit/ingest/geo-samples.js';
import { importCli, logLine } from './import-cli-fixture.js';

let dir: string;
let site: string;
let geoDbs: ReturnType<typeof writeSampleDatabases>;
const { cli, file } = importCli(() => dir);

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-import-cli-'));
  geoDbs = writeSampleDatabases();
  const control = await openControlPlane({ dataDir: dir });
  // starter: the API reads 395 days back
  const ws = await control.catalog.createWorkspace({ name: 'w', plan: 'starter' });
  site = (await control.catalog.createSite({ workspaceId: ws.id, name: 's', hostnames: ['a.example'], collectionProfile: 'extended' })).id;
  await control.close();
});

after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(geoDbs.dir, { recursive: true, force: true });
});

test('skipped lines are counted by reason, in JSON and in text', async () => {
  const log = file('skips.log', [
    logLine('GET / HTTP/1.1', 200, '203.0.113.9', 1),
    logLine('GET /missing HTTP/1.1', 404, '203.0.113.9', 2),
    logLine('GET /gone HTTP/1.1', 404, '203.0.113.9', 3),
    logLine('GET /app.css HTTP/1.1', 200, '203.0.113.9', 4),
    logLine('GET /logo.png HTTP/1.1', 200, '203.0.113.9', 5),
    logLine('GET /favicon.ico HTTP/1.1', 200, '203.0.113.9', 6),
    logLine('HEAD / HTTP/1.1', 200, '203.0.113.9', 7),
    logLine('BREW /pot HTTP/1.1', 200, '203.0.113.9', 8),
    logLine('GET /.well-known/security.txt HTTP/1.1', 200, '203.0.113.9', 9),
  ]);
  const r = await cli(['import', 'access-log', log, '--site', site, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.imported, 1);
  assert.equal(out.skipped, 8);
  // most first, then by name
  assert.deepEqual(Object.entries(out.skipped_by_reason), [
    ['static file', 3],
    ['status 404', 2],
    ['method HEAD', 1],
    ['method other', 1],
    ['well-known file', 1],
  ]);
  assert.deepEqual(out.warnings, []);

  const text = await cli(['import', 'access-log', log, '--site', site]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /imported 0, rejected 0, skipped 8, duplicates 1/);
  assert.match(text.stdout, /skipped by reason: static file: 3, status 404: 2, method HEAD: 1, method other: 1, well-known file: 1/);
});

test('--format common reads the common fields of combined lines', async () => {
  const log = file('combined-as-common.log', [
    logLine('GET /common-a HTTP/1.1', 200, '198.51.100.1'),
    logLine('GET /common-b HTTP/1.1', 200, '198.51.100.2'),
  ]);
  const r = await cli(['import', 'access-log', log, '--site', site, '--format', 'common', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([JSON.parse(r.stdout).imported, JSON.parse(r.stdout).rejected], [2, 0]);
  // and a common log read as combined says what to do
  const common = file('common.log', ['198.51.100.3 - - [05/Mar/2025:10:00:00 +0000] "GET /c HTTP/1.1" 200 512']);
  const wrong = JSON.parse((await cli(['import', 'access-log', common, '--site', site, '--json'])).stdout);
  assert.match(wrong.errors[0].reason, /use --format common/);
});

test('an input none of whose lines went in fails with a clear message; a repeat of an earlier import does not', async () => {
  const junk = file('junk.log', ['garbage', logLine('GET /x.js HTTP/1.1'), logLine('GET /y HTTP/1.1', 500)]);
  const r = await cli(['import', 'access-log', junk, '--site', site, '--json']);
  assert.equal(r.code, 1, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.error.code, 'NOTHING_IMPORTED');
  assert.match(
    out.error.message,
    /nothing imported: all 3 lines were rejected or skipped: 1 rejected \(first: line 1: not a combined log line\); 2 skipped \(static file: 1, status 500: 1\)/,
  );
  assert.deepEqual([out.imported, out.rejected, out.skipped], [0, 1, 2]);
  assert.match(r.stderr, /footfall: nothing imported/);

  const text = await cli(['import', 'access-log', junk, '--site', site]);
  assert.equal(text.code, 1);
  assert.match(text.stdout, /imported 0, rejected 1, skipped 2/);

  const good = file('good.ndjson', [
    JSON.stringify({
      ts: new Date(Date.now() - 3_600_000).toISOString(),
      type: 'pageview',
      site_id: site,
      path: '/again',
      visitor_key: 'k',
    }),
  ]);
  assert.equal((await cli(['import', 'events', good, '--json'])).code, 0);
  const again = await cli(['import', 'events', good, '--json']);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual([JSON.parse(again.stdout).imported, JSON.parse(again.stdout).duplicates], [0, 1]);
  // blank lines are not lines given
  assert.equal((await cli(['import', 'events', file('empty.ndjson', ['', '  ']), '--json'])).code, 0);
});

test('days older than the workspace API retention are imported with a warning', async () => {
  const old = file('old.ndjson', [
    JSON.stringify({ ts: '2015-05-17T10:05:03Z', type: 'pageview', site_id: site, path: '/old', visitor_key: 'o' }),
    JSON.stringify({ ts: '2015-05-18T10:05:03Z', type: 'pageview', site_id: site, path: '/old', visitor_key: 'o' }),
    JSON.stringify({ ts: new Date(Date.now() - 60_000).toISOString(), type: 'pageview', site_id: site, path: '/new', visitor_key: 'o' }),
  ]);
  const r = await cli(['import', 'events', old, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.imported, 3);
  assert.equal(out.warnings.length, 1);
  const w = out.warnings[0];
  assert.deepEqual(
    [w.code, w.site_id, w.days, w.oldest_day, w.api_retention_days],
    ['OLDER_THAN_API_RETENTION', site, 2, '2015-05-17', 395],
  );
  const today = new Date().toISOString().slice(0, 10);
  assert.equal(w.min_readable_day, new Date(Date.parse(today) - 394 * 86_400_000).toISOString().slice(0, 10));
  assert.match(w.message, /2 imported days are older than the API retention of 395 days \(starter plan\), from 2015-05-17/);
  assert.match(r.stderr, /footfall: warning: site .*older than the API retention/);
});

test('a geolocation database that does not exist or is not an MMDB stops the import before it starts', async () => {
  const lines = file('geo.log', [logLine('GET /geo HTTP/1.1', 200, '81.2.69.142')]);
  const missing = await cli(['import', 'access-log', lines, '--site', site, '--json', '--geoip-db', path.join(dir, 'nope.mmdb')]);
  assert.equal(missing.code, 2);
  assert.equal(JSON.parse(missing.stdout).error.code, 'INVALID_CONFIG');
  assert.match(JSON.parse(missing.stdout).error.message, /FOOTFALL_GEOIP_DB: .*nope\.mmdb does not exist/);
  const notMmdb = await cli(['import', 'access-log', lines, '--site', site], { FOOTFALL_GEOIP_DB: geoDbs.notMmdb });
  assert.equal(notMmdb.code, 2);
  assert.match(notMmdb.stderr, /not\.mmdb is not a MaxMind DB \(MMDB\) file/);
  assert.doesNotMatch(notMmdb.stderr, /\n\s+at /, 'no stack trace');

  // the operator's own database, by flag
  const ok = await cli(['import', 'access-log', lines, '--site', site, '--json', '--geoip-db', geoDbs.maxmind]);
  assert.equal(ok.code, 0, ok.stderr);
  const store = await openEventStore({ dataDir: dir });
  try {
    const c = await store.instance.connect();
    const rows = (await c.runAndReadAll(`SELECT country, region, city FROM events WHERE path_canon = '/geo'`)).getRowObjectsJson();
    c.closeSync();
    assert.deepEqual(rows, [{ country: 'GB', region: 'GB-ENG', city: 'London' }]);
  } finally {
    await store.close();
  }
});
