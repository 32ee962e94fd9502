// `footfall embed-key` and `footfall share` as a user runs them: real processes on a real data dir, one
// JSON object on stdout, the secret and the url printed once and never stored in clear, a password read
// from standard input (never an argument), refusals naming what to fix.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';
import { hashSecret } from '../../src/domain/tokens.js';
import { CLI_ENV, cliRunner } from './fixtures/cli-run.js';
import { FOOTFALL_BIN } from '../helpers/footfall-bin.js';

let dataDir: string;
const { cli, ok, refused } = cliRunner(() => dataDir);
let ws: string;
let site: string;
let tenant: string;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-embeds-cli-'));
  ws = (await ok('workspace', 'create', '--name', 'Acme', '--plan', 'pro')).workspace_id;
  site = (await ok('site', 'create', '--workspace', ws, '--name', 'Shop', '--hostname', 'shop.example.com', '--profile', 'strict')).site_id;
  tenant = (await ok('tenant', 'create', '--site', site, '--slug', 'north', '--name', 'North')).tenant_id;
});
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** `footfall` with `input` on its standard input. */
function withInput(input: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [FOOTFALL_BIN, ...args, '--data-dir', dataDir, '--json'],
      { env: CLI_ENV },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(input);
  });
}

async function controlPlane() {
  return openSqliteControlPlane(path.join(dataDir, 'control.sqlite'));
}

test('embed-key create prints the key id and its secret once; list shows neither secret; revoke', async () => {
  const made = await ok('embed-key', 'create', '--workspace', ws, '--origins', 'https://app.example.com,http://localhost:3000');
  assert.deepEqual(Object.keys(made), ['key_id', 'secret']);
  assert.match(made.key_id, /^ek_[0-9A-Za-z]{22}$/);
  assert.match(made.secret, /^ff_embed_[A-Za-z0-9_-]{43}$/);
  const { embed_keys } = await ok('embed-key', 'list', '--workspace', ws);
  assert.deepEqual(
    embed_keys.map((k: { key_id: string; origins: string[]; revoked_at: null }) => [k.key_id, k.origins, k.revoked_at]),
    [[made.key_id, ['https://app.example.com', 'http://localhost:3000'], null]],
  );
  assert.ok(!JSON.stringify(embed_keys).includes(made.secret));
  // nothing of the secret is in the control plane
  assert.ok(!fs.readFileSync(path.join(dataDir, 'control.sqlite')).includes(made.secret.slice(9)), 'the secret is not stored');
  assert.deepEqual(await ok('embed-key', 'revoke', made.key_id), { key_id: made.key_id, revoked: true });
  assert.ok((await ok('embed-key', 'list', '--workspace', ws)).embed_keys[0].revoked_at);

  const text = await cli('embed-key', 'create', '--workspace', ws);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /no origin may frame its embeds/);
  assert.match(text.stdout, /shown only now/);

  await refused(['embed-key', 'create', '--workspace', ws, '--origins', 'http://app.example.com'], 'INVALID_PARAMS', /https/);
  await refused(['embed-key', 'create'], 'INVALID_ARGUMENTS', /missing --workspace/);
  await refused(['embed-key', 'create', '--workspace', 'ws_nope'], 'NOT_FOUND', /unknown workspace/);
  await refused(['embed-key', 'revoke', 'ek_nope'], 'NOT_FOUND', /unknown embed key/);
});

test('share create prints the url once (its slug stored hashed), with a tenant, an expiry and a password from standard input; list and revoke', async () => {
  const plain = await ok('share', 'create', '--site', site, '--public-url', 'https://analytics.example.com');
  assert.deepEqual(Object.keys(plain), ['share_id', 'url']);
  const m = /^https:\/\/analytics\.example\.com\/share\/([0-9A-Za-z]{40})$/.exec(plain.url);
  assert.ok(m, plain.url);
  const slug = m[1];

  const locked = await withInput(
    'a long share password\n',
    'share',
    'create',
    '--site',
    site,
    '--tenant',
    tenant,
    '--password',
    '--expires',
    '2099-01-31T00:00:00Z',
  );
  assert.equal(locked.code, 0, locked.stderr + locked.stdout);
  const { share_id } = JSON.parse(locked.stdout);

  const cp = await controlPlane();
  try {
    const stored = await cp.embeds.getShareLink(share_id);
    assert.match(stored!.passwordHash!, /^\$argon2id\$/);
    assert.equal(stored!.tenantId, tenant);
    assert.equal(stored!.expiresAt, '2099-01-31T00:00:00.000Z');
    assert.equal((await cp.embeds.findShareLinkBySlugHash(hashSecret(slug)))!.id, plain.share_id);
  } finally {
    await cp.close();
  }
  assert.ok(!fs.readFileSync(path.join(dataDir, 'control.sqlite')).includes(slug), 'the slug is not stored');

  const { shares } = await ok('share', 'list', '--site', site);
  assert.deepEqual(
    shares.map((s: Record<string, unknown>) => [s.share_id, s.tenant_id, s.password, s.state]),
    [
      [plain.share_id, null, false, 'active'],
      [share_id, tenant, true, 'active'],
    ],
  );
  assert.ok(!JSON.stringify(shares).includes(slug));
  assert.deepEqual(await ok('share', 'revoke', plain.share_id), { share_id: plain.share_id, revoked: true });
  assert.equal((await ok('share', 'list', '--site', site)).shares[0].state, 'revoked');

  const short = await withInput('short\n', 'share', 'create', '--site', site, '--password');
  assert.equal(short.code, 2);
  assert.match(JSON.parse(short.stdout).error.message, /at least 10 characters/);
  const empty = await withInput('', 'share', 'create', '--site', site, '--password');
  assert.equal(empty.code, 2);
  assert.match(JSON.parse(empty.stdout).error.message, /no password/);
  await refused(['share', 'create', '--site', site, '--expires', '2001-01-01T00:00:00Z'], 'INVALID_PARAMS', /future/);
  await refused(['share', 'create', '--site', site, '--tenant', 'ten_nope'], 'NOT_FOUND', /unknown tenant/);
  await refused(['share', 'create', '--site', 'site_nope'], 'NOT_FOUND', /unknown site/);
  await refused(['share', 'revoke', 'shr_nope'], 'NOT_FOUND', /unknown share link/);
});
