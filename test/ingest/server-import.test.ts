// A large merged log in no time order, imported into a running server on default settings (the
// case that ran the server out of memory before): it goes through, and the API counts every event.
import { test } from 'node:test';
import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { openControlPlane } from '../../src/control/open-control-plane.js';
import { startServer } from '../../src/main.js';
import { runImport } from '../../src/ingest/pipeline/run-import.js';
import { openImportStores } from '../../src/container.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { Prng } from '../../src/ingest/demo/prng.js';

const DAY = 86_400_000;
const EVENTS = 200_000;

test('200,000 events in random time order over 28 days import into a running server on default settings, every one counted', {
  timeout: 600_000,
}, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-server-import-'));
  const config = loadConfig({ dataDir: dir, port: 0, logLevel: 'silent' }, {});
  const control = await openControlPlane(config);
  const ws = await control.catalog.createWorkspace({ name: 'w', plan: 'pro' });
  const site = await control.catalog.createSite({
    workspaceId: ws.id,
    name: 's',
    hostnames: ['shuffled.example'],
    collectionProfile: 'extended',
  });
  const secret = generateSecret(randomBytes);
  await control.catalog.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], secretHash: hashSecret(secret) });
  await control.close();

  // microsecond timestamps, 20,000 visitors, a few custom actions: in random order, as merged logs come
  const p = new Prng(9); // the demo's seeded PRNG: the same file on every run
  const r = () => p.next();
  const today = Math.floor(Date.now() / DAY) * DAY;
  const start = today - 28 * DAY;
  const file = path.join(dir, 'shuffled.ndjson');
  const fd = fs.openSync(file, 'w');
  let pageviews = 0;
  for (let i = 0; i < EVENTS; i += 10_000) {
    let block = '';
    for (let j = i; j < i + 10_000; j++) {
      const ts = new Date(start + Math.floor(r() * 28 * DAY))
        .toISOString()
        .replace('Z', `${String(Math.floor(r() * 1000)).padStart(3, '0')}Z`);
      const visitor = `v${Math.floor(r() * 20_000)}`;
      const action = r() < 0.1;
      if (!action) pageviews++;
      block +=
        JSON.stringify(
          action
            ? { ts, type: 'action', site_id: site.id, visitor_key: visitor, path: '/p', action_name: 'video.play' }
            : { ts, type: 'pageview', site_id: site.id, visitor_key: visitor, path: `/p${Math.floor(r() * 7)}` },
        ) + '\n';
    }
    fs.writeSync(fd, block);
  }
  fs.closeSync(fd);

  const server = await startServer(config);
  try {
    const summary = await runImport({
      open: () => openImportStores(config),
      geoipDb: config.geoipDb,
      source: file,
      format: { kind: 'events' },
    });
    assert.equal(summary.via, 'server');
    assert.equal(summary.rejected, 0);
    assert.equal(summary.imported + summary.duplicates, EVENTS);
    const query = `site_id=${site.id}&from=${new Date(start).toISOString().slice(0, 10)}&to=${new Date(today).toISOString().slice(0, 10)}`;
    for (const [metric, want] of [
      ['events', summary.imported],
      ['pageviews', pageviews],
    ] as const) {
      const res = await fetch(`${server.address}/v1/metrics/timeseries?${query}&metric=${metric}`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { current: { total: number } };
      assert.equal(body.current.total, want, metric);
    }
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an import that runs out of memory and temp space through a running server fails alone: nothing stored, the reason logged, the server still serving and importing', {
  timeout: 600_000,
}, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-server-limit-'));
  const config = loadConfig({ dataDir: dir, port: 0, logLevel: 'silent', duckdbMemoryLimit: '100MB', duckdbTempLimit: '1MB' }, {});
  const control = await openControlPlane(config);
  const ws = await control.catalog.createWorkspace({ name: 'w', plan: 'pro' });
  const site = await control.catalog.createSite({
    workspaceId: ws.id,
    name: 's',
    hostnames: ['limited.example'],
    collectionProfile: 'extended',
  });
  await control.close();
  const p = new Prng(4);
  const day = Math.floor(Date.now() / DAY) * DAY - 10 * DAY;
  const line = (i: number) =>
    JSON.stringify({
      ts: new Date(day + Math.floor(p.next() * 9 * DAY)).toISOString(),
      type: 'pageview',
      site_id: site.id,
      visitor_key: `v${i % 30_000}`,
      path: `/p${i % 50}`,
      title: `T${i % 7}`,
    });
  const big = path.join(dir, 'big.ndjson');
  fs.writeFileSync(big, Array.from({ length: 150_000 }, (_, i) => line(i)).join('\n') + '\n');
  const small = path.join(dir, 'small.ndjson');
  fs.writeFileSync(small, Array.from({ length: 200 }, (_, i) => line(i)).join('\n') + '\n');
  const logged: string[] = [];
  const server = await startServer(config, { app: { logger: { level: 'error', stream: { write: (s: string) => void logged.push(s) } } } });
  try {
    await assert.rejects(
      runImport({ open: () => openImportStores(config), geoipDb: config.geoipDb, source: big, format: { kind: 'events' } }),
      (err: Error & { code?: string }) => {
        // both limits are tight here: either may be the one that ran out
        assert.match(String(err.code), /^IMPORT_OUT_OF_(MEMORY|DISK)$/);
        assert.match(err.message, /FOOTFALL_DUCKDB_(MEMORY|TEMP)_LIMIT/);
        assert.match(err.message, /Nothing of this import was stored/);
        return true;
      },
    );
    assert.ok(
      logged.some((l) => /import failed/.test(l) && /IMPORT_OUT_OF_(MEMORY|DISK)/.test(l)),
      logged.join('\n'),
    );
    assert.equal((await fetch(`${server.address}/healthz`)).status, 200);
    const events = server.container.events;
    assert.equal((await events.siteCoverage(site.id)).events, 0, 'nothing of the failed import is stored');
    const ok = await runImport({
      open: () => openImportStores(config),
      geoipDb: config.geoipDb,
      source: small,
      format: { kind: 'events' },
    });
    assert.deepEqual([ok.via, ok.imported], ['server', 200]);
    assert.equal((await events.siteCoverage(site.id)).events, 200);
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
