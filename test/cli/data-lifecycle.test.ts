// The data lifecycle as a user runs it (docs/product.md §10): purge, usage, site and workspace deletion and
// import undo, as real processes on a real data dir: the embedded stores, or with FOOTFALL_TEST_STACK=scale a
// scratch PostgreSQL control plane and a scratch ClickHouse database (two shards when configured).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openAnalyticsBackend, openControlStores } from '../../src/container.js';
import { scratchDatabase, stackName } from '../http/helpers/stack.js';
import { scratchUrl, type Scratch } from '../engines/clickhouse-scratch.js';
import { firstKeptDay } from '../../src/domain/retention.js';
import { importCli } from '../ingest/import-cli-fixture.js';

let dataDir: string;
const scale = stackName() === 'scale';
/** the stores' URLs on the scale stack (none: the data dir's) */
let stores: { controlUrl?: string; eventsUrl?: string } = {};
let scratches: { drop(): Promise<void> }[] = [];
const fixture = importCli(() => dataDir);
const { file } = fixture;
const cli = (args: string[]) =>
  fixture.cli([
    ...args,
    ...(stores.controlUrl ? ['--control-url', stores.controlUrl] : []),
    ...(stores.eventsUrl ? ['--events-url', stores.eventsUrl] : []),
  ]);

async function ok(...args: string[]): Promise<Record<string, any>> {
  const r = await cli([...args, '--json']);
  assert.equal(r.code, 0, `${args.join(' ')} failed: ${r.stdout} ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function refused(args: string[], code: string, message: RegExp, exitCode = 2): Promise<void> {
  const r = await cli([...args, '--json']);
  assert.equal(r.code, exitCode, `${args.join(' ')} -> ${r.code} ${r.stdout} ${r.stderr}`);
  const body = JSON.parse(r.stdout.trim());
  assert.equal(body.error.code, code);
  assert.match(body.error.message, message);
}

const today = new Date().toISOString().slice(0, 10);
const month = today.slice(0, 7);
const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
const pageview = (site: string, ts: string, p = '/a', visitor = 'k') =>
  JSON.stringify({ ts, type: 'pageview', site_id: site, path: p, visitor_key: visitor });

async function newSite(plan: string, host: string): Promise<{ ws: string; site: string }> {
  const ws = (await ok('workspace', 'create', '--name', 'A', '--plan', plan)).workspace_id;
  const site = (await ok('site', 'create', '--workspace', ws, '--name', 'Shop', '--hostname', host, '--profile', 'strict')).site_id;
  return { ws, site };
}

async function coverage(site: string) {
  const backend = await openAnalyticsBackend({ dataDir, eventsUrl: stores.eventsUrl });
  try {
    return await backend.store.siteCoverage(site);
  } finally {
    await backend.close();
  }
}

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-lifecycle-'));
  if (scale) {
    const db = await scratchDatabase(process.env.FOOTFALL_TEST_POSTGRES_URL!);
    const cluster = process.env.FOOTFALL_TEST_CLICKHOUSE_SHARD2_URL && process.env.FOOTFALL_TEST_CLICKHOUSE_CLUSTER;
    const ch: Scratch = scratchUrl(cluster ? 'cluster' : 'single');
    scratches = [db, ch];
    stores = { controlUrl: db.url, eventsUrl: ch.url };
  }
});
after(async () => {
  for (const s of scratches) await s.drop().catch(() => undefined);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('purge: a dry run changes nothing; the real one keeps the boundary day and removes the day before it, per site and month', async () => {
  const { ws, site } = await newSite('free', 'purge.example.com');
  const keep = firstKeptDay(today, 3);
  const gone = dayBefore(keep);
  await ok(
    'import',
    'events',
    file('purge.ndjson', [
      pageview(site, `${keep}T00:00:00Z`),
      pageview(site, `${gone}T23:59:59Z`, '/b'),
      pageview(site, `${gone}T10:00:00Z`, '/c'),
    ]),
  );

  const dry = await ok('purge', '--dry-run');
  const mine = dry.sites.find((s: { site_id: string }) => s.site_id === site);
  assert.deepEqual(
    [
      mine.dry_run,
      mine.plan,
      mine.retention_months,
      mine.first_kept_day,
      mine.days,
      mine.first_day,
      mine.last_day,
      mine.events,
      mine.by_month,
    ],
    [undefined, 'free', 3, keep, 1, gone, gone, 2, [{ month: gone.slice(0, 7), events: 2 }]],
  );
  assert.equal(dry.dry_run, true);
  assert.equal((await coverage(site)).events, 3, 'a dry run changes nothing');
  const text = await cli(['purge', '--dry-run']);
  assert.match(text.stdout, new RegExp(`${site} .*would remove 2 events on 1 day`));

  const real = await ok('purge');
  assert.equal(real.sites.find((s: { site_id: string }) => s.site_id === site).events, 2);
  const left = await coverage(site);
  assert.deepEqual([left.events, left.firstEventAt?.slice(0, 10)], [1, keep], 'the boundary day stays');
  assert.equal((await ok('purge')).sites.find((s: { site_id: string }) => s.site_id === site).events, 0, 'a second run finds nothing');
  // a plan change moves the window on the next run
  await ok('workspace', 'update', ws, '--plan', 'starter');
  const moved = (await ok('purge', '--dry-run')).sites.find((s: { site_id: string }) => s.site_id === site);
  assert.deepEqual([moved.plan, moved.retention_months, moved.first_kept_day], ['starter', 14, firstKeptDay(today, 14)]);

  // events used are usage history: the purge does not lower the month's count
  const usage = await ok('usage', '--workspace', ws, '--period', gone.slice(0, 7));
  assert.equal(usage.events_used, keep.slice(0, 7) === gone.slice(0, 7) ? 3 : 2);
});

test('usage: events after an import and its undo, the plan allowance, and an unknown import', async () => {
  const { ws, site } = await newSite('starter', 'usage.example.com');
  const now = new Date(Date.now() - 60_000).toISOString();
  const imp = await ok('import', 'events', file('usage.ndjson', [pageview(site, now), pageview(site, now, '/b', 'v2')]));
  assert.match(imp.import_id, /^imp_[0-9A-Za-z]{22}$/);
  let u = await ok('usage', '--workspace', ws);
  assert.deepEqual([u.period, u.events_used, u.events_included, u.events_overage, u.units_used], [month, 2, 100_000, 0, 0]);
  assert.deepEqual(u.sites, [{ site_id: site, name: 'Shop', events_used: 2 }]);

  const undone = await ok('import', 'undo', imp.import_id);
  assert.equal(undone.undone.events, 2);
  u = await ok('usage', '--workspace', ws);
  assert.equal(u.events_used, 0);
  assert.equal((await coverage(site)).events, 0);
  assert.equal((await ok('import', 'undo', imp.import_id)).undone.events, 0, 'a second undo removes nothing');
  await refused(['import', 'undo', 'imp_nope'], 'IMPORT_NOT_FOUND', /no import imp_nope/, 1);
  await refused(['usage', '--workspace', ws, '--period', '2026-13'], 'INVALID_ARGUMENTS', /--period must be a month/);
  await refused(['usage', '--workspace', 'ws_nope'], 'NOT_FOUND', /unknown workspace "ws_nope"/);
});

test('site delete: needs --yes; then the id is unknown everywhere, its events and counts are gone, its hostname is free', async () => {
  const { ws, site } = await newSite('pro', 'gone.example.com');
  await ok('import', 'events', file('del.ndjson', [pageview(site, new Date(Date.now() - 60_000).toISOString())]));

  await refused(['site', 'delete', site], 'CONFIRMATION_REQUIRED', /add --yes.*nothing was changed/);
  assert.equal((await ok('site', 'list', '--workspace', ws)).sites.length, 1, 'nothing changed without --yes');

  const d = await ok('site', 'delete', site, '--yes');
  assert.deepEqual([d.deleted.site_id, d.deleted.workspace_id, d.deleted.removed.events], [site, ws, 1]);
  assert.deepEqual((await ok('site', 'list', '--workspace', ws)).sites, []);
  await refused(['site', 'update', site, '--name', 'X'], 'NOT_FOUND', /unknown site/);
  await refused(['site', 'delete', site, '--yes'], 'NOT_FOUND', /unknown site/);
  assert.equal((await coverage(site)).events, 0);
  assert.equal((await ok('usage', '--workspace', ws)).events_used, 0);
  const again = await ok('site', 'create', '--workspace', ws, '--name', 'Again', '--hostname', 'gone.example.com', '--profile', 'strict');
  assert.match(again.site_id, /^site_/, 'the hostname is free again');
});

test('a deletion a crash left half-way (catalog rows gone, events still stored) is finished by the command run again, or by the next purge', async () => {
  const { ws, site } = await newSite('pro', 'crash.example.com');
  const second = (await ok('site', 'create', '--workspace', ws, '--name', 'Two', '--hostname', 'two.example.com', '--profile', 'strict'))
    .site_id;
  const ts = new Date(Date.now() - 60_000).toISOString();
  await ok('import', 'events', file('crash.ndjson', [pageview(site, ts), pageview(second, ts)]));
  // the first step alone, as a process killed right after it would leave it
  const cp = await openControlStores({ dataDir, controlUrl: stores.controlUrl });
  try {
    assert.equal((await cp.lifecycle.removeSite(site))?.siteId, site);
    assert.equal((await cp.lifecycle.removeSite(second))?.siteId, second);
  } finally {
    await cp.close();
  }
  await refused(['site', 'update', site, '--name', 'X'], 'NOT_FOUND', /unknown site/, 2);
  assert.equal((await coverage(site)).events, 1, 'the events wait for the retry');

  const d = await ok('site', 'delete', site, '--yes');
  assert.equal(d.deleted.removed.events, 1);
  assert.equal((await coverage(site)).events, 0);
  const run = await ok('purge');
  assert.deepEqual(run.finished_deletions, [{ site_id: second, workspace_id: ws, events: 1 }]);
  assert.equal((await coverage(second)).events, 0);
});

test('workspace delete: needs --yes; removes its sites, their events and the workspace', async () => {
  const { ws, site } = await newSite('pro', 'ws-gone.example.com');
  await ok('import', 'events', file('ws.ndjson', [pageview(site, new Date(Date.now() - 60_000).toISOString())]));
  await refused(['workspace', 'delete', ws], 'CONFIRMATION_REQUIRED', /add --yes/);
  const d = await ok('workspace', 'delete', ws, '--yes');
  assert.deepEqual(
    d.deleted.sites.map((s: { site_id: string; removed: { events: number } }) => [s.site_id, s.removed.events]),
    [[site, 1]],
  );
  assert.ok(!(await ok('workspace', 'list')).workspaces.some((w: { workspace_id: string }) => w.workspace_id === ws));
  await refused(['workspace', 'delete', ws, '--yes'], 'NOT_FOUND', /unknown workspace/);
  assert.equal((await coverage(site)).events, 0);
  await ok('workspace', 'create', '--name', 'B', '--plan', 'pro');
  assert.equal(
    (
      await ok(
        'site',
        'create',
        '--workspace',
        (await ok('workspace', 'list')).workspaces.at(-1).workspace_id,
        '--name',
        'S',
        '--hostname',
        'ws-gone.example.com',
        '--profile',
        'strict',
      )
    ).site_id.slice(0, 5),
    'site_',
  );
});

test('while footfall serve owns the embedded store, the commands go through its admin socket', {
  skip: scale && 'ClickHouse takes every process: no admin socket',
}, async () => {
  const { startServe } = await import('./fixtures/serve-process.js');
  const { ws, site } = await newSite('pro', 'served.example.com');
  const imp = await ok(
    'import',
    'events',
    file('served.ndjson', [
      pageview(site, new Date(Date.now() - 60_000).toISOString()),
      pageview(site, new Date(Date.now() - 60_000).toISOString(), '/b'),
    ]),
  );
  const server = await startServe(dataDir);
  try {
    // the server holds the DuckDB file: a command that opened it itself would fail on its lock
    assert.equal((await ok('usage', '--workspace', ws)).events_used, 2);
    const dry = await ok('purge', '--dry-run');
    assert.equal(dry.sites.find((s: { site_id: string }) => s.site_id === site).events, 0);
    assert.equal((await ok('import', 'undo', imp.import_id)).undone.events, 2);
    await refused(['import', 'undo', 'imp_unknown'], 'IMPORT_NOT_FOUND', /no import imp_unknown/, 1);
    assert.equal((await ok('usage', '--workspace', ws)).events_used, 0);
    assert.equal((await ok('site', 'delete', site, '--yes')).deleted.site_id, site);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
  }
});
