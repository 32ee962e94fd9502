// Opening the DuckDB instance of the embedded store with bounded resources (docs/decisions/store.md):
// a memory limit (DuckDB's own default is 80% of RAM, which a server sharing a machine cannot
// afford), a temp directory of our own for spilled data and staged chunks (emptied at open: only the
// process holding the file lock writes there), and a cap on that directory (DuckDB's own default is
// 90% of the free disk, which once filled the disk). Running out of either fails the statement;
// importResourceError() turns that into a message naming the cause and the setting to change.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { DuckDBInstance } from '@duckdb/node-api';

export interface DuckDbLimits {
  /** DuckDB memory_limit, e.g. '1GB'; past it, sorts, joins, aggregates and temp tables spill */
  memoryLimit?: string;
  /**
   * where spilled data and staged chunks go: a folder of our own is made inside it (default: beside
   * the database file, `events.duckdb.tmp`)
   */
  tempDir?: string;
  /** cap of the temp directory (DuckDB max_temp_directory_size), e.g. '20GB' (default: half the free space) */
  tempLimit?: string;
  /** DuckDB worker threads (default: every core) */
  threads?: number;
}

export const DEFAULT_DUCKDB_MEMORY_LIMIT = '512MB';

/** The settings as the error messages name them (config.ts maps each to an env variable and a flag). */
export const LIMIT_SETTINGS = {
  memoryLimit: 'FOOTFALL_DUCKDB_MEMORY_LIMIT (--duckdb-memory-limit)',
  tempDir: 'FOOTFALL_DUCKDB_TEMP_DIR (--duckdb-temp-dir)',
  tempLimit: 'FOOTFALL_DUCKDB_TEMP_LIMIT (--duckdb-temp-limit)',
} as const;

export interface OpenedInstance {
  instance: DuckDBInstance;
  tempDir: string;
  /** the limits in force, for messages */
  memoryLimit: string;
  tempLimit: string;
  /** the worker threads it was opened with (undefined: an instance handed in, whose setting is left alone) */
  threads?: number;
}

/** The file is held by another process (DuckDB allows one writer process). */
export class EventStoreBusyError extends Error {
  readonly code = 'EVENTS_STORE_BUSY';
  constructor(file: string, cause: unknown) {
    super(
      `the events store ${file} is in use by another process (is \`footfall serve\` running on this data dir?). ` +
        "The embedded store is one process's: stop that server, or give this one its own --data-dir (`footfall import` goes " +
        'through a running server by itself); several processes on one data dir need ClickHouse and PostgreSQL ' +
        '(FOOTFALL_EVENTS_URL and FOOTFALL_CONTROL_URL)',
      { cause },
    );
    this.name = 'EventStoreBusyError';
  }
}

export async function openDuckDbInstance(file: string, limits: DuckDbLimits = {}): Promise<OpenedInstance> {
  const memory = file === ':memory:';
  if (!memory) fs.mkdirSync(path.dirname(file), { recursive: true });
  const tempDir = ownTempDir(file, limits.tempDir);
  const memoryLimit = limits.memoryLimit ?? DEFAULT_DUCKDB_MEMORY_LIMIT;
  const tempLimit = limits.tempLimit ?? defaultTempLimit(tempDir);
  const threads = limits.threads ?? os.availableParallelism();
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(file, {
      memory_limit: memoryLimit,
      threads: String(threads),
      temp_directory: tempDir,
      max_temp_directory_size: tempLimit,
      // FSST string compression costs a fifth of an import's write time for about a quarter more disk
      // on events (measured on 1M events); dictionary and the other methods stay on.
      disabled_compression_methods: 'fsst',
      // A checkpoint writes the latest version of every block changed since the last one: live loads
      // rewrite the same rollup rows load after load, so fewer checkpoints write them fewer times (30
      // loads of the collect bench's traffic: 6-9% less CPU in total, the close's checkpoint included,
      // docs/decisions/collection-at-the-floor.md). At most 64 MB of WAL is replayed after a crash.
      checkpoint_threshold: '64MB',
    });
  } catch (err) {
    if (/lock/i.test(String((err as Error)?.message))) throw new EventStoreBusyError(file, err);
    throw err;
  }
  // We hold the file now: whatever a dead predecessor left in our temp folder is garbage.
  if (!memory) fs.rmSync(tempDir, { recursive: true, force: true });
  fs.mkdirSync(tempDir, { recursive: true, mode: 0o700 });
  return { instance, tempDir, memoryLimit, tempLimit, threads };
}

/**
 * The temp folder this store owns (and empties at open): never the folder a user names itself,
 * which may hold anything, but one named after the database file inside it.
 */
function ownTempDir(file: string, root: string | undefined): string {
  if (file === ':memory:') return fs.mkdtempSync(path.join(root ?? os.tmpdir(), 'footfall-duckdb-'));
  if (root === undefined) return `${file}.tmp`;
  const id = createHash('sha256').update(path.resolve(file)).digest('hex').slice(0, 12);
  return path.join(root, `footfall-${path.basename(file)}-${id}.tmp`);
}

/** Half the free space of the filesystem holding `dir` (or its nearest existing parent), whole GB, at least 1GB. */
export function defaultTempLimit(dir: string): string {
  let probe = path.resolve(dir);
  while (!fs.existsSync(probe) && path.dirname(probe) !== probe) probe = path.dirname(probe);
  try {
    const s = fs.statfsSync(probe);
    const gb = Math.floor((Number(s.bavail) * Number(s.bsize)) / 2 / 2 ** 30);
    return `${Math.max(gb, 1)}GB`;
  } catch {
    return '10GB';
  }
}

/** An import stopped by a resource limit; the store is as it was before the import. */
export class ImportResourceError extends Error {
  constructor(
    readonly code: 'IMPORT_OUT_OF_MEMORY' | 'IMPORT_OUT_OF_DISK',
    message: string,
    cause: unknown,
  ) {
    super(message, { cause });
    this.name = 'ImportResourceError';
  }
}

/**
 * The resource error `err` stands for, with a message a person can act on, or null when it is
 * something else. DuckDB reports a full temp cap as an out-of-memory error naming the setting.
 */
export function importResourceError(
  err: unknown,
  opened: Pick<OpenedInstance, 'tempDir' | 'memoryLimit' | 'tempLimit'>,
  tempBytesInUse: number | null = null,
): ImportResourceError | null {
  const msg = String((err as Error)?.message ?? err);
  const kept = 'Nothing of this import was stored.';
  // Memory runs out when nothing more can spill: a temp directory at its cap is the real cause then.
  const tempFull = tempBytesInUse !== null && tempBytesInUse >= 0.9 * sizeBytes(opened.tempLimit);
  if (/max_temp_directory_size/i.test(msg) || (tempFull && /out of memory/i.test(msg))) {
    return new ImportResourceError(
      'IMPORT_OUT_OF_DISK',
      `the import needed more temporary disk space than the cap of ${opened.tempLimit} in ${opened.tempDir}. ${kept} ` +
        `Raise ${LIMIT_SETTINGS.tempLimit}, or ${LIMIT_SETTINGS.memoryLimit} so less spills, or import the file in smaller parts.`,
      err,
    );
  }
  if (/no space left on device|disk full|ENOSPC/i.test(msg)) {
    return new ImportResourceError(
      'IMPORT_OUT_OF_DISK',
      `the disk holding the store or its temporary directory (${opened.tempDir}) is full. ${kept} ` +
        `Free space, point ${LIMIT_SETTINGS.tempDir} at a larger disk, or lower ${LIMIT_SETTINGS.tempLimit}.`,
      err,
    );
  }
  if (/out of memory/i.test(msg)) {
    return new ImportResourceError(
      'IMPORT_OUT_OF_MEMORY',
      `the import needed more memory than DuckDB's limit of ${opened.memoryLimit}. ${kept} ` +
        `Raise ${LIMIT_SETTINGS.memoryLimit}, or import the file in smaller parts.`,
      err,
    );
  }
  return null;
}

/** Bytes of a DuckDB size setting (KB, MB, GB, TB count in 1000s; KiB, MiB, GiB, TiB in 1024s). */
export function sizeBytes(size: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT]?)(i?)B$/i.exec(size.trim());
  if (!m) return Number.POSITIVE_INFINITY;
  const power = ' KMGT'.indexOf(m[2].toUpperCase() || ' ');
  return Number(m[1]) * (m[3] ? 1024 : 1000) ** power;
}
