// The data dir holds the visitor-key salt: 0700, its files 0600, including those SQLite (-wal,
// -shm), DuckDB and the admin socket create, and a data dir left with looser modes is tightened
// when a command or the server opens it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';
import { CONTROL_SQLITE_FILE } from '../../src/control/open-control-plane.js';
import { tightenTree } from '../../src/cli/private-files.js';
import { cliRunner } from './fixtures/cli-run.js';
import { startServe } from './fixtures/serve-process.js';

/** Every path under dir (dir included) with its permission bits. */
function modes(dir: string): Map<string, { mode: number; kind: 'dir' | 'file' | 'socket' }> {
  const out = new Map<string, { mode: number; kind: 'dir' | 'file' | 'socket' }>();
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    const kind = st.isDirectory() ? 'dir' : st.isSocket() ? 'socket' : 'file';
    out.set(path.relative(dir, p) || '.', { mode: st.mode & 0o777, kind });
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) walk(path.join(p, e));
  };
  walk(dir);
  return out;
}

function assertPrivate(dir: string): void {
  for (const [p, { mode, kind }] of modes(dir)) assert.equal(mode, kind === 'dir' ? 0o700 : 0o600, `${p} (${kind}) is ${mode.toString(8)}`);
}

test('a running server keeps the whole data dir private, and tightens one left loose', { timeout: 120_000 }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-private-'));
  const dataDir = path.join(root, 'data');
  const old = process.umask(0o022);
  try {
    // A data dir from before: world-readable dir, salt and files.
    fs.mkdirSync(path.join(dataDir, 'old'), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(dataDir, 'old', 'notes.txt'), 'x', { mode: 0o644 });
    const cp = await openSqliteControlPlane(path.join(dataDir, CONTROL_SQLITE_FILE));
    await cp.catalog.getOrCreateSecret('visitor-key-salt');
    await cp.close();
    fs.chmodSync(path.join(dataDir, CONTROL_SQLITE_FILE), 0o644);
    assert.equal(fs.statSync(dataDir).mode & 0o777, 0o755);
  } finally {
    process.umask(old);
  }

  const server = await startServe(dataDir);
  try {
    const seen = modes(dataDir);
    for (const name of [CONTROL_SQLITE_FILE, `${CONTROL_SQLITE_FILE}-wal`, `${CONTROL_SQLITE_FILE}-shm`, 'admin.sock', 'old/notes.txt'])
      assert.ok(seen.has(name), `${name} exists (have ${[...seen.keys()].join(', ')})`);
    assert.ok(
      [...seen.keys()].some((p) => p.includes('duckdb')),
      'the DuckDB files are there',
    );
    assertPrivate(dataDir);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a CLI command creates a private data dir', { timeout: 60_000 }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-private-'));
  const dataDir = path.join(root, 'nested', 'data');
  try {
    await cliRunner(() => dataDir).ok('workspace', 'create', '--name', 'P', '--plan', 'pro');
    assert.ok(fs.existsSync(path.join(dataDir, CONTROL_SQLITE_FILE)));
    assertPrivate(dataDir);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('files another process removes while the walk runs are skipped, the rest still tightened', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-private-race-'));
  const old = process.umask(0o022);
  const patched = fs as unknown as { lstatSync: (...a: unknown[]) => fs.Stats; chmodSync: (...a: unknown[]) => void };
  const { lstatSync: lstat, chmodSync: chmod } = patched;
  let removing = false;
  const remove = (p: string) => {
    removing = true; // rmSync lstat's too
    try {
      fs.rmSync(p, { recursive: true, force: true });
    } finally {
      removing = false;
    }
  };
  try {
    fs.mkdirSync(path.join(root, 'sub'), { mode: 0o755 });
    for (const name of ['a-shm', 'b-journal', 'keep', 'sub/c-shm']) fs.writeFileSync(path.join(root, name), 'x', { mode: 0o644 });
    fs.mkdirSync(path.join(root, 'gone-dir'), { mode: 0o755 });
    // another process's SQLite drops its -shm between the listing and the lstat, its -journal
    // between the lstat and the chmod, and a folder goes between its lstat and its listing
    patched.lstatSync = (...a: unknown[]) => {
      const s = String(a[0]);
      if (!removing && s.endsWith('-shm')) remove(s);
      const st = lstat(...a);
      if (!removing && s.endsWith('gone-dir')) remove(s);
      return st;
    };
    patched.chmodSync = (...a: unknown[]) => {
      if (String(a[0]).endsWith('-journal')) remove(String(a[0]));
      chmod(...a);
    };
    tightenTree(root);
  } finally {
    patched.lstatSync = lstat;
    patched.chmodSync = chmod;
    process.umask(old);
  }
  try {
    assert.deepEqual([...modes(root).keys()].sort(), ['.', 'keep', 'sub']);
    assertPrivate(root);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
