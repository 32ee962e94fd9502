// Opening the SQLite control plane skips Kysely's Migrator when the file lists exactly this code's
// migrations, and runs it otherwise: a fresh file and one made before the latest migration behave as the
// Migrator decides; one a newer version migrated (a migration this code does not know) is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely, Migrator } from 'kysely';
import { MIGRATION_NAMES, migrationProvider } from '../../src/control/migrations/index.js';
import { isLatestSchema } from '../../src/control/migrate.js';
import { appliedMigrations, createSqliteDialect, openSqliteDatabase } from '../../src/control/sqlite/dialect.js';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';

function tempFile(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-migrations-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'control.sqlite');
}

function applied(file: string): string[] {
  const raw = openSqliteDatabase(file);
  try {
    return appliedMigrations(raw);
  } finally {
    raw.close();
  }
}

test('isLatestSchema: exactly the known migrations, in any order, and nothing else', () => {
  assert.equal(isLatestSchema(MIGRATION_NAMES), true);
  assert.equal(isLatestSchema([...MIGRATION_NAMES].reverse()), true);
  assert.equal(isLatestSchema([]), false);
  assert.equal(isLatestSchema(MIGRATION_NAMES.slice(0, -1)), false);
  assert.equal(isLatestSchema([...MIGRATION_NAMES, '999_from_a_newer_version']), false);
  assert.equal(isLatestSchema([...MIGRATION_NAMES.slice(1), MIGRATION_NAMES[1]]), false);
});

test('a fresh file gets every migration; opened again it keeps them and serves', async (t) => {
  const file = tempFile(t);
  const raw = openSqliteDatabase(file);
  assert.deepEqual(appliedMigrations(raw), [], 'no migration table yet');
  raw.close();
  await (await openSqliteControlPlane(file)).close();
  assert.deepEqual(applied(file), MIGRATION_NAMES);
  const cp = await openSqliteControlPlane(file);
  try {
    const ws = await cp.catalog.createWorkspace({ name: 'again', plan: 'pro' });
    assert.equal((await cp.catalog.getWorkspace(ws.id))?.name, 'again');
  } finally {
    await cp.close();
  }
  assert.deepEqual(applied(file), MIGRATION_NAMES);
});

test('a file behind the latest migration is brought to it', async (t) => {
  const file = tempFile(t);
  const raw = openSqliteDatabase(file);
  const db = new Kysely<any>({ dialect: createSqliteDialect(raw) });
  const older = await new Migrator({ db, provider: migrationProvider }).migrateTo(MIGRATION_NAMES[MIGRATION_NAMES.length - 2]);
  assert.equal(older.error, undefined);
  await db.destroy();
  assert.deepEqual(applied(file), MIGRATION_NAMES.slice(0, -1));
  await (await openSqliteControlPlane(file)).close();
  assert.deepEqual(applied(file), MIGRATION_NAMES);
});

test('a file migrated by a newer version is refused before the Migrator runs (control-plane-upgrades.test.ts has the rest)', async (t) => {
  const file = tempFile(t);
  await (await openSqliteControlPlane(file)).close();
  const raw = openSqliteDatabase(file);
  raw.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('999_from_a_newer_version', new Date().toISOString());
  raw.close();
  await assert.rejects(openSqliteControlPlane(file), { code: 'DATA_NEWER_THAN_CODE', message: /newer footfall.*999_from_a_newer_version/ });
});
