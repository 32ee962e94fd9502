// The spools of one data dir: a spool per process when processes share it, the spools of dead
// processes loaded exactly once by one live process, one process only when it owns the data dir, and
// the layout of earlier versions (one spool in spool/ itself) moved into place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataDirInUseError, openOwnSpool } from '../../../src/ingest/collect/spool-root.js';
import { OrphanLoader } from '../../../src/ingest/collect/orphan-loader.js';
import { encodeRecord, segmentFile } from '../../../src/ingest/collect/spool-format.js';
import { fileStore } from './fixtures/file-store.js';

const CHILD = fileURLToPath(new URL('./fixtures/spool-child.ts', import.meta.url));
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-spools-'));
const spoolDirs = (root: string) =>
  fs
    .readdirSync(root)
    .filter((n) => /^[a-z0-9]{8,64}$/.test(n))
    .sort();

/** Runs the child fixture; resolves with its first line of output (JSON) and the process. */
function child(args: string[]): Promise<{ out: any; proc: ChildProcess }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ out: JSON.parse(out.slice(0, out.indexOf('\n'))), proc });
    });
    proc.on('exit', (code) => reject(new Error(`spool child exited ${code} without an answer: ${err}`)));
  });
}

const kill9 = (proc: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once('exit', () => resolve());
    proc.kill('SIGKILL');
  });

test('processes sharing a data dir each get a spool of their own; a restart takes its spool back', async () => {
  const root = tmp();
  const other = await child(['own', root, '1', '3']);
  try {
    const mine = await openOwnSpool(root, { shared: true });
    assert.notEqual(mine.spool.dir, other.out.dir);
    assert.equal(mine.rootLock, null, 'a shared data dir is not held past the start');
    assert.deepEqual(spoolDirs(root), [other.out.id, mine.spool.id].sort());
    await mine.spool.close();
    const again = await openOwnSpool(root, { shared: true });
    assert.equal(again.spool.id, mine.spool.id, 'the spool nobody holds is taken back, not a new one made');
    await again.spool.close();
  } finally {
    await kill9(other.proc);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('the spool of a process killed with kill -9 is loaded once, by one of two processes racing for it, then removed', async () => {
  const root = tmp();
  const store = tmp();
  try {
    const dead = await child(['own', root, '1', '3000']);
    await kill9(dead.proc);
    // Two processes look for orphans at once, each committing batches of 100 slowly.
    const [a, b] = await Promise.all([child(['orphans', root, store, '100']), child(['orphans', root, store, '100'])]);
    const loaded = [...a.out.loaded, ...b.out.loaded];
    assert.equal(loaded.length, 1, `one process loaded it: ${JSON.stringify(loaded)}`);
    assert.equal(loaded[0].records, 3000);
    const payloads = fs.readFileSync(path.join(store, 'events'), 'utf8').trim().split('\n');
    assert.equal(payloads.length, 3000);
    assert.equal(new Set(payloads).size, 3000, 'no record twice');
    assert.deepEqual(spoolDirs(root), [], 'the loaded spool is removed');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(store, { recursive: true, force: true });
  }
});

test('a spool whose loading stopped halfway is loaded on from its checkpoint, nothing twice', async () => {
  const root = tmp();
  const store = tmp();
  try {
    const dead = await child(['own', root, '1', '500']);
    await kill9(dead.proc);
    // This process stops looking after its first batch (a server shutting down mid-load).
    let batches = 0;
    const inner = fileStore(store);
    const counting: typeof inner = {
      checkpoint: (s) => inner.checkpoint(s),
      beginImport: async (o) => {
        const session = await inner.beginImport(o);
        const commit = session.commit.bind(session);
        session.commit = async () => {
          const r = await commit();
          if (++batches === 1) void first.stop();
          return r;
        };
        return session;
      },
    };
    const first = new OrphanLoader({ root, own: '', store: counting, intervalMs: null, loader: { maxBatch: 100 } });
    await first.scan();
    assert.deepEqual(first.loaded, []);
    assert.equal(fs.readFileSync(path.join(store, 'events'), 'utf8').trim().split('\n').length, 100);
    assert.deepEqual(spoolDirs(root), [dead.out.id], 'the spool stays until it is loaded whole');

    const second = new OrphanLoader({ root, own: '', store: fileStore(store), intervalMs: null, loader: { maxBatch: 1000 } });
    await second.scan();
    assert.deepEqual(
      second.loaded.map((l) => l.records),
      [400],
    );
    const payloads = fs.readFileSync(path.join(store, 'events'), 'utf8').trim().split('\n');
    assert.deepEqual([payloads.length, new Set(payloads).size], [500, 500]);
    assert.deepEqual(spoolDirs(root), []);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(store, { recursive: true, force: true });
  }
});

test('a process that owns the data dir refuses a second one, naming it; once it is killed, its spool is taken over', async () => {
  const root = tmp();
  const owner = await child(['own', root, '0', '2']);
  try {
    await assert.rejects(openOwnSpool(root, { shared: false }), (err: Error) => {
      assert.ok(err instanceof DataDirInUseError);
      assert.match(err.message, new RegExp(`process ${owner.proc.pid}`));
      assert.match(err.message, /its own --data-dir/);
      return true;
    });
    await kill9(owner.proc);
    const mine = await openOwnSpool(root, { shared: false });
    try {
      assert.equal(mine.spool.id, owner.out.id, "the dead owner's spool is this process's now");
      const { records } = await mine.spool.read(await mine.spool.firstPosition(), 10);
      assert.deepEqual(records.map((r) => JSON.parse(r.payload)[0]).sort(), [`${owner.out.id}-0`, `${owner.out.id}-1`]);
    } finally {
      await mine.spool.close();
      mine.rootLock?.release();
    }
  } finally {
    // also when an assertion failed before the kill: a live child would keep this file's process, and the run, waiting
    await kill9(owner.proc);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('one spool in spool/ itself (the layout of earlier versions) is moved into spool/<id>/, records and identity kept', async () => {
  const root = tmp();
  try {
    fs.writeFileSync(path.join(root, 'ID'), 'abcdef0123456789\n');
    fs.writeFileSync(path.join(root, 'LOCK'), '2147483646'); // its owner is gone
    fs.writeFileSync(path.join(root, 'sites.json'), '{"site_1":1}');
    fs.writeFileSync(path.join(root, segmentFile(3)), encodeRecord('E', '["one"]') + encodeRecord('E', '["two"]'));
    const mine = await openOwnSpool(root, { shared: false });
    try {
      assert.equal(mine.spool.id, 'abcdef0123456789');
      assert.equal(mine.spool.dir, path.join(root, 'abcdef0123456789'));
      const { records } = await mine.spool.read(await mine.spool.firstPosition(), 10);
      assert.deepEqual(
        records.map((r) => r.payload),
        ['["one"]', '["two"]'],
      );
      assert.deepEqual(
        fs
          .readdirSync(root)
          .filter((n) => !n.startsWith('ROOT.lock'))
          .sort(),
        ['abcdef0123456789'],
      );
      assert.ok(fs.existsSync(path.join(mine.spool.dir, 'sites.json')));
    } finally {
      await mine.spool.close();
      mine.rootLock?.release();
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
