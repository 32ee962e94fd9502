// Migration 005 on a control plane made before it: each existing workspace gets one plan history row,
// at its creation, of the plan it has (nothing older is known), and usage history reads from there on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely, Migrator } from 'kysely';
import { migrationProvider } from '../../src/control/migrations/index.js';
import { createSqliteDialect, openSqliteDatabase } from '../../src/control/sqlite/dialect.js';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';

test('workspaces older than the plan history get one entry, at their creation, with their plan', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-m006-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'control.sqlite');
  const raw = openSqliteDatabase(file);
  const db = new Kysely<any>({ dialect: createSqliteDialect(raw) });
  const before = await new Migrator({ db, provider: migrationProvider }).migrateTo('004_domain_scopes_and_patterns');
  assert.equal(before.error, undefined);
  await db
    .insertInto('workspaces')
    .values([
      { id: 'ws_old', name: 'Old', plan: 'enterprise', api_policy: '{"hard_cap_units":5}', created_at: '2024-02-03T04:05:06.000Z' },
      { id: 'ws_new', name: 'New', plan: 'starter', api_policy: '{}', created_at: '2025-01-01T00:00:00.000Z' },
    ])
    .execute();
  await db.destroy();

  const cp = await openSqliteControlPlane(file);
  try {
    assert.deepEqual(await cp.catalog.planHistory('ws_old'), [
      { effectiveAt: '2024-02-03T04:05:06.000Z', plan: 'enterprise', apiPolicy: { hard_cap_units: 5 } },
    ]);
    assert.deepEqual(await cp.catalog.planHistory('ws_new'), [{ effectiveAt: '2025-01-01T00:00:00.000Z', plan: 'starter', apiPolicy: {} }]);
    await cp.catalog.updateWorkspace('ws_new', { plan: 'pro' });
    assert.deepEqual(
      (await cp.catalog.planHistory('ws_new')).map((p) => p.plan),
      ['starter', 'pro'],
    );
  } finally {
    await cp.close();
  }
});
