// `npm start` as a newcomer meets it: the demo is seeded into a store that holds no workspace (even one
// an earlier command created), and every start, once listening and before any request is logged, says
// where the dashboard is, how to get a token and, when the demo owner exists, gives a new sign-in link.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FOOTFALL_START } from '../helpers/footfall-bin.js';
import { freePort } from '../stack/fixtures/serve.js';
import { CLI_ENV, cliRunner } from './fixtures/cli-run.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-start-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

interface Started {
  child: ChildProcess;
  base: string;
  stdout: () => string;
  stderr: () => string;
  stop(): Promise<void>;
}

/** `npm start` in `cwd` (its data dir is ./data there), up to the end of its banner. */
async function npmStart(cwd: string): Promise<Started> {
  const port = await freePort();
  let out = '';
  let err = '';
  const child = spawn(process.execPath, [FOOTFALL_START], {
    cwd,
    env: { ...CLI_ENV, FOOTFALL_PORT: String(port), FOOTFALL_GEOIP_DB: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let i = 0; i < 600 && !/API token|another token/.test(out); i++) {
    if (child.exitCode !== null) throw new Error(`npm start exited ${child.exitCode}: ${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.match(out, /API token|another token/, `no banner: ${out}\n${err}`);
  return {
    child,
    base: `http://127.0.0.1:${port}`,
    stdout: () => out,
    stderr: () => err,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

test('package.json starts what this suite runs', () => {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
  assert.equal(pkg.scripts.start, `node ${path.relative(path.resolve('.'), FOOTFALL_START)}`);
  assert.match(pkg.scripts.prestart, /build:server/);
});

test('a data dir a command already made, with no workspace, gets the demo; the next start signs its owner in again', {
  timeout: 180_000,
}, async () => {
  const cwd = path.join(root, 'project');
  fs.mkdirSync(cwd);
  const dataDir = path.join(cwd, 'data');
  // `footfall workspace list` first: it creates control.sqlite and lists nothing.
  const { cli } = cliRunner(() => dataDir);
  assert.equal((await cli('workspace', 'list')).stdout.trim(), 'No workspaces.');
  assert.ok(fs.existsSync(path.join(dataDir, 'control.sqlite')));

  const first = await npmStart(cwd);
  try {
    assert.match(first.stderr(), /holds no workspace; seeding the demo/);
    const out = first.stdout();
    const secret = /ff_live_[0-9A-Za-z]{38}/.exec(out)?.[0];
    assert.ok(secret, out);
    assert.match(out, /one-time sign-in link, valid until .*\n\s+http:\/\/127\.0\.0\.1:\d+\/app\/sign-in\//);
    assert.match(out, new RegExp(`footfall is serving ${regexEscape(dataDir)} at ${regexEscape(first.base)}\n`));
    assert.match(out, new RegExp(`Dashboard: +${regexEscape(first.base)}/app\n`));
    assert.match(out, new RegExp(`API reference: +${regexEscape(first.base)}/docs\n`));
    // the default data dir of this folder: no --data-dir needed
    assert.match(out, /another token: +npx footfall token create --workspace ws_\w+ --scopes metrics:read,usage:read\n/);
    const me = await fetch(`${first.base}/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(me.status, 200);
  } finally {
    await first.stop();
  }
  // stopped while the demo traffic was still loading (it takes about a minute here): the load ends before
  // the store closes, and says so as news, never as an error
  if (!/demo traffic loaded/.test(first.stdout()))
    assert.match(first.stdout(), /the demo traffic stopped loading with the server; the next start loads the rest/, first.stdout());
  assert.doesNotMatch(first.stdout(), /"level":50/, first.stdout());

  const second = await npmStart(cwd);
  try {
    assert.match(second.stderr(), /holds 2 workspaces: serving them/);
    const out = second.stdout();
    assert.doesNotMatch(out, /ff_live_/, 'no token is made or shown again');
    assert.match(
      out,
      /sign in as the demo owner owner@demo\.footfall\.test with this one-time link, valid until \S+:\n\s+http:\/\/127\.0\.0\.1:\d+\/app\/sign-in\/\w+\n/,
    );
    assert.match(out, /later: npx footfall user reset-password --email owner@demo\.footfall\.test\n/);
    assert.match(out, /API token: +npx footfall token create --workspace ws_\w+ --scopes metrics:read,usage:read\n/);
    // The banner comes before the log of any request: a person reads it, then the log.
    await fetch(`${second.base}/healthz`);
    await waitFor(() => /"url":"\/healthz"/.test(second.stdout()));
    const now = second.stdout();
    assert.ok(now.indexOf('API token:') < now.indexOf('"url":"/healthz"'), now);
  } finally {
    await second.stop();
  }
});

test('a store with workspaces but no demo owner: the banner says how to invite a person, with --data-dir when it is not ./data', {
  timeout: 120_000,
}, async () => {
  const cwd = path.join(root, 'elsewhere');
  fs.mkdirSync(cwd);
  const dataDir = path.join(root, 'own-data');
  const { ok } = cliRunner(() => dataDir);
  const ws = (await ok('workspace', 'create', '--name', 'Mine', '--plan', 'free')).workspace_id as string;
  const paid = (await ok('workspace', 'create', '--name', 'Paid', '--plan', 'starter')).workspace_id as string;
  const port = await freePort();
  let out = '';
  const child = spawn(process.execPath, [FOOTFALL_START], {
    cwd,
    env: { ...CLI_ENV, FOOTFALL_PORT: String(port), FOOTFALL_DATA_DIR: dataDir, FOOTFALL_GEOIP_DB: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (out += d));
  try {
    await waitFor(() => out.includes('API token:'));
    assert.doesNotMatch(out, /Demo seeded|sign in as the demo owner/);
    assert.match(
      out,
      new RegExp(
        `a person's way in: npx footfall user invite --workspace WORKSPACE_ID --email EMAIL --role owner --data-dir ${regexEscape(dataDir)}\n`,
      ),
    );
    // the free workspace has no API: the token line names the starter one
    assert.match(
      out,
      new RegExp(
        `API token: +npx footfall token create --workspace ${paid} --scopes metrics:read,usage:read --data-dir ${regexEscape(dataDir)}\n`,
      ),
    );
    assert.ok(!out.includes(`--workspace ${ws}`));
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
});

async function waitFor(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 600 && !cond(); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(cond(), 'timed out');
}

function regexEscape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
