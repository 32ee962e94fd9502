// The files of a backup and of a restore are written into a hidden sibling of their destination,
// `.<name>.partial-XXXXXX` (backup) or `.<name>.restoring-XXXXXX` (restore), locked by the process
// writing it, and renamed onto the destination only once whole: a process killed half-way leaves the
// sibling, never a destination that looks done. The next run clears the siblings nobody holds.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Takes an exclusive lock on `file` that ends with the process (null: another holder has it). */
export type TakeLock = (file: string) => { release(): void } | null;

/** The lock of a sibling being written (and the pid file written beside it); a directory holding it is not done. */
export const STAGING_LOCK = '.footfall-writing.lock';
const LOCK_FILES = [STAGING_LOCK, `${STAGING_LOCK}.pid`];

export interface Staging {
  dir: string;
  /** Unlocks, syncs and renames the sibling onto `target` (absent, or an empty directory). */
  finish(): Promise<void>;
  /** Removes the sibling (after a failure that leaves nothing worth keeping). */
  discard(): Promise<void>;
}

/** A new locked sibling of `target` for `kind`, after removing the ones an earlier run left (those no live process holds). */
export async function openStaging(target: string, kind: 'partial' | 'restoring', lock: TakeLock): Promise<Staging> {
  const parent = path.dirname(target);
  const prefix = `.${path.basename(target)}.${kind}-`;
  await fs.promises.mkdir(parent, { recursive: true, mode: 0o700 });
  for (const name of await fs.promises.readdir(parent)) {
    if (!name.startsWith(prefix)) continue;
    const left = path.join(parent, name);
    if (!(await fs.promises.lstat(left)).isDirectory()) continue;
    const held = lock(path.join(left, STAGING_LOCK));
    if (!held) continue; // another run is writing it
    try {
      await fs.promises.rm(left, { recursive: true, force: true });
    } finally {
      held.release();
    }
  }
  const dir = await fs.promises.mkdtemp(path.join(parent, prefix));
  await fs.promises.chmod(dir, 0o700);
  const held = lock(path.join(dir, STAGING_LOCK));
  if (!held) throw new Error(`cannot lock ${dir}`);
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    held.release();
    for (const f of LOCK_FILES) await fs.promises.rm(path.join(dir, f), { force: true });
  };
  return {
    dir,
    finish: async () => {
      await release();
      await syncDir(dir);
      await fs.promises.rename(dir, target);
      await syncDir(parent);
    },
    discard: async () => {
      await release();
      await fs.promises.rm(dir, { recursive: true, force: true });
    },
  };
}

/** Whether `dir` is a sibling still being written, or one a killed run left. */
export function isStaging(dir: string): boolean {
  return fs.existsSync(path.join(dir, STAGING_LOCK));
}

/** Every regular file under `dir`, `/`-separated and relative, sorted; the staging lock left out. */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    for (const e of await fs.promises.readdir(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      if (rel === '' && LOCK_FILES.includes(e.name)) continue;
      if (e.isDirectory()) await walk(r);
      else if (e.isFile()) out.push(r);
      else throw new Error(`${path.join(dir, r)} is neither a file nor a directory`);
    }
  };
  await walk('');
  return out.sort();
}

/** Size and sha256 of a file, read whole; with `sync`, its data flushed to the disk too. */
export async function hashFile(file: string, opts: { sync?: boolean } = {}): Promise<{ bytes: number; sha256: string }> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of fh.createReadStream({ autoClose: false, highWaterMark: 1 << 20 })) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
    if (opts.sync) await fh.sync();
    return { bytes, sha256: hash.digest('hex') };
  } finally {
    await fh.close();
  }
}

/** Copies `src` to a new file `dest` (0600), hashing the bytes as they are written, then syncs it. */
export async function copyHashed(src: string, dest: string): Promise<{ bytes: number; sha256: string }> {
  await fs.promises.mkdir(path.dirname(dest), { recursive: true, mode: 0o700 });
  const from = await fs.promises.open(src, 'r');
  try {
    const to = await fs.promises.open(dest, 'wx', 0o600);
    try {
      const hash = createHash('sha256');
      const buf = Buffer.alloc(1 << 20);
      let bytes = 0;
      for (;;) {
        const { bytesRead } = await from.read(buf, 0, buf.length, bytes);
        if (bytesRead === 0) break;
        const part = buf.subarray(0, bytesRead);
        hash.update(part);
        for (let done = 0; done < bytesRead; ) done += (await to.write(part, done, bytesRead - done, bytes + done)).bytesWritten;
        bytes += bytesRead;
      }
      await to.sync();
      return { bytes, sha256: hash.digest('hex') };
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}

/** Flushes a directory's entries (a file made or renamed in it) to the disk. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await fs.promises.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Every directory under `dir` (itself included), deepest first: for syncing them all. */
export async function dirsOf(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await fs.promises.readdir(d, { withFileTypes: true })) if (e.isDirectory()) await walk(path.join(d, e.name));
    out.push(d);
  };
  await walk(dir);
  return out;
}

/** Whether `dir` is absent or an empty directory; a file there, or a directory holding anything, is not. */
export async function absentOrEmpty(dir: string): Promise<{ ok: true } | { ok: false; why: string }> {
  const st = await fs.promises.lstat(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (st === null) return { ok: true };
  if (!st.isDirectory()) return { ok: false, why: 'is a file, not a directory' };
  const entries = await fs.promises.readdir(dir);
  return entries.length === 0
    ? { ok: true }
    : { ok: false, why: `already holds ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}` };
}
