// PostgreSQL-specific behaviour of the control plane: opening, reopening, ordering and failures.
import { test } from 'node:test';
import { skippable } from '../helpers/services.js';
import assert from 'node:assert/strict';
import pg from 'pg';
import { migrateDespiteForeignDrops, openPostgresControlPlane } from '../../src/control/postgres/open.js';
import { openControlPlane } from '../../src/control/open-control-plane.js';
import { ControlPlaneUnavailableError } from '../../src/domain/errors.js';
import { UnstorableTextError } from '../../src/domain/storable-text.js';
import { POSTGRES_SKIP, POSTGRES_URL, scratchSchema } from './fixtures/postgres-scratch.js';

test('postgres: an unreachable server is reported as CONTROL_UNAVAILABLE without the password', async () => {
  // Port 1 on loopback refuses at once; no live server is needed for this one.
  await assert.rejects(openPostgresControlPlane('postgres://user:s3cret@127.0.0.1:1/footfall'), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'CONTROL_UNAVAILABLE');
    assert.match(err.message, /cannot reach the PostgreSQL control plane at postgres:\/\/\*\*\*@127\.0\.0\.1:1\/footfall/);
    assert.doesNotMatch(err.message, /s3cret/);
    return true;
  });
});

test('postgres: a schema name that is not a plain identifier is refused before connecting', async () => {
  await assert.rejects(openPostgresControlPlane('postgres://127.0.0.1:1/x', { schema: 'a;drop table x' }), RangeError);
});

test("postgres: a migration failed by another schema's drop (SQLSTATE 3F000, or 42P01 for its table) is run again; a missing schema or table of ours, or any other fault, is thrown", async () => {
  const dropped = (name: string) =>
    new Error('control-plane migration failed', { cause: Object.assign(new Error(`schema "${name}" does not exist`), { code: '3F000' }) });
  let runs = 0;
  await migrateDespiteForeignDrops(async () => {
    if (++runs < 3) throw dropped('ff_other');
  }, 'ff_mine');
  assert.equal(runs, 3, 'run again until the introspection is not interrupted');

  runs = 0;
  await assert.rejects(
    migrateDespiteForeignDrops(async () => {
      runs++;
      throw dropped('ff_mine');
    }, 'ff_mine'),
    /migration failed/,
  );
  assert.equal(runs, 1, 'our own schema missing is not retried');

  // the other schema's table went before the schema: 42P01 naming that schema's relation
  const tableGone = (name: string) =>
    new Error('control-plane migration failed', {
      cause: Object.assign(new Error(`relation "${name}.invitations" does not exist`), { code: '42P01' }),
    });
  runs = 0;
  await migrateDespiteForeignDrops(async () => {
    if (++runs < 2) throw tableGone('ff_other');
  }, 'ff_mine');
  assert.equal(runs, 2);
  runs = 0;
  await assert.rejects(
    migrateDespiteForeignDrops(async () => {
      runs++;
      throw tableGone('ff_mine');
    }, 'ff_mine'),
    /migration failed/,
  );
  assert.equal(runs, 1, 'a table of ours missing is not retried');

  runs = 0;
  await assert.rejects(
    migrateDespiteForeignDrops(async () => {
      runs++;
      throw new Error('x', { cause: Object.assign(new Error('syntax'), { code: '42601' }) });
    }, 'ff_mine'),
    /x/,
  );
  assert.equal(runs, 1, 'another fault is not retried');

  runs = 0;
  await assert.rejects(
    migrateDespiteForeignDrops(async () => {
      runs++;
      throw dropped('ff_other');
    }, 'ff_mine'),
    /migration failed/,
  );
  assert.equal(runs, 5, 'a few attempts, not forever');
});

{
  // without the service every test below is listed as skipped, with the reason (in CI: the file fails)
  const test = skippable(POSTGRES_SKIP);
  const url = POSTGRES_URL as string;
  test('postgres: processes opening a fresh schema together migrate it once, and reopening keeps the data', async () => {
    const scratch = scratchSchema(url);
    try {
      const opened = await Promise.all([0, 1, 2, 3].map(() => openPostgresControlPlane(url, { schema: scratch.schema })));
      const ws = await opened[0].catalog.createWorkspace({ name: 'Kept', plan: 'starter' });
      assert.equal((await opened[3].catalog.getWorkspace(ws.id))?.name, 'Kept', 'all four see the same tables');
      await Promise.all(opened.map((cp) => cp.close()));
      await opened[0].close();

      const again = await openControlPlane({
        dataDir: '/nonexistent-never-used',
        controlUrl: url + `?options=-c%20search_path%3D${scratch.schema}`,
      });
      try {
        assert.equal((await again.catalog.getWorkspace(ws.id))?.name, 'Kept');
      } finally {
        await again.close();
      }
    } finally {
      await scratch.drop();
    }
  });

  test("postgres: a schema chosen by the URL's search_path gets its own migration tables, even when another schema of the database has Kysely's", async () => {
    const other = scratchSchema(url);
    const mine = scratchSchema(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // another footfall (or any app on Kysely) migrated a schema of the same database first
      await (await openPostgresControlPlane(url, { schema: other.schema })).close();
      await client.query(`create schema ${mine.schema}`);
      const viaUrl = () =>
        openControlPlane({ dataDir: '/nonexistent-never-used', controlUrl: `${url}?options=-c%20search_path%3D${mine.schema}` });
      const cp = await viaUrl();
      const ws = await cp.catalog.createWorkspace({ name: 'Mine', plan: 'starter' });
      await cp.close();
      const tables = await client.query(
        `select table_name from information_schema.tables where table_schema = $1 and table_name like 'kysely%' order by 1`,
        [mine.schema],
      );
      assert.deepEqual(
        tables.rows.map((r) => r.table_name),
        ['kysely_migration', 'kysely_migration_lock'],
      );
      const again = await viaUrl();
      try {
        assert.equal((await again.catalog.getWorkspace(ws.id))?.name, 'Mine', 'reopened on the same tables');
      } finally {
        await again.close();
      }
      // a search_path that names no existing schema is said in words
      await assert.rejects(
        openControlPlane({ dataDir: '/nonexistent-never-used', controlUrl: `${url}?options=-c%20search_path%3Dff_missing_${mine.schema}` }),
        /search_path names no schema that exists/,
      );
    } finally {
      await client.end();
      await mine.drop();
      await other.drop();
    }
  });

  test('postgres: an up-to-date schema opens without the migration lock; one a step behind takes it and is brought up to date', async () => {
    const scratch = scratchSchema(url);
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await (await openPostgresControlPlane(url, { schema: scratch.schema })).close();
      // another process holds the migration lock (say, one migrating another schema of the database)
      await holder.query('select pg_advisory_lock(7381240860008082540)');
      const hung = Symbol('waited for the lock');
      const within = <T>(p: Promise<T>) => Promise.race([p, new Promise<typeof hung>((r) => setTimeout(() => r(hung), 10_000).unref())]);
      const cp = await within(openPostgresControlPlane(url, { schema: scratch.schema }));
      assert.notEqual(cp, hung, 'an up-to-date schema does not wait for the migration lock');
      await (cp as Awaited<ReturnType<typeof openPostgresControlPlane>>).close();
      await holder.query('select pg_advisory_unlock(7381240860008082540)');

      // a text column off the "C" collation (a schema one step behind): the locked path mends it
      await holder.query(`alter table ${scratch.schema}.tenants alter column slug type text collate "default"`);
      await (await openPostgresControlPlane(url, { schema: scratch.schema })).close();
      const col = await holder.query(
        `select collation_name from information_schema.columns where table_schema = $1 and table_name = 'tenants' and column_name = 'slug'`,
        [scratch.schema],
      );
      assert.equal(col.rows[0].collation_name, 'C');
    } finally {
      await holder.end();
      await scratch.drop();
    }
  });

  test('postgres: tenants list by slug in code-point order, as on SQLite, whatever the database locale', async () => {
    const scratch = scratchSchema(url);
    const cp = await openPostgresControlPlane(url, { schema: scratch.schema });
    try {
      const ws = await cp.catalog.createWorkspace({ name: 'A', plan: 'pro' });
      const site = await cp.catalog.createSite({
        workspaceId: ws.id,
        name: 'S',
        hostnames: ['a.example.com'],
        collectionProfile: 'strict',
      });
      const slugs = ['ab', 'a_b', 'a-c', 'a1', 'b'];
      for (const slug of slugs) await cp.catalog.createTenant({ siteId: site.id, slug, name: slug });
      assert.deepEqual(
        (await cp.catalog.listTenants(site.id)).map((t) => t.slug),
        ['a-c', 'a1', 'a_b', 'ab', 'b'],
      );
      // The test database may well be C-collated already; what makes it hold elsewhere is the column collation.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query(
          `select table_name || '.' || column_name as col from information_schema.columns
           where table_schema = $1 and data_type = 'text' and table_name <> 'kysely_migration' and table_name <> 'kysely_migration_lock'
             and coalesce(collation_name, '') <> 'C'`,
          [scratch.schema],
        );
        assert.deepEqual(rows, [], 'every text column of ours is C-collated');
      } finally {
        await client.end();
      }
    } finally {
      await cp.close();
      await scratch.drop();
    }
  });

  test('postgres: a NUL reaching any statement is UnstorableTextError (not a driver error, not a 500), and the pool serves on', async () => {
    const scratch = scratchSchema(url);
    const cp = await openPostgresControlPlane(url, { schema: scratch.schema });
    try {
      const ws = await cp.catalog.createWorkspace({ name: 'A', plan: 'pro' });
      // reads that no route lets such a value reach any more: what a route added later would meet
      await assert.rejects(cp.catalog.getSite('site_\u0000'), UnstorableTextError);
      await assert.rejects(cp.catalog.findTokenWithWorkspace('h\u0000', 'site_\u0000'), UnstorableTextError);
      await assert.rejects(cp.embeds.getEmbedKey('ek_\u0000'), UnstorableTextError);
      await assert.rejects(cp.catalog.listTenants('site_\u0000'), UnstorableTextError);
      assert.equal((await cp.catalog.getWorkspace(ws.id))?.name, 'A', 'the connection that refused it serves the next statement');
    } finally {
      await cp.close();
      await scratch.drop();
    }
  });

  test('postgres: a statement whose connection an administrator ends (57P01) is CONTROL_PLANE_UNAVAILABLE; the next one is served', async () => {
    const scratch = scratchSchema(url);
    const cp = await openPostgresControlPlane(url, { schema: scratch.schema });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const ws = await cp.catalog.createWorkspace({ name: 'A', plan: 'pro' });
      // the control plane's read waits on a lock this test holds, then its backend is ended, as a
      // restart or failover ends it; only the waiter on this test's own table is touched
      await admin.query('begin');
      await admin.query(`lock table ${scratch.schema}.workspaces in access exclusive mode`);
      // its outcome is taken at once: a rejection left unheard while the test waits would fail the run
      const read = cp.catalog.getWorkspace(ws.id).then(
        () => null,
        (err: unknown) => err,
      );
      const waiter = async () =>
        (await admin.query(`select pid from pg_locks where relation = '${scratch.schema}.workspaces'::regclass and not granted`)).rows.map(
          (r) => r.pid as number,
        );
      let pids = await waiter();
      for (let i = 0; i < 100 && pids.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        pids = await waiter();
      }
      assert.equal(pids.length, 1, 'the read waits on the lock');
      await admin.query('select pg_terminate_backend($1)', [pids[0]]);
      const err = await read;
      assert.ok(err instanceof ControlPlaneUnavailableError, String(err));
      await admin.query('rollback');
      assert.equal((await cp.catalog.getWorkspace(ws.id))?.name, 'A', 'the pool replaced the connection');
    } finally {
      await admin.end();
      await cp.close();
      await scratch.drop();
    }
  });
}
