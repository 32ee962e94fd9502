// `footfall backup` while `footfall serve` collects, and `footfall restore` into a new data dir, as real
// processes: a server on the restored dir answers every read (the read API, the dashboard's reads, the
// management API, with the original's token and session) as the original did, and loads the events the
// backup held in its spool (acknowledged with a 202, not yet loaded) exactly once. Then each refusal, and
// what it says to do.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';
import { CONTROL_SQLITE_FILE } from '../../src/control/open-control-plane.js';
import { TEST_HASHER } from '../http/helpers/harness.js';
import { cliRunner } from './fixtures/cli-run.js';
import { startServe, type ServeProcess } from './fixtures/serve-process.js';

const UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0';
const PASSWORD = 'correct horse battery';
const SERVE_FLAGS = ['--geoip-db', 'off', '--collect-rate-limit', '0'];

let root: string;
let dataDir: string;
let restoredDir: string;
const orig = cliRunner(() => dataDir);
const restored = cliRunner(() => restoredDir);
/** servers still running: a failed test must not leave one (the test process would wait for it) */
const running = new Set<ServeProcess>();

async function serve(dir: string): Promise<ServeProcess> {
  const s = await startServe(dir, SERVE_FLAGS);
  running.add(s);
  void s.exited.then(() => running.delete(s));
  return s;
}

before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-backup-'));
  dataDir = path.join(root, 'data');
  restoredDir = path.join(root, 'restored');
});
after(async () => {
  for (const s of running) {
    s.proc.kill('SIGKILL');
    await s.exited;
  }
  fs.rmSync(root, { recursive: true, force: true });
});

const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);

/** Historic traffic over the last ten days: pages, referrers, campaigns, engagement, a few actions. */
function history(site: string, visitor = 'v', events = 240): string[] {
  const lines: string[] = [];
  for (let i = 0; i < events; i++) {
    const ts = `${day(1 + (i % 9))}T${String(8 + (i % 12)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00Z`;
    const base = { ts, site_id: site, visitor_key: `${visitor}${i % 70}` };
    lines.push(
      JSON.stringify({
        ...base,
        type: 'pageview',
        url: `https://shop.example.com/${['', 'pricing', 'docs', 'blog/a', 'blog/b'][i % 5]}?utm_source=${['mail', 'ads', 'social'][i % 3]}`,
        referrer: i % 4 === 0 ? 'https://www.google.com/' : undefined,
        engagement_time_ms: 1000 * (i % 17),
      }),
    );
    if (i % 6 === 0)
      lines.push(JSON.stringify({ ...base, type: 'action', action_name: 'outbound.click', action_target_host: 'docs.example.org' }));
  }
  return lines;
}

const post = (server: ServeProcess, body: unknown) =>
  fetch(`${server.address}/api/event`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'user-agent': UA },
    body: JSON.stringify(body),
  }).then((r) => r.status);

/** Pageviews of new pages, each then engaged with (engagement is what a second load would add twice). */
async function collect(server: ServeProcess, round: number, n: number): Promise<number> {
  const statuses = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const u = `https://shop.example.com/live/${round}/${i}`;
      const viewed = await post(server, { n: 'pageview', u, d: 'shop.example.com', r: i % 2 ? 'https://news.example.net/' : null });
      assert.equal(viewed, 202);
      assert.equal(await post(server, { n: 'engagement', u, d: 'shop.example.com', e: 1000 + 37 * i, sd: 50 }), 202);
      return viewed;
    }),
  );
  return statuses.length;
}

/** events_used of the workspace this month, through the command (not metered: reads change no answer). */
async function eventsUsed(runner: typeof orig, ws: string): Promise<number> {
  return (await runner.ok('usage', '--workspace', ws)).events_used;
}

/** Waits (a minute at most) until `read` gives `expected`. */
async function until(what: string, read: () => Promise<number>, expected: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  let got = await read();
  while (got !== expected && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    got = await read();
  }
  assert.equal(got, expected, what);
}

/** Every file under `dir`, relative, sorted. */
function listed(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath ?? e.path, e.name)))
    .sort();
}

interface Caller {
  token: string;
  cookie: string;
}

/** Each answer with its status, request ids and the live "as of now" instant left out (they differ by request, not by data). */
/** GET urls, and `POST <url> <json>` for the query API: each answer by its request. */
async function answers(server: ServeProcess, who: Caller, urls: string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const url of urls) {
    const headers: Record<string, string> = url.startsWith('/app/') ? { cookie: who.cookie } : { authorization: `Bearer ${who.token}` };
    const post = /^POST (\S+) (.*)$/.exec(url);
    const res = post
      ? await fetch(server.address + post[1], {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: post[2],
        })
      : await fetch(server.address + url, { headers });
    const text = await res.text();
    assert.equal(res.status, 200, `${url}: ${text}`);
    out[url] = JSON.parse(text, (k, v) => (k === 'request_id' ? undefined : v));
    const freshness = (out[url] as { meta?: { surface?: { dataFreshness?: { asOf?: string; notes: string[] } } } }).meta?.surface
      ?.dataFreshness;
    if (freshness?.notes.some((n) => n.startsWith('Live collection: every accepted event is readable'))) freshness.asOf = '(now)';
  }
  return out;
}

async function stop(server: ServeProcess): Promise<void> {
  server.proc.kill('SIGTERM');
  assert.equal(await server.exited, 0);
}

test('a backup taken while the server collects: a server on its restore answers every read as the original did, and loads the spooled events once', {
  timeout: 240_000,
}, async () => {
  const ws = (await orig.ok('workspace', 'create', '--name', 'Shop', '--plan', 'pro')).workspace_id;
  const site = (
    await orig.ok('site', 'create', '--workspace', ws, '--name', 'Shop', '--hostname', 'shop.example.com', '--profile', 'extended')
  ).site_id;
  await orig.ok(
    'goal',
    'create',
    '--site',
    site,
    '--name',
    'Pricing',
    '--type',
    'PAGEVIEW_MATCH',
    '--intent',
    'lead',
    '--pattern',
    '/pricing',
  );
  const token = (await orig.ok('token', 'create', '--workspace', ws, '--scopes', 'metrics:read,usage:read')).secret;
  fs.writeFileSync(path.join(root, 'history.ndjson'), history(site).join('\n') + '\n');
  assert.equal((await orig.ok('import', 'events', path.join(root, 'history.ndjson'))).rejected, 0);
  const cp = await openSqliteControlPlane(path.join(dataDir, CONTROL_SQLITE_FILE));
  try {
    const user = await cp.people.createUser({ email: 'ada@example.com', name: 'Ada', passwordHash: await TEST_HASHER.hash(PASSWORD) });
    await cp.people.addMember({ workspaceId: ws, userId: user.id, role: 'owner' });
  } finally {
    await cp.close();
  }

  let server = await serve(dataDir);
  const signIn = await fetch(`${server.address}/app/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'ada@example.com', password: PASSWORD }),
  });
  assert.equal(signIn.status, 200, await signIn.clone().text());
  const cookie = /footfall_session=[^;]+/.exec(signIn.headers.get('set-cookie') ?? '')![0];
  const who: Caller = { token, cookie };

  // An import through the running server: committed by it, in its write-ahead log at first (what a copy
  // of the file alone, without a checkpoint, would miss).
  fs.writeFileSync(path.join(root, 'more.ndjson'), history(site, 'w', 50).join('\n') + '\n');
  const more = await orig.ok('import', 'events', path.join(root, 'more.ndjson'));
  assert.deepEqual([more.via, more.rejected], ['server', 0]);

  const before = await eventsUsed(orig, ws);
  await collect(server, 0, 30);
  await until('the first live events are readable', () => eventsUsed(orig, ws), before + 30);
  // Then events acknowledged and, right after, a backup: the loader waits 2 s before it loads, so the
  // backup finds them in the spool (if it ever loses that race, another round is tried).
  let collected = 30;
  let backup: Record<string, any> = {};
  let out = '';
  for (let round = 1; round <= 4; round++) {
    collected += await collect(server, round, 25);
    out = path.join(root, `backup-${round}`);
    backup = (await orig.ok('backup', '--out', out)).backup;
    if (Object.values(backup.counts.spool_records as Record<string, number>).some((n) => n > 0)) break;
  }
  assert.equal(backup.taken_via, 'server');
  const spooled = Object.values(backup.counts.spool_records as Record<string, number>).reduce((a, b) => a + b, 0);
  assert.ok(spooled > 0, `the backup holds acknowledged events not yet loaded: ${JSON.stringify(backup.counts.spool_records)}`);
  assert.ok(backup.counts.events.events > 240, 'and the events loaded before it');
  assert.deepEqual(
    fs.readdirSync(root).filter((f) => f.startsWith('.')),
    [],
    'no staging directory is left beside a finished backup',
  );
  const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
  assert.deepEqual(manifest.counts, backup.counts);
  assert.ok(manifest.files.some((f: { path: string }) => /^spool\/[a-z0-9]+\/\d{12}\.log$/.test(f.path)));
  assert.equal(manifest.footfall_version, JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version);
  for (const f of manifest.files as { path: string; bytes: number; sha256: string }[]) {
    const bytes = fs.readFileSync(path.join(out, f.path));
    assert.deepEqual([bytes.length, createHash('sha256').update(bytes).digest('hex')], [f.bytes, f.sha256], f.path);
  }
  assert.equal(fs.statSync(out).mode & 0o777, 0o700, 'a backup holds what the data dir holds: private');
  for (const f of listed(out)) assert.equal(fs.statSync(path.join(out, f)).mode & 0o777, 0o600, f);
  assert.deepEqual(
    listed(out),
    [...manifest.files.map((f: { path: string }) => f.path), 'manifest.json'].sort(),
    'the manifest lists every file of the backup',
  );

  // What the original answers once it has loaded what it acknowledged (nothing else changes it meanwhile).
  await until('the original has loaded every acknowledged event', () => eventsUsed(orig, ws), before + collected);
  const from = day(9);
  const range = `site_id=${site}&from=${from}&to=${day(0)}`;
  const urls = [
    '/v1/me',
    '/v1/sites',
    `/v1/goals?site_id=${site}`,
    `/v1/reports/overview?${range}`,
    `/v1/reports/content?${range}&include=full&limit=500`,
    `/v1/reports/acquisition?${range}`,
    `/v1/reports/actions?${range}`,
    `/v1/metrics/timeseries?${range}&metric=visitors&interval=day`,
    `/v1/metrics/breakdown?${range}&metric=pageviews&dimension=page`,
    `/v1/goals/conversions?${range}`,
    `POST /api/v2/query ${JSON.stringify({ site_id: site, date_range: [from, day(0)], metrics: ['visitors', 'visits', 'pageviews', 'bounce_rate'], dimensions: ['time:day'] })}`,
    `POST /api/v2/query ${JSON.stringify({ site_id: site, date_range: [from, day(0)], metrics: ['visitors', 'events'], dimensions: ['event:page', 'visit:utm_source'], filters: [['contains', 'event:page', ['live']]] })}`,
    '/v1/usage/current',
    '/v1/usage/history',
    '/app/api/session',
    '/app/api/workspaces',
    `/app/api/workspaces/${ws}`,
    `/app/api/workspaces/${ws}/sites`,
    `/app/api/workspaces/${ws}/tokens`,
    `/app/api/workspaces/${ws}/members`,
    `/app/api/workspaces/${ws}/usage`,
    `/app/api/v1/reports/overview?${range}`,
    `/app/api/v1/reports/content?${range}&include=full&limit=500`,
  ];
  const original = await answers(server, who, urls);
  const content = original[`/v1/reports/content?${range}&include=full&limit=500`] as {
    current: { pages: { path_canon: string; pageviews: number; avg_page_eng_time_ms: number }[] };
  };
  const live = content.current.pages.filter((p) => p.path_canon.startsWith('/live/'));
  assert.equal(live.length, collected, 'every acknowledged page is read');
  assert.ok(
    live.every((p) => p.pageviews === 1 && p.avg_page_eng_time_ms === 1000 + 37 * Number(p.path_canon.split('/')[3])),
    'each once, its engagement once',
  );
  await stop(server);

  const done = (await restored.ok('restore', '--from', out)).restored;
  assert.deepEqual([done.data_dir, done.spool_records], [restoredDir, spooled]);
  assert.equal(fs.statSync(restoredDir).mode & 0o777, 0o700);
  for (const f of listed(restoredDir)) assert.equal(fs.statSync(path.join(restoredDir, f)).mode & 0o777, 0o600, f);
  server = await serve(restoredDir);
  try {
    await until('the restored server has loaded the spooled events, once', () => eventsUsed(restored, ws), before + collected);
    assert.deepEqual(await answers(server, who, urls), original);
  } finally {
    await stop(server);
  }
});

test('refusals: each names what to do, and writes nothing', { timeout: 120_000 }, async () => {
  const dir = path.join(root, 'small');
  const small = cliRunner(() => dir);
  const newDir = path.join(root, 'small-restored');
  const fresh = cliRunner(() => newDir);
  const ws = (await small.ok('workspace', 'create', '--name', 'Small', '--plan', 'starter')).workspace_id;
  const site = (
    await small.ok('site', 'create', '--workspace', ws, '--name', 'S', '--hostname', 'small.example.com', '--profile', 'strict')
  ).site_id;
  fs.writeFileSync(path.join(root, 'small.ndjson'), history(site, 's', 20).join('\n') + '\n');
  await small.ok('import', 'events', path.join(root, 'small.ndjson'));
  const out = path.join(root, 'small-backup');
  const backup = (await small.ok('backup', '--out', out)).backup;
  assert.equal(backup.taken_via, 'store', 'no server runs: the command takes the snapshot itself');
  const siblings = () => fs.readdirSync(root).filter((f) => f.startsWith('.'));

  await small.refused(['backup'], 'INVALID_ARGUMENTS', /missing --out <dir>/);
  const occupied = path.join(root, 'occupied');
  fs.mkdirSync(occupied);
  fs.writeFileSync(path.join(occupied, 'keep.txt'), 'mine');
  await small.refused(['backup', '--out', occupied], 'OUT_NOT_EMPTY', /already holds 1 entry: name a new or empty directory/, 1);
  assert.deepEqual(fs.readdirSync(occupied), ['keep.txt']);
  const scale = await small.refused(
    ['backup', '--out', path.join(root, 'pg'), '--control-url', 'postgres://db.internal:5432/footfall'],
    'NOT_EMBEDDED',
    /PostgreSQL \(FOOTFALL_CONTROL_URL\).*pg_dump.*ClickHouse/s,
  );
  assert.doesNotMatch(scale.message, /db\.internal/, 'the URL is not repeated');
  await small.refused(
    ['restore', '--from', out, '--events-url', 'clickhouse+http://ch.internal:8123/footfall'],
    'NOT_EMBEDDED',
    /BACKUP … TO/,
  );
  const nothing = path.join(root, 'nothing');
  await cliRunner(() => nothing).refused(['backup', '--out', path.join(root, 'never')], 'NOT_A_DATA_DIR', /holds no footfall data/, 1);
  assert.equal(fs.existsSync(nothing) && fs.readdirSync(nothing).length > 0, false, 'nothing made in a dir that is not a data dir');
  assert.equal(fs.existsSync(path.join(root, 'never')), false);

  // restore: into a dir holding data, from a dir that is not a whole backup, a damaged one, one of newer code
  await small.refused(['restore', '--from', out], 'TARGET_NOT_EMPTY', /restore into a new or empty directory/, 1);
  const copyOf = (name: string, change: (d: string) => void) => {
    const d = path.join(root, name);
    fs.cpSync(out, d, { recursive: true });
    change(d);
    return d;
  };
  const partial = copyOf('partial', (d) => fs.rmSync(path.join(d, 'manifest.json')));
  await fresh.refused(['restore', '--from', partial], 'BACKUP_INCOMPLETE', /holds no manifest\.json: it is not a whole backup/, 1);
  const damaged = copyOf('damaged', (d) => {
    const f = path.join(d, 'events.duckdb');
    const bytes = fs.readFileSync(f);
    bytes[bytes.length >> 1] ^= 0xff;
    fs.writeFileSync(f, bytes);
  });
  const corrupt = await fresh.refused(
    ['restore', '--from', damaged],
    'BACKUP_CORRUPT',
    /events\.duckdb does not match its sha256.*another backup/,
    1,
  );
  assert.equal(corrupt.details.problems[0].file, 'events.duckdb');
  const shorter = copyOf('shorter', (d) => fs.truncateSync(path.join(d, 'control.sqlite'), 4096));
  await fresh.refused(['restore', '--from', shorter], 'BACKUP_CORRUPT', /control\.sqlite has 4096 bytes/, 1);
  const newer = copyOf('newer', (d) => {
    const m = JSON.parse(fs.readFileSync(path.join(d, 'manifest.json'), 'utf8'));
    m.footfall_version = '99.0.0';
    m.schema.events_schema_version = 99;
    fs.writeFileSync(path.join(d, 'manifest.json'), JSON.stringify(m));
  });
  const tooNew = await fresh.refused(
    ['restore', '--from', newer],
    'BACKUP_FROM_NEWER_VERSION',
    /made by footfall 99\.0\.0, newer than this footfall .*events schema version 99.*upgrade footfall/,
    1,
  );
  assert.equal(tooNew.details.backup_version, '99.0.0');
  assert.equal(fs.existsSync(newDir), false, 'no refusal wrote the target');
  assert.deepEqual(siblings(), [], 'nor left anything beside it');

  // the untouched backup restores, and a second restore onto the same dir is refused
  const done = (await fresh.ok('restore', '--from', out)).restored;
  assert.equal(done.files, JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8')).files.length);
  assert.equal((await fresh.ok('site', 'list', '--workspace', ws)).sites[0].site_id, site);
  assert.deepEqual(listed(newDir), ['control.sqlite', 'events.duckdb']);
  await fresh.refused(['restore', '--from', out], 'TARGET_NOT_EMPTY', /already holds/, 1);
});
