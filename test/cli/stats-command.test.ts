// `footfall stats` on the embedded stack (the scale stack's backup test, test/stack/backup-restore.test.ts,
// does the rest): what the stores hold, and --against an earlier `footfall stats --json` naming each
// difference (exit 1, STATS_DIFFER), or saying they hold the same (exit 0).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliRunner } from './fixtures/cli-run.js';

test('stats counts what the stores hold; --against tells the same stores from changed ones', { timeout: 60_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-stats-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const { ok, cli, refused } = cliRunner(() => path.join(dir, 'data'));
  const ws = (await ok('workspace', 'create', '--name', 'Counted', '--plan', 'pro')).workspace_id;
  const site = (await ok('site', 'create', '--workspace', ws, '--name', 'S', '--hostname', 'stats.example.com', '--profile', 'strict'))
    .site_id;
  const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const events = [0, 1, 2].map((i) =>
    JSON.stringify({ ts: `${day}T10:0${i}:00Z`, type: 'pageview', site_id: site, path: `/p${i}`, visitor_key: `v${i}` }),
  );
  fs.writeFileSync(path.join(dir, 'e.ndjson'), `${events.join('\n')}\n`);
  await ok('import', 'events', path.join(dir, 'e.ndjson'));

  const stats = await ok('stats');
  assert.equal(stats.control.workspaces, 1);
  assert.equal(stats.control.sites, 1);
  assert.equal(stats.event_tables.duckdb.events, 3);
  assert.deepEqual(stats.sites[site], {
    workspace_id: ws,
    days: 1,
    first_day: day,
    last_day: day,
    events: 3,
    by_month: { [day.slice(0, 7)]: 3 },
    counted: { [day.slice(0, 7)]: 3 },
  });
  const file = path.join(dir, 'stats.json');
  fs.writeFileSync(file, JSON.stringify(stats));
  assert.equal((await ok('stats', '--against', file)).matches, true);

  await ok('site', 'delete', site, '--yes');
  const differ = await refused(['stats', '--against', file], 'STATS_DIFFER', /differ from .*stats\.json/, 1);
  assert.ok(differ.details.differences.includes('control.sites: 1 then, 0 now'), differ.details.differences.join('\n'));
  assert.ok(differ.details.differences.includes('event_tables.duckdb.events: 3 then, 0 now'), differ.details.differences.join('\n'));
  assert.ok(differ.details.differences.some((d: string) => d.startsWith(`sites.${site}: {`) && d.endsWith(' then, absent now')));

  fs.writeFileSync(file, '{"not": "stats"}');
  await refused(['stats', '--against', file], 'INVALID_ARGUMENTS', /not the output of `footfall stats --json`/);
  const missing = await cli('stats', '--against', path.join(dir, 'nope.json'));
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /cannot read it as JSON/);
});
