// Import while serving (docs/product.md §8.17): `footfall import` run as its own process hands its rows to
// the process holding the store through <dataDir>/admin.sock, with no lock error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openControlPlane } from '../../src/control/open-control-plane.js';
import { openEventStore } from '../../src/engines/duckdb/open-event-store.js';
import { startAdminSocket } from '../../src/ingest/admin/admin-socket-server.js';
import { pv } from './harness.js';
import { FOOTFALL_BIN as CLI } from '../helpers/footfall-bin.js';

const run = promisify(execFile);

async function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-admin-'));
  const control = await openControlPlane({ dataDir: dir });
  const ws = await control.catalog.createWorkspace({ name: 'w', plan: 'pro' });
  const site = await control.catalog.createSite({ workspaceId: ws.id, name: 's', hostnames: ['a.example'], collectionProfile: 'extended' });
  await control.close();
  const file = path.join(dir, 'in.ndjson');
  const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const lines = [pv(site.id, `${day}T10:00:00Z`), pv(site.id, `${day}T10:05:00Z`, { path: '/b' }), 'not json'];
  fs.writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return { dir, file, siteId: site.id };
}

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [CLI, ...args], { timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test('import while the server holds the store goes through the admin socket; events are visible on return', async () => {
  const { dir, file, siteId } = await setup();
  const store = await openEventStore({ dataDir: dir });
  const admin = await startAdminSocket(dir, { events: store });
  try {
    assert.equal(fs.statSync(admin.path).mode & 0o777, 0o600);
    const r = await cli(['import', 'events', file, '--data-dir', dir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.via, 'server');
    assert.equal(out.imported, 2);
    assert.equal(out.rejected, 1);
    assert.deepEqual(out.errors, [{ line: 3, reason: out.errors[0].reason }]);
    assert.equal((await store.siteCoverage(siteId)).events, 2);
    const again = JSON.parse((await cli(['import', 'events', file, '--data-dir', dir, '--json'])).stdout);
    assert.deepEqual([again.imported, again.duplicates], [0, 2]);
    // the id the summary gave reached the store through the socket: the events remember the first import
    assert.match(out.import_id, /^imp_[0-9A-Za-z]{22}$/);
    assert.notEqual(again.import_id, out.import_id);
    assert.equal((await store.undoImport(again.import_id)).events, 0);
    assert.equal((await store.undoImport(out.import_id)).events, 2);
    assert.equal((await store.siteCoverage(siteId)).events, 0);
  } finally {
    await admin.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('without a server the command opens the store itself', async () => {
  const { dir, file, siteId } = await setup();
  try {
    const r = await cli(['import', 'events', file, '--data-dir', dir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).via, 'store');
    const text = await cli(['import', 'events', file, '--data-dir', dir]);
    assert.match(text.stdout, /duplicates 2 \(3 lines\); import id imp_[0-9A-Za-z]{22}\n/);
    const store = await openEventStore({ dataDir: dir });
    try {
      assert.equal((await store.siteCoverage(siteId)).events, 2);
      assert.equal((await store.undoImport(JSON.parse(r.stdout).import_id)).events, 2);
    } finally {
      await store.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a stale socket file of a dead server is replaced, and a live one is refused', async () => {
  const { dir } = await setup();
  const store = await openEventStore({ dataDir: dir });
  try {
    fs.writeFileSync(path.join(dir, 'admin.sock'), '');
    const admin = await startAdminSocket(dir, { events: store });
    await assert.rejects(startAdminSocket(dir, { events: store }), /already serves this data dir/);
    await admin.close();
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('bad arguments fail clearly with a non-zero exit', async () => {
  const { dir, file } = await setup();
  try {
    const missing = await cli(['import', 'events', path.join(dir, 'nope.ndjson'), '--data-dir', dir, '--json']);
    assert.notEqual(missing.code, 0);
    assert.match(JSON.parse(missing.stdout).error.message, /no such file/);
    const noSite = await cli(['import', 'access-log', file, '--data-dir', dir, '--json']);
    assert.notEqual(noSite.code, 0);
    assert.match(JSON.parse(noSite.stdout).error.message, /--site/);
    const unknown = await cli(['import', 'events', file, '--site', 'site_nope', '--data-dir', dir, '--json']);
    assert.notEqual(unknown.code, 0);
    assert.match(JSON.parse(unknown.stdout).error.message, /unknown site/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a store held by a process without an admin socket gives a clear "in use" error, not a crash', async () => {
  const { dir, file } = await setup();
  const store = await openEventStore({ dataDir: dir });
  try {
    const r = await cli(['import', 'events', file, '--data-dir', dir, '--json']);
    assert.notEqual(r.code, 0);
    assert.match(JSON.parse(r.stdout).error.message, /in use by another process/);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
