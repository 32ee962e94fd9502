// The spools of a data dir: `spool/<id>/`, one per serving process, each held by its ProcessLock.
// A process starting takes a spool nobody holds (its own of an earlier run, or any other a stopped
// process left), or makes a new one; the spools nobody holds are then loaded and removed by a live
// process (orphan-loader.ts). Starting (picking, making, clearing what a crash left) happens under
// the root's lock, `spool/ROOT.lock`; a process that owns the data dir alone (the embedded stores)
// keeps that lock while it runs, so a second one is refused at once.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ProcessLock } from './process-lock.js';
import { REMOVED_PREFIX, Spool, SPOOL_LOCK, spoolId, syncDir, type SpoolOptions } from './spool.js';
import { segmentNumber } from './spool-format.js';

export const ROOT_LOCK = 'ROOT.lock';
/** A spool being made (or moved from the layout of one spool per data dir) is `.new-<id>` until whole. */
const NEW_PREFIX = '.new-';
const SPOOL_NAME = /^[a-z0-9]{8,64}$/;
/** How long a process sharing the data dir waits for another one's start to finish. */
const ROOT_WAIT_MS = 10_000;

/** Another process owns the data dir (one process serves a data dir on the embedded stores). */
export class DataDirInUseError extends Error {
  readonly code = 'DATA_DIR_IN_USE';
  constructor(dataDir: string, pid: number | null, shared: boolean) {
    const who = pid === null ? 'another footfall serve' : `another footfall serve (process ${pid})`;
    super(
      shared
        ? `the data dir ${dataDir} is held by ${who} that serves it alone (its control plane is SQLite or its events DuckDB): stop it, or give this server its own --data-dir`
        : `the data dir ${dataDir} is served by ${who}; with a SQLite control plane one process serves a data dir. ` +
            'Stop that server, or give this one its own --data-dir; several processes may serve one data dir when they share ' +
            'PostgreSQL and ClickHouse (FOOTFALL_CONTROL_URL and FOOTFALL_EVENTS_URL)',
    );
    this.name = 'DataDirInUseError';
  }
}

export interface OwnSpool {
  spool: Spool;
  /** the root's lock when this process owns the data dir alone; release it after closing the spool */
  rootLock: ProcessLock | null;
}

/**
 * This process's spool under `root` (`<data dir>/spool`). `shared`: other processes serve the same
 * data dir (their stores take writers from every process), so the root is held only while starting.
 */
export async function openOwnSpool(root: string, opts: { shared: boolean; spool?: SpoolOptions }): Promise<OwnSpool> {
  await fs.promises.mkdir(root, { recursive: true });
  const rootLock = await takeRoot(root, opts.shared);
  try {
    await moveSingleSpool(root);
    await clearLeftovers(root);
    const spool = (await takeOrphan(root, opts.spool)) ?? (await makeSpool(root, opts.spool));
    if (!opts.shared) return { spool, rootLock };
    rootLock.release();
    return { spool, rootLock: null };
  } catch (err) {
    rootLock.release();
    throw err;
  }
}

/** The spool directories under `root`, whether held or not. */
export async function listSpools(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.promises.readdir(root, { withFileTypes: true }).catch(() => []))
    if (e.isDirectory() && SPOOL_NAME.test(e.name)) out.push(path.join(root, e.name));
  return out;
}

/**
 * Takes the lock of the spool in `dir` when no live process holds it and it is still a spool (a
 * spool being removed is renamed before its lock is let go); null otherwise.
 */
export function takeSpoolLock(dir: string): ProcessLock | null {
  const lock = ProcessLock.tryTake(path.join(dir, SPOOL_LOCK), { create: true });
  if (lock && !fs.existsSync(path.join(dir, 'ID'))) {
    lock.release();
    return null;
  }
  return lock;
}

async function takeRoot(root: string, shared: boolean): Promise<ProcessLock> {
  const file = path.join(root, ROOT_LOCK);
  const until = Date.now() + ROOT_WAIT_MS;
  for (;;) {
    const lock = ProcessLock.tryTake(file, { create: true });
    if (lock) return lock;
    // Another process sharing the data dir is picking its spool (milliseconds); one that serves it alone holds on.
    if (!shared || Date.now() > until) throw new DataDirInUseError(path.dirname(root), ProcessLock.holderOf(file), shared);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The first spool nobody holds, taken over as this process's own (each open writes a new segment). */
async function takeOrphan(root: string, opts: SpoolOptions | undefined): Promise<Spool | null> {
  for (const dir of await listSpools(root)) {
    const lock = takeSpoolLock(dir);
    if (lock) return Spool.open(dir, { ...opts, lock });
  }
  return null;
}

/** A new spool: made and locked as `.new-<id>`, then renamed, so no other process sees it unheld. */
async function makeSpool(root: string, opts: SpoolOptions | undefined): Promise<Spool> {
  const tmp = path.join(root, NEW_PREFIX + randomBytes(8).toString('hex'));
  await fs.promises.mkdir(tmp);
  const lock = ProcessLock.tryTake(path.join(tmp, SPOOL_LOCK), { create: true });
  if (!lock) throw new Error(`cannot lock the new collection spool ${tmp}`);
  try {
    const dir = path.join(root, await spoolId(tmp));
    await fs.promises.rename(tmp, dir);
    await syncDir(root);
    return await Spool.open(dir, { ...opts, lock });
  } catch (err) {
    lock.release();
    throw err;
  }
}

/**
 * What a process that died while starting or removing a spool left: a spool half made (nothing in
 * it was ever acknowledged), one moved whole but not yet renamed (moveSingleSpool: finish it), a spool
 * half removed (wholly loaded before its removal began). Runs under the root's lock, after
 * moveSingleSpool; removals run outside it but only ever delete, and deleting twice is harmless.
 */
async function clearLeftovers(root: string): Promise<void> {
  for (const name of await fs.promises.readdir(root)) {
    const dir = path.join(root, name);
    if (name.startsWith(REMOVED_PREFIX)) await fs.promises.rm(dir, { recursive: true, force: true }).catch(() => undefined);
    else if (name.startsWith(NEW_PREFIX)) {
      const id = await fs.promises.readFile(path.join(dir, 'ID'), 'utf8').then(
        (t) => t.trim(),
        () => null,
      );
      if (id !== null && SPOOL_NAME.test(id) && name === NEW_PREFIX + id) await fs.promises.rename(dir, path.join(root, id));
      else await fs.promises.rm(dir, { recursive: true, force: true });
    }
  }
}

/**
 * A data dir of an earlier version has one spool in `spool/` itself (its ID, segments, sites.json
 * and a LOCK file holding its owner's pid): moved into `spool/<id>/`, the ID last, so a crash in
 * between leaves either the old layout (moved again next start) or a whole `.new-<id>`.
 */
async function moveSingleSpool(root: string): Promise<void> {
  const idFile = path.join(root, 'ID');
  const id = await fs.promises.readFile(idFile, 'utf8').then(
    (t) => t.trim(),
    () => null,
  );
  if (id === null) return;
  if (!SPOOL_NAME.test(id)) throw new Error(`${idFile} does not hold a spool id; move it away to start`);
  const pid = Number((await fs.promises.readFile(path.join(root, 'LOCK'), 'utf8').catch(() => '')).trim());
  if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) throw new DataDirInUseError(path.dirname(root), pid, false);
  const tmp = path.join(root, NEW_PREFIX + id);
  await fs.promises.mkdir(tmp, { recursive: true });
  for (const name of await fs.promises.readdir(root))
    if (segmentNumber(name) !== null || name === 'sites.json') await fs.promises.rename(path.join(root, name), path.join(tmp, name));
  await fs.promises.rename(idFile, path.join(tmp, 'ID'));
  await fs.promises.rename(tmp, path.join(root, id));
  await fs.promises.rm(path.join(root, 'LOCK'), { force: true });
  await syncDir(root);
}

/** Only for the old layout's LOCK file, which held a pid and nothing the kernel releases. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
