// What `footfall import` reads, as a user hands it over: logs written behind a reverse proxy
// (--forwarded-for), gzip files and gzip on stdin (rotated logs), the other import's format (one
// message naming the right command, not a rejection per line), binary files and other compressions.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { openControlPlane } from '../../src/control/open-control-plane.js';
import { openEventStore } from '../../src/engines/duckdb/open-event-store.js';
import { writeSampleDatabases } from '../unit/ingest/geo-samples.js';
import { importCli, logLine, logStamp, UA } from './import-cli-fixture.js';

let dir: string;
let site: string;
let geoDbs: ReturnType<typeof writeSampleDatabases>;
const { cli, file } = importCli(() => dir);

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-import-input-'));
  geoDbs = writeSampleDatabases();
  const control = await openControlPlane({ dataDir: dir });
  const ws = await control.catalog.createWorkspace({ name: 'w', plan: 'pro' });
  site = (await control.catalog.createSite({ workspaceId: ws.id, name: 's', hostnames: ['shop.example'], collectionProfile: 'extended' }))
    .id;
  await control.close();
});

after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(geoDbs.dir, { recursive: true, force: true });
});

async function stored(sql: string): Promise<Record<string, unknown>[]> {
  const store = await openEventStore({ dataDir: dir });
  try {
    const c = await store.instance.connect();
    const rows = (await c.runAndReadAll(sql)).getRowObjectsJson();
    c.closeSync();
    return rows;
  } finally {
    await store.close();
  }
}

const event = (page: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    ts: new Date(Date.now() - 3_600_000).toISOString(),
    type: 'pageview',
    site_id: site,
    path: page,
    visitor_key: 'k1',
    ...extra,
  });

/** nginx's `main` log format behind a proxy at 10.0.0.2: the visitor is in "$http_x_forwarded_for". */
const nginxMain = (page: string, xff: string, minute: number) =>
  `10.0.0.2 - - [${logStamp(minute)}] "GET ${page} HTTP/1.1" 200 5316 "https://www.google.com/" "${UA}" "${xff}"`;

test('--forwarded-for: visitors behind a reverse proxy are told apart and located; without it they are the proxy', async () => {
  const lines = (prefix: string) => [
    nginxMain(`/${prefix}/a`, '81.2.69.142', 1), // London
    nginxMain(`/${prefix}/b`, '216.160.83.56, 10.0.0.1', 2), // Milton (WA), through a second proxy
    nginxMain(`/${prefix}/c`, '89.160.20.112', 3), // Linköping
    nginxMain(`/${prefix}/d`, '-', 4), // nothing forwarded: the proxy itself
  ];
  const plain = await cli([
    'import',
    'access-log',
    file('main-plain.log', lines('plain')),
    '--site',
    site,
    '--json',
    '--geoip-db',
    geoDbs.maxmind,
  ]);
  assert.equal(plain.code, 0, plain.stderr);
  const fwd = await cli([
    'import',
    'access-log',
    file('main-fwd.log', lines('fwd')),
    '--site',
    site,
    '--forwarded-for',
    '--json',
    '--geoip-db',
    geoDbs.maxmind,
  ]);
  assert.equal(fwd.code, 0, fwd.stderr);
  assert.equal(JSON.parse(fwd.stdout).imported, 4);

  const visitors = (prefix: string) =>
    stored(`SELECT count(DISTINCT visitor_key)::INT AS n FROM events WHERE path_canon LIKE '/${prefix}/%'`);
  assert.deepEqual(await visitors('plain'), [{ n: 1 }], 'one visitor: the proxy');
  assert.deepEqual(await visitors('fwd'), [{ n: 4 }]);
  const where = await stored(`SELECT path_canon, country, city FROM events WHERE path_canon LIKE '/%/%' ORDER BY path_canon`);
  assert.deepEqual(where, [
    { path_canon: '/fwd/a', country: 'GB', city: 'London' },
    { path_canon: '/fwd/b', country: 'US', city: 'Milton' },
    { path_canon: '/fwd/c', country: 'SE', city: 'Linköping' },
    { path_canon: '/fwd/d', country: null, city: null },
    { path_canon: '/plain/a', country: null, city: null },
    { path_canon: '/plain/b', country: null, city: null },
    { path_canon: '/plain/c', country: null, city: null },
    { path_canon: '/plain/d', country: null, city: null },
  ]);

  // A combined log without the field: the option says what it reads.
  const none = await cli([
    'import',
    'access-log',
    file('no-xff.log', [logLine('GET /no-xff HTTP/1.1')]),
    '--site',
    site,
    '--forwarded-for',
    '--json',
  ]);
  assert.equal(none.code, 1);
  assert.match(JSON.parse(none.stdout).errors[0].reason, /no quoted X-Forwarded-For field after the user agent/);
});

test('gzip files and gzip on stdin are read as they are, for both imports (told by their first bytes, not their name)', async () => {
  const rotated = path.join(dir, 'access.log.1.gz');
  fs.writeFileSync(
    rotated,
    zlib.gzipSync(
      [logLine('GET /gz-log-a HTTP/1.1', 200, '198.51.100.7', 5), logLine('GET /gz-log-b HTTP/1.1', 200, '198.51.100.7', 6)].join('\n') +
        '\n',
    ),
  );
  const log = await cli(['import', 'access-log', rotated, '--site', site, '--json']);
  assert.equal(log.code, 0, log.stderr);
  assert.deepEqual([JSON.parse(log.stdout).imported, JSON.parse(log.stdout).lines], [2, 2]);

  const ndjson = zlib.gzipSync([event('/gz-ev-a'), event('/gz-ev-b'), event('/gz-ev-c')].join('\n') + '\n');
  const named = path.join(dir, 'events-no-suffix');
  fs.writeFileSync(named, ndjson);
  const fromFile = await cli(['import', 'events', named, '--json']);
  assert.equal(fromFile.code, 0, fromFile.stderr);
  assert.equal(JSON.parse(fromFile.stdout).imported, 3);
  const fromStdin = await cli(['import', 'events', '-', '--json'], {}, ndjson);
  assert.equal(fromStdin.code, 0, fromStdin.stderr);
  assert.deepEqual([JSON.parse(fromStdin.stdout).imported, JSON.parse(fromStdin.stdout).duplicates], [0, 3]);
  const logStdin = await cli(['import', 'access-log', '-', '--site', site, '--json'], {}, fs.readFileSync(rotated));
  assert.equal(JSON.parse(logStdin.stdout).duplicates, 2);

  // several members (`cat a.gz b.gz`) are one stream
  const two = Buffer.concat([zlib.gzipSync(event('/gz-m1') + '\n'), zlib.gzipSync(event('/gz-m2') + '\n')]);
  assert.equal(JSON.parse((await cli(['import', 'events', '-', '--json'], {}, two)).stdout).imported, 2);

  // cut short past the lines looked at first: nothing of it is stored, and the message says why
  const cut = path.join(dir, 'cut.gz');
  const whole = zlib.gzipSync(Array.from({ length: 5000 }, (_, i) => event(`/gz-cut-${i}`)).join('\n'));
  fs.writeFileSync(cut, whole.subarray(0, whole.length - 100));
  const r = await cli(['import', 'events', cut, '--json']);
  assert.equal(r.code, 2);
  assert.match(JSON.parse(r.stdout).error.message, /cut\.gz starts as gzip but its data is damaged or cut short .*nothing was imported/);
  assert.deepEqual(await stored(`SELECT count(*)::INT AS n FROM events WHERE path_canon LIKE '/gz-cut-%'`), [{ n: 0 }]);
});

test('NDJSON given to import access-log, or a log given to import events, fails once naming the command to run', async () => {
  const ndjson = file('events.ndjson', [event('/mix-a'), event('/mix-b'), '', event('/mix-c')]);
  const asLog = await cli(['import', 'access-log', ndjson, '--site', site, '--json']);
  assert.equal(asLog.code, 2, asLog.stderr);
  assert.equal(JSON.parse(asLog.stdout).error.code, 'INVALID_ARGUMENTS');
  assert.equal(
    JSON.parse(asLog.stdout).error.message,
    `${ndjson} holds NDJSON events, not access-log lines: import it with \`footfall import events ${ndjson} --site ${site}\``,
  );

  const combined = file('combined.log', [logLine('GET /mix-d HTTP/1.1'), logLine('GET /mix-e HTTP/1.1', 404)]);
  const asEvents = await cli(['import', 'events', combined]);
  assert.equal(asEvents.code, 2);
  assert.equal(
    asEvents.stderr,
    `footfall: ${combined} looks like an access log (combined format), not NDJSON events: import it with \`footfall import access-log ${combined} --site SITE_ID\`\n`,
  );
  const common = await cli(
    ['import', 'events', '-', '--site', site],
    {},
    Buffer.from(`198.51.100.3 - - [${logStamp()}] "GET /c HTTP/1.1" 200 512\n`),
  );
  assert.match(
    common.stderr,
    /the input looks like an access log \(common format\), not NDJSON events: import it with `footfall import access-log - --site site_\w+ --format common`/,
  );

  // A file with some bad lines among good ones is imported as before, the bad lines rejected.
  const mixed = await cli([
    'import',
    'events',
    file('mostly-good.ndjson', ['garbage', logLine('GET /x HTTP/1.1'), event('/mix-f')]),
    '--json',
  ]);
  assert.equal(mixed.code, 0, mixed.stderr);
  assert.deepEqual([JSON.parse(mixed.stdout).imported, JSON.parse(mixed.stdout).rejected], [1, 2]);
  assert.deepEqual(await stored(`SELECT count(*)::INT AS n FROM events WHERE path_canon LIKE '/mix-%'`), [{ n: 1 }]);
});

test('a binary file, or a file compressed otherwise than gzip, is refused with one message saying what to do', async () => {
  const png = path.join(dir, 'logo.png');
  fs.writeFileSync(png, Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.alloc(200, 7)]));
  for (const args of [
    ['events', png],
    ['access-log', png, '--site', site],
  ]) {
    const r = await cli(['import', ...args]);
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      `footfall: ${png} is not a text file (it holds binary data): footfall imports NDJSON events (footfall import events) and access logs (footfall import access-log), plain or gzip-compressed\n`,
    );
  }
  const xz = path.join(dir, 'access.log.2.xz');
  fs.writeFileSync(xz, Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04, 0xe6, 0xd6]));
  const r = await cli(['import', 'access-log', xz, '--site', site]);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    new RegExp(
      `access\\.log\\.2\\.xz is xz-compressed; footfall reads plain and gzip files: decompress it, e.g. \`xzcat FILE \\| footfall import access-log - --site ${site}\``,
    ),
  );
  const missing = await cli(['import', 'events', path.join(dir, 'nope.ndjson')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /cannot read .*nope\.ndjson: no such file/);
});

test('import events --help lists the NDJSON fields; a line of another format is told every problem in one attempt', async () => {
  const help = await cli(['import', 'events', '--help']);
  assert.equal(help.code, 0);
  for (const field of [
    'ts *',
    'type *',
    'site_id *',
    'url | path',
    'visitor_key',
    'ip + user_agent',
    'traffic_class',
    'engagement_time_ms',
    'action_name',
    'form_action_path',
  ])
    assert.ok(help.stdout.includes(field), `--help names ${field}`);
  const example = help.stdout.split('\n').find((l) => l.trim().startsWith('{"ts"'))!;
  const line = JSON.parse(
    example
      .trim()
      .replace('site_…', site)
      .replace('Mozilla/5.0 …', UA)
      .replace('2025-03-09T14:03:11Z', new Date(Date.now() - 60_000).toISOString()),
  );
  const fromHelp = await cli(['import', 'events', '-', '--json'], {}, Buffer.from(JSON.stringify(line) + '\n'));
  assert.equal(JSON.parse(fromHelp.stdout).imported, 1, 'the example of --help imports');

  const plausible = {
    name: 'pageview',
    url: 'https://shop.example/pricing',
    domain: 'shop.example',
    timestamp: new Date().toISOString(),
    referrer: null,
  };
  const r = await cli(['import', 'events', '-', '--json'], {}, Buffer.from(JSON.stringify(plausible) + '\n'));
  assert.equal(r.code, 1);
  assert.deepEqual(JSON.parse(r.stdout).errors, [
    {
      line: 1,
      reason:
        'ts is required (this line has "timestamp"; footfall reads "ts"); type is required (this line has "name"; footfall reads "type"); ' +
        'site_id is required (or pass --site) (this line has "domain"; footfall reads "site_id"); visitor_key, or ip and user_agent, is required',
    },
  ]);
});
