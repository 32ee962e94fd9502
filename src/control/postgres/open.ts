// The shared control plane: catalog and usage ledger on PostgreSQL, for several API processes at once.
import { Kysely, PostgresDialect } from 'kysely';
import { systemClock, type Clock } from '../../domain/clock.js';
import type { RandomBytes } from '../../domain/tokens.js';
import { KyselyCatalogStore } from '../catalog-store.js';
import { KyselyEmbedStore } from '../embed-store.js';
import { KyselyReportStore } from '../report-store.js';
import { KyselyPeopleStore } from '../people-store.js';
import { postgresThrottleKeyLock } from '../people-sessions.js';
import { KyselyLifecycleControl } from '../data-lifecycle.js';
import { KyselyUsageLedger } from '../usage-ledger.js';
import { migrateToLatest, type MigrationHook } from '../migrate.js';
import type { ControlDB } from '../schema.js';
import { CONTROL_TABLES, countRows } from '../table-rows.js';
import type { ControlPlane } from '../sqlite/open.js';
import { postgresCommitLock } from '../commit-lock.js';
import { ControlPlaneUnavailableError } from '../../domain/errors.js';
import { isPostgresUnavailable } from '../db-errors.js';
import {
  appliedMigrationNames,
  createPostgresPool,
  currentSchema,
  isCurrentSchema,
  useBinaryCollation,
  withMigrationLock,
  withTypedFaults,
  type PostgresPoolOptions,
} from './pool.js';

/** Every table of ours, which gets the "C" collation. */
const TABLES: readonly string[] = CONTROL_TABLES;

export interface PostgresControlPlaneOptions extends PostgresPoolOptions {
  clock?: Clock;
  random?: RandomBytes;
  /** how long an unsettled reservation is held (UsageLedgerOptions.leaseMs) */
  leaseMs?: number;
  /** tests: called inside each migration this open runs (MigrationHook) */
  migrationHook?: MigrationHook;
}

/** Connects, brings the schema to the latest migration, and hands back the stores. */
export async function openPostgresControlPlane(url: string, opts: PostgresControlPlaneOptions = {}): Promise<ControlPlane> {
  const pool = createPostgresPool(url, { schema: opts.schema, maxConnections: opts.maxConnections });
  const db = new Kysely<ControlDB>({ dialect: new PostgresDialect({ pool: withTypedFaults(pool) }) });
  let closing: Promise<void> | undefined;
  // Kysely's destroy() ends the pool too.
  const close = () => (closing ??= db.destroy());
  try {
    if (!(await isCurrentSchema(db, TABLES)))
      await withMigrationLock(db, opts.schema, async (conn) => {
        // Always pinned to one schema: unpinned, Kysely takes its bookkeeping tables of ANY schema of the
        // database (another app's, another footfall's) for ours, skips creating them, then fails.
        const schema = opts.schema ?? (await currentSchema(conn));
        const where = `the PostgreSQL control plane (schema "${schema}" at ${redact(url)})`;
        // Kysely's Migrator runs every migration it applies in one transaction of this connection.
        await migrateDespiteForeignDrops(
          async () =>
            migrateToLatest(conn, { schema, applied: await appliedMigrationNames(conn, schema), hook: opts.migrationHook, where }),
          schema,
        );
        await useBinaryCollation(conn, TABLES);
      });
  } catch (err) {
    await close().catch(() => {});
    // the boundary made it typed already; the cause's message says what the start could not do
    const cause = err instanceof ControlPlaneUnavailableError ? err.cause : err;
    if (err instanceof ControlPlaneUnavailableError || isPostgresUnavailable(cause))
      throw new ControlPlaneUnavailableError(`cannot reach the PostgreSQL control plane at ${redact(url)}: ${(cause as Error).message}`, {
        cause,
      });
    throw err;
  }
  const catalog = new KyselyCatalogStore(db, { clock: opts.clock, random: opts.random, onClose: close });
  // Processes of other machines share these rows: a lease of a dead one ends by expiry only.
  const ledger = new KyselyUsageLedger(db, { clock: opts.clock, leaseMs: opts.leaseMs });
  try {
    await ledger.reclaim();
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
  const stores = { clock: opts.clock, random: opts.random };
  return {
    catalog,
    ledger,
    people: new KyselyPeopleStore(db, stores, postgresThrottleKeyLock),
    embeds: new KyselyEmbedStore(db, stores),
    reports: new KyselyReportStore(db, stores),
    commitLock: postgresCommitLock(db),
    lifecycle: new KyselyLifecycleControl(db, opts.clock ?? systemClock),
    tableRows: () => countRows(db),
    close,
  };
}

/**
 * Kysely's migrator lists the tables of every schema of the database (its introspection asks
 * has_schema_privilege and pg_get_serial_sequence of each), and another schema dropped while that
 * query runs fails it with "schema … does not exist" (SQLSTATE 3F000), or with "relation
 * "<schema>.<table>" does not exist" (42P01) when the table went first: another deployment or app
 * sharing the database, or a test's scratch schema. Nothing of ours was touched; the migration is run
 * again, a few times. A missing schema or table of our own is a real fault and is thrown at once.
 */
export async function migrateDespiteForeignDrops(migrate: () => Promise<unknown>, schema: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await migrate();
      return;
    } catch (err) {
      const cause = (err as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
      const dropped = cause?.code === '3F000' || cause?.code === '42P01';
      const foreign =
        dropped && typeof cause.message === 'string' && !cause.message.includes(`"${schema}"`) && !cause.message.includes(`"${schema}.`);
      if (!foreign || attempt >= 5) throw err;
    }
  }
}

function redact(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}
