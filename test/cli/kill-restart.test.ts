// A server killed with kill -9 under load strands no units: its reservations were leases of a
// process that is gone, and the next server on the same data dir reclaims them as it opens, so the
// whole cap is usable at once (embedded stack: SQLite control plane, DuckDB events).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';
import { CONTROL_SQLITE_FILE } from '../../src/control/open-control-plane.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { startServe, type ServeProcess } from './fixtures/serve-process.js';

const UNITS = 4; // a 7-day daily pageviews timeseries
let n = 0;

/** A metered request that always misses the response cache (its filter is new each time). */
async function metered(server: ServeProcess, secret: string, siteId: string): Promise<number> {
  const filters = encodeURIComponent(JSON.stringify({ page: `/p${n++}` }));
  const res = await fetch(`${server.address}/v1/metrics/timeseries?site_id=${siteId}&filters=${filters}`, {
    headers: { authorization: `Bearer ${secret}` },
  });
  await res.arrayBuffer();
  return res.status;
}

function ledgerState(file: string): { used: number; reserved: number; leases: number } {
  const db = new Database(file, { readonly: true });
  try {
    const row = db.prepare('select used, reserved from usage').get() as { used: number; reserved: number } | undefined;
    const leases = (db.prepare('select count(*) as n from reservations').get() as { n: number }).n;
    return { used: Number(row?.used ?? 0), reserved: Number(row?.reserved ?? 0), leases };
  } finally {
    db.close();
  }
}

test('kill -9 under load, restart: the whole cap is usable at once', { timeout: 300_000 }, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-kill-'));
  const file = path.join(dataDir, CONTROL_SQLITE_FILE);
  const secret = generateSecret(randomBytes);
  let wsId: string;
  let siteId: string;
  const cp = await openSqliteControlPlane(file);
  try {
    const ws = await cp.catalog.createWorkspace({
      name: 'Capped',
      plan: 'enterprise',
      apiPolicy: { hard_cap_units: 1_000_000, monthly_included_units: 0, rate_limit_rps: null },
    });
    wsId = ws.id;
    siteId = (await cp.catalog.createSite({ workspaceId: ws.id, name: 'S', hostnames: ['kill.example.com'], collectionProfile: 'strict' }))
      .id;
    await cp.catalog.createToken({ workspaceId: ws.id, scopes: ['metrics:read', 'usage:read'], secretHash: hashSecret(secret) });
  } finally {
    await cp.close();
  }

  let server: ServeProcess | undefined;
  try {
    // Load until the kill leaves reservations behind (nearly always the first time: 32 requests
    // are in flight at any moment, and most of a request's time is spent holding its units).
    let stranded = { used: 0, reserved: 0, leases: 0 };
    for (let attempt = 0; attempt < 5 && stranded.reserved === 0; attempt++) {
      server = await startServe(dataDir);
      const s = server;
      let ok = 0;
      let killed = false;
      const workers = Array.from({ length: 32 }, async () => {
        while (!killed) {
          try {
            if ((await metered(s, secret, siteId)) === 200) ok++;
          } catch {
            return; // the server is gone
          }
        }
      });
      while (ok < 100) await new Promise((r) => setTimeout(r, 10));
      killed = true;
      s.proc.kill('SIGKILL');
      assert.equal(await s.exited, 'SIGKILL');
      await Promise.all(workers);
      stranded = ledgerState(file);
    }
    assert.ok(stranded.reserved > 0 && stranded.leases > 0, `the kill stranded reservations: ${JSON.stringify(stranded)}`);
    assert.equal(stranded.reserved % UNITS, 0);

    // The cap now leaves room for exactly 40 more requests; stranded units would take some of it.
    const cap = stranded.used + 40 * UNITS;
    const db = new Database(file);
    db.prepare('update workspaces set api_policy = ? where id = ?').run(
      JSON.stringify({ hard_cap_units: cap, monthly_included_units: 0, rate_limit_rps: null }),
      wsId!,
    );
    db.close();

    server = await startServe(dataDir);
    assert.deepEqual(ledgerState(file), { used: stranded.used, reserved: 0, leases: 0 }, 'reclaimed as the new server opened');
    const s = server;
    const statuses = await Promise.all(Array.from({ length: 60 }, () => metered(s, secret, siteId)));
    assert.equal(statuses.filter((c) => c === 200).length, 40, 'every unit up to the cap was usable');
    assert.equal(statuses.filter((c) => c === 402).length, 20, 'and not one more');
    const usage = await (await fetch(`${s.address}/v1/usage/current`, { headers: { authorization: `Bearer ${secret}` } })).json();
    assert.equal(usage.units_used, cap);
    assert.equal(usage.hard_cap_units, cap);
  } finally {
    if (server && server.proc.exitCode === null && server.proc.signalCode === null) {
      server.proc.kill('SIGTERM');
      await server.exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
