// The embedded control plane: catalog and usage ledger on one SQLite file (':memory:' for tests).
import path from 'node:path';
import { Kysely } from 'kysely';
import type { CatalogStore } from '../../ports/catalog-store.js';
import type { EmbedStore } from '../../ports/embed-store.js';
import type { ReportStore } from '../../ports/report-store.js';
import type { PeopleStore } from '../../ports/people-store.js';
import type { UsageLedger } from '../../ports/usage-ledger.js';
import type { LifecycleControl } from '../../ports/lifecycle-control.js';
import { inProcessCommitLock, type CommitLock } from '../../ports/commit-lock.js';
import { systemClock, type Clock } from '../../domain/clock.js';
import type { RandomBytes } from '../../domain/tokens.js';
import { KyselyCatalogStore } from '../catalog-store.js';
import { KyselyEmbedStore } from '../embed-store.js';
import { KyselyReportStore } from '../report-store.js';
import { KyselyPeopleStore } from '../people-store.js';
import { KyselyLifecycleControl } from '../data-lifecycle.js';
import { KyselyUsageLedger } from '../usage-ledger.js';
import { isLatestSchema, migrateToLatest, type MigrationHook } from '../migrate.js';
import type { ControlDB } from '../schema.js';
import { countRows } from '../table-rows.js';
import {
  appliedMigrations,
  createSqliteDialect,
  groupedChargeRunner,
  openSqliteDatabase,
  synchronousPairRunner,
  synchronousRunner,
  withWriteLock,
} from './dialect.js';

export interface ControlPlane {
  catalog: CatalogStore;
  ledger: UsageLedger;
  /** users, memberships, invitations, links and sessions, in the same database */
  people: PeopleStore;
  /** embed keys and share links, in the same database */
  embeds: EmbedStore;
  /** report subscriptions and their deliveries, in the same database */
  reports: ReportStore;
  /** serializes import commit points among the processes sharing this control plane's event store */
  commitLock: CommitLock;
  /** site and workspace removal, pending event-store deletions, the daily purge's lease */
  lifecycle: LifecycleControl;
  /** rows per table (`footfall stats`) */
  tableRows(): Promise<Record<string, number>>;
  /** Closes the database; safe to call more than once (catalog.close() does the same). */
  close(): Promise<void>;
}

export interface ControlPlaneOptions {
  clock?: Clock;
  random?: RandomBytes;
  /** how long an unsettled reservation is held (UsageLedgerOptions.leaseMs) */
  leaseMs?: number;
  /** tests: called inside each migration this open runs (MigrationHook) */
  migrationHook?: MigrationHook;
}

export async function openSqliteControlPlane(file: string, opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const raw = openSqliteDatabase(file);
  const db = new Kysely<ControlDB>({ dialect: createSqliteDialect(raw) });
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= db.destroy());
  try {
    // Every command opens this file: one read under the lock tells whether there is anything to migrate.
    // Kysely's Migrator opens no transaction on SQLite (its adapter has no transactional DDL): this
    // BEGIN IMMEDIATE holds every migration of the run, so a failure or a kill leaves none of them.
    await withWriteLock(raw, async () => {
      const applied = appliedMigrations(raw);
      if (!isLatestSchema(applied))
        await migrateToLatest(db, { applied, hook: opts.migrationHook, where: `the control plane ${path.resolve(file)}` });
    });
  } catch (err) {
    await close();
    throw err;
  }
  const runner = synchronousRunner(raw);
  const catalog = new KyselyCatalogStore(db, { clock: opts.clock, random: opts.random, onClose: close, runner });
  // Every process sharing this file runs on this host, so a dead one's leases are known at once.
  const ledger = new KyselyUsageLedger(db, {
    clock: opts.clock,
    leaseMs: opts.leaseMs,
    reclaimDeadLocalOwners: true,
    pairRunner: synchronousPairRunner(raw),
    runner,
    chargeRunner: groupedChargeRunner(raw),
  });
  try {
    // A process killed between reserve and commit held units; the cap is whole again before we serve.
    await ledger.reclaim();
  } catch (err) {
    await close();
    throw err;
  }
  // One process owns a data dir (its spool, its DuckDB file): its own commits are all there is to order.
  const stores = { clock: opts.clock, random: opts.random };
  return {
    catalog,
    ledger,
    people: new KyselyPeopleStore(db, stores),
    embeds: new KyselyEmbedStore(db, stores),
    reports: new KyselyReportStore(db, stores),
    commitLock: inProcessCommitLock(),
    lifecycle: new KyselyLifecycleControl(db, opts.clock ?? systemClock),
    tableRows: () => countRows(db),
    close,
  };
}
