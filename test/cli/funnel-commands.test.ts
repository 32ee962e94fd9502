// `footfall funnel create|list|delete` as a user runs them: real processes, a real data dir, JSON on
// stdout; a saved funnel is what the catalog (and POST /api/v2/funnel's funnel_id) reads.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';
import { cliRunner } from './fixtures/cli-run.js';

let dataDir: string;
const { cli, ok, refused } = cliRunner(() => dataDir);
let site: string;

before(async () => {
  dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-cli-funnel-')), 'data');
  const ws = (await ok('workspace', 'create', '--name', 'Acme', '--plan', 'pro')).workspace_id as string;
  site = (await ok('site', 'create', '--workspace', ws, '--name', 'Shop', '--hostname', 'shop.example.com', '--profile', 'extended'))
    .site_id as string;
});
after(() => fs.rmSync(path.dirname(dataDir), { recursive: true, force: true }));

test('funnel create saves the steps in order; list shows them; delete removes it', async () => {
  const created = await ok(
    'funnel',
    'create',
    '--site',
    site,
    '--name',
    'Pricing to signup',
    '--step',
    'page:/pricing*',
    '--step',
    'event:Signup',
  );
  assert.deepEqual(Object.keys(created), ['funnel_id']);
  assert.match(created.funnel_id, /^funnel_/);
  const cp = await openSqliteControlPlane(path.join(dataDir, 'control.sqlite'));
  try {
    assert.deepEqual((await cp.catalog.getFunnel(created.funnel_id))?.steps, [
      { kind: 'page', pattern: '/pricing*' },
      { kind: 'event', name: 'Signup' },
    ]);
  } finally {
    await cp.close();
  }
  const listed = await ok('funnel', 'list', '--site', site);
  assert.deepEqual(
    listed.funnels.map((f: { funnel_id: string; name: string; steps: unknown }) => [f.funnel_id, f.name, f.steps]),
    [[created.funnel_id, 'Pricing to signup', [{ page: '/pricing*' }, { event: 'Signup' }]]],
  );
  const text = await cli('funnel', 'list', '--site', site);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /"Pricing to signup"\s+page:\/pricing\* -> event:Signup/);
  assert.deepEqual(await ok('funnel', 'delete', created.funnel_id), { funnel_id: created.funnel_id, deleted: true });
  assert.deepEqual((await ok('funnel', 'list', '--site', site)).funnels, []);
});

test('funnel refusals name what to fix', async () => {
  await refused(['funnel', 'create', '--site', site, '--name', 'F'], 'INVALID_ARGUMENTS', /missing --step/);
  await refused(
    ['funnel', 'create', '--site', site, '--name', 'F', '--step', 'url:/x', '--step', 'event:E'],
    'INVALID_ARGUMENTS',
    /page:<path pattern> or event:<event name>/,
  );
  await refused(['funnel', 'create', '--site', site, '--name', 'F', '--step', 'page:/x'], 'INVALID', /2 to 8 steps/);
  await refused(
    ['funnel', 'create', '--site', site, '--name', 'F', '--step', 'page:x', '--step', 'event:E'],
    'INVALID_ARGUMENTS',
    /start with "\/"/,
  );
  await refused(
    ['funnel', 'create', '--site', 'site_nope', '--name', 'F', '--step', 'page:/a', '--step', 'event:E'],
    'NOT_FOUND',
    /unknown site/,
  );
  await refused(['funnel', 'list', '--site', 'site_nope'], 'NOT_FOUND', /unknown site "site_nope"/);
  await refused(['funnel', 'delete', 'funnel_nope'], 'NOT_FOUND', /unknown funnel "funnel_nope"/);
});
