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

/** chmods the dir and everything under it that grants group or others any access; symlinks are left alone. */
export function tightenTree(dir: string): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!st.isDirectory()) return;
  tighten(dir, st, 0o700);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) tightenTree(p);
    else if (entry.isFile() || entry.isSocket()) tighten(p, fs.lstatSync(p), 0o600);
  }
}

function tighten(p: string, st: fs.Stats, mode: number): void {
  if ((st.mode & 0o077) !== 0) fs.chmodSync(p, st.mode & mode & 0o7777);
}
