// `footfall backup --out DIR` and `footfall restore --from DIR --data-dir NEW` (docs/decisions/backups.md):
// a consistent copy of an embedded data dir (control plane, events, the spooled events not yet loaded)
// with its manifest, and that copy made a data dir again. Registration loads only commander: each action
// imports what it runs.
import type { Command } from 'commander';
import type { Config } from '../config/config.js';
import { commandConfig, withStoreOptions, type StoreOptions } from './options.js';
import { CliError, emit, fail } from './output.js';
import { DEMO_LOADING_FILE, DEMO_MARKER_FILE } from './demo.js';

type BackupOpts = StoreOptions & { out?: string; from?: string };

export function registerBackup(program: Command): void {
  withStoreOptions(
    program
      .command('backup')
      .description(
        'copy the data dir (control plane, events and the collected events not yet loaded) into a new directory with a manifest, while the server runs or not',
      )
      .option('--out <dir>', 'where the backup goes: a new or empty directory'),
  ).action(async (opts: BackupOpts) => {
    const json = opts.json === true;
    try {
      if (typeof opts.out !== 'string' || opts.out === '') throw new CliError('missing --out <dir> (a new or empty directory)');
      const config = commandConfig(opts);
      embeddedOnly(config, 'backup');
      const [{ openBackupSource, inspectStoreFiles, codeVersions }, { writeBackup }, { ProcessLock }, { crashPoint }] = await Promise.all([
        import('../container.js'),
        import('../services/backup/write-backup.js'),
        import('../ingest/collect/process-lock.js'),
        import('../config/crash-point.js'),
      ]);
      const done = await writeBackup(
        {
          dataDir: config.dataDir,
          open: () => openBackupSource(config),
          inspect: inspectStoreFiles,
          code: await codeVersions(),
          lock: (file) => ProcessLock.tryTake(file, { create: true }),
          extraFiles: [DEMO_MARKER_FILE, DEMO_LOADING_FILE],
          step: crashPoint,
        },
        opts.out,
      );
      const m = done.manifest;
      const spooled = Object.values(m.counts.spool_records).reduce((n, r) => n + r, 0);
      emit(
        json,
        {
          backup: {
            out: done.out,
            data_dir: config.dataDir,
            footfall_version: m.footfall_version,
            taken_via: m.taken_via,
            created_at: m.created_at,
            files: m.files.length,
            bytes: done.bytes,
            seconds: round(done.seconds),
            snapshot_seconds: round(done.snapshotSeconds),
            schema: m.schema,
            counts: m.counts,
          },
        },
        [
          `Backed up ${config.dataDir} into ${done.out}: ${m.files.length} files, ${megabytes(done.bytes)} in ${round(done.seconds)} s ` +
            `(${m.taken_via === 'server' ? 'taken by the running server' : 'no server was running'}).`,
          `  ${m.counts.events.events ?? 0} events stored, ${spooled} collected events to load at the first start of a restore; ` +
            `${m.counts.control.workspaces ?? 0} workspaces, ${m.counts.control.sites ?? 0} sites, ${m.counts.control.tokens ?? 0} tokens.`,
          `  Restore with: footfall restore --from ${done.out} --data-dir NEW_DIR`,
        ].join('\n'),
      );
    } catch (err) {
      fail(json, await asCliError(err));
    }
  });
}

export function registerRestore(program: Command): void {
  withStoreOptions(
    program
      .command('restore')
      .description('make a backup a data dir again: --data-dir names a new or empty directory; every file is checked first')
      .option('--from <dir>', 'the directory footfall backup --out wrote'),
  ).action(async (opts: BackupOpts) => {
    const json = opts.json === true;
    try {
      if (typeof opts.from !== 'string' || opts.from === '') throw new CliError('missing --from <dir> (a directory footfall backup wrote)');
      const config = commandConfig(opts);
      embeddedOnly(config, 'restore');
      const [{ inspectStoreFiles, codeVersions }, { restoreBackup }, { ProcessLock }, { crashPoint }] = await Promise.all([
        import('../container.js'),
        import('../services/backup/restore-backup.js'),
        import('../ingest/collect/process-lock.js'),
        import('../config/crash-point.js'),
      ]);
      const done = await restoreBackup(
        {
          inspect: inspectStoreFiles,
          code: await codeVersions(),
          lock: (file) => ProcessLock.tryTake(file, { create: true }),
          step: crashPoint,
        },
        { from: opts.from, dataDir: config.dataDir },
      );
      const m = done.manifest;
      const spooled = Object.values(m.counts.spool_records).reduce((n, r) => n + r, 0);
      emit(
        json,
        {
          restored: {
            data_dir: done.dataDir,
            from: done.from,
            footfall_version: m.footfall_version,
            created_at: m.created_at,
            files: m.files.length,
            bytes: done.bytes,
            seconds: round(done.seconds),
            spool_records: spooled,
          },
        },
        [
          `Restored the backup of ${m.created_at} (footfall ${m.footfall_version}) into ${done.dataDir}: ${m.files.length} files, ` +
            `${megabytes(done.bytes)}, every one checked against the manifest, in ${round(done.seconds)} s.`,
          `  ${m.counts.events.events ?? 0} events stored${spooled ? `; the first start loads the ${spooled} collected events the backup held in its spool` : ''}.`,
          `  Serve it with: footfall serve --data-dir ${done.dataDir}`,
        ].join('\n'),
      );
    } catch (err) {
      fail(json, await asCliError(err));
    }
  });
}

/** A data dir's backup is of its embedded stores: the shared ones have tools of their own. */
function embeddedOnly(config: Readonly<Config>, command: 'backup' | 'restore'): void {
  const named = [
    config.controlUrl !== undefined ? 'PostgreSQL (FOOTFALL_CONTROL_URL)' : null,
    config.eventsUrl !== undefined ? 'ClickHouse (FOOTFALL_EVENTS_URL)' : null,
  ].filter((x) => x !== null);
  if (named.length === 0) return;
  throw new CliError(
    `footfall ${command} works on the embedded stores of a data dir (control.sqlite, events.duckdb and the collection spool), ` +
      `and this configuration names ${named.join(' and ')}. Back those up with their own tools: pg_dump and pg_restore for PostgreSQL, ` +
      "ClickHouse's BACKUP … TO and RESTORE, or its partitions (ALTER TABLE … FREEZE, ATTACH PARTITION), for ClickHouse; and keep each " +
      'process\'s spool on a persistent disk. The README\'s "Scaling out" section says how',
    'NOT_EMBEDDED',
    2,
  );
}

async function asCliError(err: unknown): Promise<unknown> {
  const { BackupError } = await import('../services/backup/backup-error.js');
  if (err instanceof BackupError) return new CliError(err.message, err.code, 1, err.details);
  return err;
}

const round = (s: number) => Math.round(s * 100) / 100;
const megabytes = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
