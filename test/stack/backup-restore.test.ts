// Backups of the scale stack with the engines' own tools, as README's "Backups and upgrades" gives them
// (docs/decisions/upgrades.md): pg_dump of footfall's schema, and on each ClickHouse shard ALTER TABLE
// ... FREEZE of every table with the shadow directory copied and the table definitions kept. Everything
// is dropped, restored (pg_restore; CREATE from the definitions, the parts copied into detached/,
// ATTACH PARTITION), and `footfall stats --against` the stats taken with the backup says whether the
// restore is whole: it fails while a shard is missing, passes once all are back, and /v1 answers as
// before. Own names throughout: a scratch PostgreSQL database (schema footfall) and ClickHouse database.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ClickHouseNode } from '../../src/engines/clickhouse/node.js';
import { FOOTFALL_BIN } from '../helpers/footfall-bin.js';
import { CLI_ENV } from '../cli/fixtures/cli-run.js';
import { needs, unavailable } from '../helpers/services.js';
import { scratchDatabase } from '../http/helpers/stack.js';
import { scratchUrl } from '../engines/clickhouse-scratch.js';
import { FIXTURE_NOW, FROZEN_CLOCK, serveFixture, visitLines, withoutVolatile } from '../upgrades/fixture-plan.js';

const skip =
  needs(
    'FOOTFALL_TEST_POSTGRES_URL',
    'FOOTFALL_TEST_CLICKHOUSE_URL',
    'FOOTFALL_TEST_CLICKHOUSE_SHARD2_URL',
    'FOOTFALL_TEST_CLICKHOUSE_CLUSTER',
  ) ||
  (['pg_dump', 'pg_restore'].some((t) => !fs.existsSync(`/usr/bin/${t}`))
    ? unavailable('pg_dump and pg_restore are not in /usr/bin')
    : false);

const SCHEMA = 'footfall';
const ARGV = ['--import', FROZEN_CLOCK, FOOTFALL_BIN];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

test('scale stack: pg_dump and ClickHouse FREEZE per shard, everything dropped, restored with the engines; stats and answers as before', {
  skip,
  timeout: 240_000,
}, async (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-backup-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const pgdb = await scratchDatabase(process.env.FOOTFALL_TEST_POSTGRES_URL!);
  t.after(() => pgdb.drop());
  await psql(pgdb.url, `create schema ${SCHEMA}`);
  const ch = scratchUrl('cluster');
  t.after(() => ch.drop());
  const env = {
    ...CLI_ENV,
    FOOTFALL_FROZEN_NOW: FIXTURE_NOW,
    FOOTFALL_CONTROL_URL: `${pgdb.url}?options=${encodeURIComponent(`-c search_path=${SCHEMA}`)}`,
    FOOTFALL_EVENTS_URL: ch.url,
    FOOTFALL_DATA_DIR: path.join(tmp, 'data'),
  };
  const cli = (...args: string[]): Promise<Run> =>
    new Promise((resolve) =>
      execFile(process.execPath, [...ARGV, ...args], { env }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
  const ok = async (...args: string[]) => {
    const r = await cli(...args, '--json');
    assert.equal(r.code, 0, `footfall ${args.join(' ')}: ${r.stdout} ${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').pop()!);
  };

  // ---- a stack with data: a workspace, a site with tenants, a token, events on both shards ----
  const ws = (await ok('workspace', 'create', '--name', 'Backed up', '--plan', 'pro')).workspace_id;
  const site = (await ok('site', 'create', '--workspace', ws, '--name', 'Shop', '--hostname', 'shop.backup.test', '--profile', 'extended'))
    .site_id;
  const tenant = (await ok('tenant', 'create', '--site', site, '--slug', 'acme', '--name', 'Acme')).tenant_id;
  const secret = (await ok('token', 'create', '--workspace', ws, '--scopes', 'metrics:read,usage:read')).secret;
  const lines = visitLines({ siteId: site, host: 'shop.backup.test', tenants: [tenant], visits: 60, seed: 7, daysBack: 6 });
  fs.writeFileSync(path.join(tmp, 'events.ndjson'), `${lines.join('\n')}\n`);
  assert.ok((await ok('import', 'events', path.join(tmp, 'events.ndjson'))).imported > 0);

  // ---- the backup (nothing is serving): the stats, pg_dump, and each shard frozen ----
  const backup = path.join(tmp, 'backup');
  fs.mkdirSync(backup);
  const stats = await cli('stats', '--json');
  assert.equal(stats.code, 0, stats.stderr);
  fs.writeFileSync(path.join(backup, 'stats.json'), stats.stdout);
  assert.ok(JSON.parse(stats.stdout).event_tables['shard 2'].events > 0, 'both shards hold events');
  execFileSync('pg_dump', ['--format=custom', `--schema=${SCHEMA}`, `--file=${path.join(backup, 'control.dump')}`, pgdb.url]);
  const shards = shardNodes(ch.database);
  t.after(() => Promise.all(shards.map((s) => s.node.close())));
  for (const s of shards) await freezeShard(s, path.join(backup, `shard${s.num}`));

  // ---- what /v1 answers before (on the backed-up state: restored, it charges the same units) ----
  const requests = [
    `/v1/reports/overview?site_id=${site}&from=2026-11-14&to=2026-11-20`,
    `/v1/metrics/breakdown?site_id=${site}&dimension=tenant&metric=events&from=2026-11-14&to=2026-11-20`,
    `/v1/metrics/timeseries?site_id=${site}&metric=visitors&compare=prev_period`,
    '/v1/usage/current',
  ];
  const answers = async () => {
    const server = await serveFixture(ARGV, env.FOOTFALL_DATA_DIR, env);
    try {
      const out: unknown[] = [];
      for (const r of requests) {
        const res = await fetch(`${server.base}${r}`, { headers: { authorization: `Bearer ${secret}` } });
        // a request's own id is the one thing that differs from run to run
        out.push(
          withoutVolatile({ name: r, path: r, status: res.status, contentType: res.headers.get('content-type'), body: await res.json() }),
        );
      }
      return out;
    } finally {
      await server.stop();
    }
  };
  const before = await answers();

  // ---- disaster: footfall's schema and the database on both shards are gone ----
  await psql(pgdb.url, `drop schema ${SCHEMA} cascade`);
  for (const s of shards) await s.admin.command(`DROP DATABASE ${ch.database}`);

  // ---- restore: pg_restore, then shard by shard; the stats tell a partial restore from a whole one ----
  execFileSync('pg_restore', [`--dbname=${pgdb.url}`, path.join(backup, 'control.dump')]);
  await restoreShard(shards[0], path.join(backup, 'shard1'));
  const partial = await cli('stats', '--against', path.join(backup, 'stats.json'), '--json');
  assert.equal(partial.code, 1, partial.stdout);
  const refused = JSON.parse(partial.stdout).error;
  assert.equal(refused.code, 'STATS_DIFFER');
  assert.ok(
    refused.details.differences.some((d: string) => d.startsWith('event_tables.shard 2.events:')),
    refused.details.differences.join('\n'),
  );
  // the stats opened the stack: footfall made the missing database on shard 2 anew, empty; the restore drops it first
  await shards[1].admin.command(`DROP DATABASE IF EXISTS ${ch.database}`);
  await restoreShard(shards[1], path.join(backup, 'shard2'));
  const whole = await cli('stats', '--against', path.join(backup, 'stats.json'), '--json');
  assert.equal(whole.code, 0, `${whole.stdout} ${whole.stderr}`);
  assert.equal(JSON.parse(whole.stdout).matches, true);

  assert.deepEqual(await answers(), before, '/v1 answers as before the disaster');
});

async function psql(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

interface ShardNode {
  num: number;
  /** a connection to `default` (the footfall database may be gone) */
  admin: ClickHouseNode;
  node: ClickHouseNode;
  database: string;
}

function shardNodes(database: string): ShardNode[] {
  return [process.env.FOOTFALL_TEST_CLICKHOUSE_URL!, process.env.FOOTFALL_TEST_CLICKHOUSE_SHARD2_URL!].map((u, i) => {
    const http = u.replace(/^clickhouse\+/, '').replace(/\/[^/]*$/, '');
    return {
      num: i + 1,
      admin: new ClickHouseNode({ url: http, database: 'default', username: 'default', password: '' }),
      node: new ClickHouseNode({ url: http, database: 'default', username: 'default', password: '' }),
      database,
    };
  });
}

/** The server's data path (its config's <path>), from where it keeps a part of the database. */
async function dataPath(s: ShardNode): Promise<string> {
  const [p] = await s.admin.query<{ path: string }>(`SELECT path FROM system.parts WHERE database = '${s.database}' AND active LIMIT 1`);
  assert.ok(p, `shard ${s.num} holds parts of ${s.database}`);
  const root = p.path.slice(0, p.path.indexOf(`/data/${s.database}/`) + 1);
  assert.ok(fs.existsSync(path.join(root, 'data', s.database)), `${root} is this server's data path, on this machine`);
  return root;
}

/**
 * README's backup of one shard: every table's definition (SHOW CREATE TABLE), every MergeTree table's
 * active partitions and frozen parts (ALTER TABLE ... FREEZE, then its shadow/<increment>/ copied).
 */
async function freezeShard(s: ShardNode, dir: string): Promise<void> {
  const root = await dataPath(s);
  fs.mkdirSync(dir, { recursive: true });
  const tables = await s.admin.query<{ name: string; engine: string }>(
    `SELECT name, engine FROM system.tables WHERE database = '${s.database}' ORDER BY name`,
  );
  const manifest: Array<{ name: string; engine: string; create: string; partitions: string[] }> = [];
  for (const { name, engine } of tables) {
    const [{ statement }] = await s.admin.query<{ statement: string }>(`SHOW CREATE TABLE ${s.database}.${name}`);
    let partitions: string[] = [];
    if (engine.endsWith('MergeTree')) {
      partitions = (
        await s.admin.query<{ partition: string }>(
          `SELECT DISTINCT partition FROM system.parts WHERE database = '${s.database}' AND table = '${name}' AND active ORDER BY partition`,
        )
      ).map((p) => p.partition);
      await s.admin.command(`ALTER TABLE ${s.database}.${name} FREEZE`);
      const increment = fs.readFileSync(path.join(root, 'shadow', 'increment.txt'), 'utf8').trim();
      const frozen = path.join(root, 'shadow', increment, 'data', s.database, name);
      if (fs.existsSync(frozen)) fs.cpSync(frozen, path.join(dir, name), { recursive: true });
      fs.rmSync(path.join(root, 'shadow', increment), { recursive: true, force: true });
    }
    manifest.push({ name, engine, create: statement, partitions });
  }
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ root, tables: manifest }, null, 2));
}

/** README's restore of one shard: the database and its tables (views last), the parts attached. */
async function restoreShard(s: ShardNode, dir: string): Promise<void> {
  const { root, tables: manifest } = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as {
    root: string;
    tables: Array<{ name: string; engine: string; create: string; partitions: string[] }>;
  };
  await s.admin.command(`CREATE DATABASE ${s.database}`);
  const views = manifest.filter((m) => m.engine === 'View');
  for (const m of [...manifest.filter((x) => x.engine !== 'View'), ...views]) await s.admin.command(m.create);
  for (const m of manifest) {
    if (!m.partitions.length) continue;
    fs.cpSync(path.join(dir, m.name), path.join(root, 'data', s.database, m.name, 'detached'), { recursive: true });
    for (const p of m.partitions) await s.admin.command(`ALTER TABLE ${s.database}.${m.name} ATTACH PARTITION ${p}`);
  }
}
