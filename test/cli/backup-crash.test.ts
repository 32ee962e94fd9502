// kill -9 during `footfall backup` and `footfall restore`, at chosen steps (FOOTFALL_TEST_CRASH_AT makes the
// process SIGKILL itself there: src/config/crash-point.ts), as real processes: what a killed backup leaves
// is never taken for a backup (restore refuses it), a killed restore never leaves a target that looks
// restored, the data dir backed up is unharmed (a server killed holding its commit lock mid-backup
// included), and running the same command again finishes the job.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FOOTFALL_BIN } from '../helpers/footfall-bin.js';
import { CLI_ENV, cliRunner } from './fixtures/cli-run.js';
import { startServe, type ServeProcess } from './fixtures/serve-process.js';

let root: string;
let dataDir: string;
const data = cliRunner(() => dataDir);
let siteId: string;
let workspaceId: string;
const running = new Set<ServeProcess>();

/** `footfall …` with the crash point set; resolves with how it ended. */
function killedAt(point: string, args: string[]): Promise<{ signal: string | null; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [FOOTFALL_BIN, ...args, '--json'],
      { env: { ...CLI_ENV, FOOTFALL_TEST_CRASH_AT: point } },
      (_e, _o, stderr) => resolve({ signal: child.signalCode, code: child.exitCode, stderr }),
    );
  });
}

const hidden = () =>
  fs
    .readdirSync(root)
    .filter((f) => f.startsWith('.'))
    .sort();

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-backup-crash-'));
  dataDir = path.join(root, 'data');
  workspaceId = (await data.ok('workspace', 'create', '--name', 'W', '--plan', 'starter')).workspace_id;
  siteId = (
    await data.ok('site', 'create', '--workspace', workspaceId, '--name', 'S', '--hostname', 'crash.example.com', '--profile', 'strict')
  ).site_id;
  const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const lines = Array.from({ length: 120 }, (_, i) =>
    JSON.stringify({
      ts: `${day}T10:${String(i % 60).padStart(2, '0')}:00Z`,
      type: 'pageview',
      site_id: siteId,
      path: `/p${i % 9}`,
      visitor_key: `k${i}`,
    }),
  );
  fs.writeFileSync(path.join(root, 'events.ndjson'), lines.join('\n') + '\n');
  await data.ok('import', 'events', path.join(root, 'events.ndjson'));
});
after(async () => {
  for (const s of running) {
    s.proc.kill('SIGKILL');
    await s.exited;
  }
  fs.rmSync(root, { recursive: true, force: true });
});

const events = async (runner = data) => (await runner.ok('usage', '--workspace', workspaceId)).events_used as number;

test('a backup killed half-way is never taken for one, and running it again finishes it', async () => {
  const out = path.join(root, 'b1');
  const partialAt = async (point: string) => {
    const run = await killedAt(point, ['backup', '--out', out, '--data-dir', dataDir]);
    assert.equal(run.signal, 'SIGKILL', `killed at ${point}: ${run.stderr}`);
    assert.equal(fs.existsSync(out), false, `no ${out} after a kill at ${point}`);
    const left = hidden();
    assert.equal(left.length, 1, `one sibling left: ${left}`);
    assert.match(left[0], /^\.b1\.partial-/);
    return path.join(root, left[0]);
  };
  const fresh = cliRunner(() => path.join(root, 'never'));

  // killed after two files of the snapshot (no server runs: the command writes them itself)
  let partial = await partialAt('backup-file:2');
  assert.ok(fs.readdirSync(partial).includes('events.duckdb'), 'it had written some of it');
  await fresh.refused(['restore', '--from', out], 'BACKUP_NOT_FOUND', /is not a directory/, 1);
  await fresh.refused(['restore', '--from', partial], 'BACKUP_INCOMPLETE', /not a backup/, 1);

  // killed once manifest.json is written, before the directory is renamed: still not a backup
  fs.rmSync(partial, { recursive: true });
  partial = await partialAt('backup-manifest');
  assert.ok(fs.readdirSync(partial).includes('manifest.json'));
  await fresh.refused(['restore', '--from', partial], 'BACKUP_INCOMPLETE', /still being written, or one a stopped backup left half-way/, 1);
  assert.equal(fs.existsSync(path.join(root, 'never')), false);

  // The data dir is unharmed, and the same command finishes the job (clearing what the kill left).
  assert.equal(await events(), 120);
  const done = (await data.ok('backup', '--out', out)).backup;
  assert.deepEqual([done.taken_via, done.counts.events.events], ['store', 120]);
  assert.deepEqual(hidden(), []);
  const restoredDir = path.join(root, 'r1');
  await cliRunner(() => restoredDir).ok('restore', '--from', out);
  assert.equal(await events(cliRunner(() => restoredDir)), 120);
});

test('a server killed while it writes a backup under its commit lock: the data dir is whole after a restart, and the backup then completes', async () => {
  const out = path.join(root, 'b2');
  let server = await startServe(dataDir, ['--geoip-db', 'off'], { FOOTFALL_TEST_CRASH_AT: 'backup-file:1' });
  running.add(server);
  const run = await data.cli('backup', '--out', out, '--json');
  assert.equal(run.code, 1, run.stderr);
  assert.equal(JSON.parse(run.stdout).error.code, 'ADMIN_SOCKET_CLOSED', 'the command says the server went away');
  assert.equal(await server.exited, 'SIGKILL', 'the server died after copying the events store, holding the commit lock');
  running.delete(server);
  assert.equal(fs.existsSync(out), false);
  assert.equal(hidden().length, 0, 'the command cleared its sibling when the server failed it');

  server = await startServe(dataDir, ['--geoip-db', 'off']);
  running.add(server);
  try {
    assert.equal(await events(), 120, 'nothing of the data dir was lost');
    const status = await fetch(`${server.address}/api/event`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0' },
      body: JSON.stringify({ n: 'pageview', u: 'https://crash.example.com/after', d: 'crash.example.com' }),
    });
    assert.equal(status.status, 202, 'and it collects');
    const done = (await data.ok('backup', '--out', out)).backup;
    assert.equal(done.taken_via, 'server');
    assert.equal(
      done.counts.events.events + Object.values(done.counts.spool_records as Record<string, number>).reduce((a, b) => a + b, 0),
      121,
      'the backup holds every event, stored or spooled',
    );
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    running.delete(server);
  }
});

test('a restore killed half-way leaves the target as it was, and running it again finishes it', async () => {
  const from = path.join(root, 'b1');
  const target = path.join(root, 'r2');
  const restore = cliRunner(() => target);
  const manifest = JSON.parse(fs.readFileSync(path.join(from, 'manifest.json'), 'utf8'));
  for (const point of ['restore-file:1', 'restore-verified']) {
    const run = await killedAt(point, ['restore', '--from', from, '--data-dir', target]);
    assert.equal(run.signal, 'SIGKILL', `killed at ${point}: ${run.stderr}`);
    assert.equal(fs.existsSync(target), false, `${target} does not look restored after a kill at ${point}`);
    assert.equal(hidden().filter((f) => f.startsWith('.r2.restoring-')).length, 1, 'the sibling it was writing is left');
  }
  // an empty target made meanwhile stays empty too
  fs.mkdirSync(target);
  const run = await killedAt('restore-verified', ['restore', '--from', from, '--data-dir', target]);
  assert.equal(run.signal, 'SIGKILL');
  assert.deepEqual(fs.readdirSync(target), []);

  const done = (await restore.ok('restore', '--from', from)).restored;
  assert.equal(done.files, manifest.files.length);
  assert.deepEqual(
    hidden().filter((f) => f.startsWith('.r2.')),
    [],
    'the leftovers of the killed runs are cleared',
  );
  assert.equal(await events(restore), 120);
});
