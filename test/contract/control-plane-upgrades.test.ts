// Upgrades of the control plane (docs/decisions/upgrades.md), on SQLite and PostgreSQL: migrations run
// forward only, all those of one open in one transaction, so a migration that fails half-way, or a
// process killed inside one, leaves nothing of it and the next open finishes the job; a database a newer
// footfall migrated is refused before anything is written, saying what to do.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { MIGRATION_NAMES, migrationProvider } from '../../src/control/migrations/index.js';
import { appliedMigrations, createSqliteDialect, openSqliteDatabase } from '../../src/control/sqlite/dialect.js';
import { openSqliteControlPlane } from '../../src/control/sqlite/open.js';
import { migrateDespiteForeignDrops, openPostgresControlPlane } from '../../src/control/postgres/open.js';
import { createPostgresPool } from '../../src/control/postgres/pool.js';
import type { ControlPlane } from '../../src/control/sqlite/open.js';
import { skippable } from '../helpers/services.js';
import { POSTGRES_SKIP, POSTGRES_URL, scratchSchema } from './fixtures/postgres-scratch.js';
import { pausedInMigration, type Target } from './fixtures/migrate-child.js';

/** The state a database is left in before the upgrade: migrated to 005, one workspace. */
const BEFORE = MIGRATION_NAMES.slice(0, MIGRATION_NAMES.indexOf('005_embeds_and_shares') + 1);
/** tables of the migrations after BEFORE (006, 007) */
const LATER_TABLES = ['workspace_plans', 'pending_site_deletions', 'job_leases'];
const NEWER = '999_from_a_newer_version';

/** One kind of control plane: how to make the "before" state, look at it, and open it. */
interface Side {
  name: string;
  target(): Target;
  /** runs `fn` on a Kysely of the database, outside footfall's open (for setting up and looking) */
  raw<T>(fn: (db: Kysely<any>) => Promise<T>): Promise<T>;
  tables(db: Kysely<any>): Promise<string[]>;
  applied(db: Kysely<any>): Promise<string[]>;
  open(opts?: { migrationHook?: (name: string) => Promise<void> }): Promise<ControlPlane>;
  /** a fingerprint of everything stored (the refusal must change none of it) */
  fingerprint(): Promise<string>;
}

function sqliteSide(t: { after(fn: () => void): void }): Side {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-upgrades-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'control.sqlite');
  return {
    name: 'sqlite',
    target: () => ({ sqlite: file }),
    async raw(fn) {
      const db = new Kysely<any>({ dialect: createSqliteDialect(openSqliteDatabase(file)) });
      try {
        return await fn(db);
      } finally {
        await db.destroy();
      }
    },
    async tables(db) {
      return (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows.map((r) => r.name);
    },
    async applied() {
      const raw = openSqliteDatabase(file);
      try {
        return appliedMigrations(raw);
      } finally {
        raw.close();
      }
    },
    open: (opts) => openSqliteControlPlane(file, opts),
    async fingerprint() {
      // every row of every table, through SQLite (the file's bytes move with a checkpoint)
      return this.raw(async (db) => {
        const h = createHash('sha256');
        for (const table of (await this.tables(db)).sort())
          h.update(`${table}:${JSON.stringify((await sql`select * from ${sql.table(table)}`.execute(db)).rows)}`);
        const schema = await sql`select type, name, sql from sqlite_master order by name`.execute(db);
        return h.update(JSON.stringify(schema.rows)).digest('hex');
      });
    },
  };
}

function postgresSide(t: { after(fn: () => Promise<void>): void }): Side {
  const url = POSTGRES_URL!;
  const scratch = scratchSchema(url);
  t.after(() => scratch.drop());
  const { schema } = scratch;
  return {
    name: 'postgres',
    target: () => ({ postgres: url, schema }),
    async raw(fn) {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`create schema if not exists ${schema}`);
      await admin.end();
      const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: createPostgresPool(url, { schema }) }) });
      try {
        return await fn(db);
      } finally {
        await db.destroy();
      }
    },
    async tables(db) {
      return (
        await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = ${schema}`.execute(db)
      ).rows.map((r) => r.name);
    },
    async applied(db) {
      const rows = (await sql<{ name: string }>`select name from ${sql.id(schema, 'kysely_migration')} order by name`.execute(db)).rows;
      return rows.map((r) => r.name);
    },
    open: (opts) => openPostgresControlPlane(url, { schema, ...opts }),
    async fingerprint() {
      return this.raw(async (db) => {
        const h = createHash('sha256');
        for (const table of (await this.tables(db)).sort())
          h.update(`${table}:${JSON.stringify((await sql`select * from ${sql.id(schema, table)} order by 1`.execute(db)).rows)}`);
        const columns = await sql`select table_name, column_name, data_type, collation_name from information_schema.columns
          where table_schema = ${schema} order by 1, 2`.execute(db);
        return h.update(JSON.stringify(columns.rows)).digest('hex');
      });
    },
  };
}

/** Migrates to 005 (as a release of then did) and stores a workspace. */
async function before(side: Side): Promise<void> {
  await side.raw(async (db) => {
    const schema = side.name === 'postgres' ? (side.target() as { schema: string }).schema : undefined;
    const migrate = async () => {
      const r = await new Migrator({
        db,
        provider: migrationProvider,
        allowUnorderedMigrations: true,
        ...(schema ? { migrationTableSchema: schema } : {}),
      }).migrateTo(BEFORE[BEFORE.length - 1]);
      if (r.error) throw new Error(`migrating to ${BEFORE[BEFORE.length - 1]} failed`, { cause: r.error });
    };
    // Kysely's migrator lists the tables of every schema of the database, so another test's scratch schema
    // dropped meanwhile fails it; the product retries that case (migrateDespiteForeignDrops), and so does this.
    await (schema ? migrateDespiteForeignDrops(migrate, schema) : migrate());
    await db
      .insertInto('workspaces')
      .values({ id: 'ws_old', name: 'Old', plan: 'pro', api_policy: '{}', created_at: '2025-01-02T03:04:05.000Z' })
      .execute();
  });
}

/** The database is as `before` left it: nothing of 006 or 007, the workspace there. */
async function stillBefore(side: Side, why: string): Promise<void> {
  await side.raw(async (db) => {
    assert.deepEqual((await side.applied(db)).sort(), BEFORE, why);
    const tables = await side.tables(db);
    for (const table of LATER_TABLES) assert.ok(!tables.includes(table), `${why}: ${table} is not there`);
    assert.deepEqual(
      (await db.selectFrom('workspaces').select(['id', 'name']).execute()).map((w) => `${w.id} ${w.name}`),
      ['ws_old Old'],
      why,
    );
  });
}

/** Opened by this code: every migration, the workspace with its plan history from 006, and it serves. */
async function upgraded(side: Side): Promise<void> {
  const cp = await side.open();
  try {
    assert.deepEqual(await cp.catalog.planHistory('ws_old'), [{ effectiveAt: '2025-01-02T03:04:05.000Z', plan: 'pro', apiPolicy: {} }]);
    const ws = await cp.catalog.createWorkspace({ name: 'After', plan: 'starter' });
    assert.equal((await cp.catalog.getWorkspace(ws.id))?.name, 'After');
  } finally {
    await cp.close();
  }
  await side.raw(async (db) => assert.deepEqual((await side.applied(db)).sort(), [...MIGRATION_NAMES].sort()));
}

const sides: Array<{ name: string; skip: string | false; make: (t: any) => Side }> = [
  { name: 'sqlite', skip: false, make: sqliteSide },
  { name: 'postgres', skip: POSTGRES_SKIP, make: postgresSide },
];

for (const { name, skip, make } of sides) {
  const it = skippable(skip);

  it(`${name}: a migration failing half-way leaves nothing of it, nor of the others of its run; the next open finishes`, async (t) => {
    const side = make(t);
    await before(side);
    // 006 ran whole, 007's statements ran (its tables exist inside the transaction), then 007 fails
    const seen: string[] = [];
    await assert.rejects(
      side.open({
        migrationHook: async (m) => {
          seen.push(m);
          if (m === '007_data_lifecycle') throw new Error('broken on purpose after its statements');
        },
      }),
      /control-plane migration 007_data_lifecycle failed: broken on purpose/,
    );
    assert.deepEqual(seen, ['006_workspace_plan_history', '007_data_lifecycle']);
    await stillBefore(side, 'after the failed open');
    await upgraded(side);
  });

  it(`${name}: kill -9 inside a migration: nothing half-written is seen, and the next open finishes the job`, async (t) => {
    const side = make(t);
    await before(side);
    const { child, exited } = await pausedInMigration(side.target(), '007_data_lifecycle');
    try {
      // while it waits inside 007 (006 done in the same transaction), another connection sees the old schema
      await stillBefore(side, 'while the migration runs');
    } finally {
      child.kill('SIGKILL');
    }
    assert.equal(await exited, 'SIGKILL');
    await stillBefore(side, 'after the kill');
    await upgraded(side);
  });

  it(`${name}: a database a newer footfall migrated is refused, naming what to do, and nothing is written`, async (t) => {
    const side = make(t);
    await before(side);
    // a newer release's database that also lacks 006 and 007: an open that went ahead would add them
    await side.raw(async (db) => {
      const schema = side.name === 'postgres' ? (side.target() as { schema: string }).schema : undefined;
      await db
        .withSchema(schema ?? 'main')
        .insertInto('kysely_migration')
        .values({ name: NEWER, timestamp: new Date().toISOString() })
        .execute();
    });
    const print = await side.fingerprint();
    await assert.rejects(side.open(), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'DATA_NEWER_THAN_CODE');
      assert.match(err.message, /written by a newer footfall than this one \(0\.2\.0\)/);
      assert.match(err.message, new RegExp(NEWER));
      assert.match(err.message, /Run the footfall release that wrote it \(or a later one\), or restore a backup made by footfall 0\.2\.0/);
      return true;
    });
    assert.equal(await side.fingerprint(), print, 'nothing changed');
    await side.raw(async (db) => {
      for (const table of LATER_TABLES) assert.ok(!(await side.tables(db)).includes(table), `${table} was not made`);
    });
  });
}
