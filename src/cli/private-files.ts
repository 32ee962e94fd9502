// The data dir holds the visitor-key salt (control.sqlite), the events and the admin socket: only
// the user running footfall may read it. Every CLI entry calls this before it opens anything:
// the umask makes whatever this process (SQLite and its -wal/-shm, DuckDB, the socket) creates from
// now on private, and the walk tightens a data dir created by an older version or by hand.
import fs from 'node:fs';
import path from 'node:path';

/** Files and sockets 0600, directories 0700. */
export const PRIVATE_UMASK = 0o077;

export function usePrivateFiles(dataDir: string): void {
  process.umask(PRIVATE_UMASK);
  tightenTree(dataDir);
}

/**
 * chmods the dir and everything under it that grants group or others any access; symlinks are left
 * alone. Other processes may be creating and removing files meanwhile (SQLite's -shm and -journal
 * of a running server or CLI): an entry gone between the listing and its chmod is skipped.
 */
export function tightenTree(dir: string): void {
  const st = lstatIfThere(dir);
  if (!st?.isDirectory()) return;
  tighten(dir, st, 0o700);
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (isGone(err)) return;
    throw err;
  }
  for (const entry of entries) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) tightenTree(p);
    else if (entry.isFile() || entry.isSocket()) {
      const est = lstatIfThere(p);
      if (est) tighten(p, est, 0o600);
    }
  }
}

const isGone = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

function lstatIfThere(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch (err) {
    if (isGone(err)) return null;
    throw err;
  }
}

function tighten(p: string, st: fs.Stats, mode: number): void {
  if ((st.mode & 0o077) === 0) return;
  try {
    fs.chmodSync(p, st.mode & mode & 0o7777);
  } catch (err) {
    if (!isGone(err)) throw err;
  }
}
