// A lock that ends with the process holding it, however it ends (kill -9 included), because the
// kernel drops it: SQLite's POSIX lock on an empty database file, taken with BEGIN EXCLUSIVE and kept.
// Taking it is one atomic step, so two processes never both hold it; a pid written in a file could
// only be judged dead and then taken over in two steps, which two live processes can interleave, and
// a pid says nothing across the pid namespaces of containers sharing one volume. The pid is still
// written beside the lock, for messages only. The holder must keep a reference to the lock while it
// holds it: the garbage collector closes an unreferenced better-sqlite3 database, and that frees the lock.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** The few driver methods used (better-sqlite3's Database). */
interface LockDatabase {
  pragma(source: string): unknown;
  exec(source: string): unknown;
  close(): unknown;
}

export class ProcessLock {
  private released = false;

  private constructor(
    readonly file: string,
    private readonly db: LockDatabase,
  ) {}

  /**
   * Takes the lock of `file`, or answers null when another holder has it (another process, or
   * another lock of this process) or, without `create`, when the file is not there.
   */
  static tryTake(file: string, opts: { create: boolean }): ProcessLock | null {
    let db: LockDatabase;
    try {
      db = new Database(file, { timeout: 0, fileMustExist: !opts.create });
    } catch (err) {
      // A file (or its directory) that is not there: a spool removed meanwhile.
      if (isCode(err, 'SQLITE_CANTOPEN') || !fs.existsSync(path.dirname(file))) return null;
      throw err;
    }
    try {
      // No journal file: nothing is ever written, and a file beside the lock would have to move with it.
      db.pragma('journal_mode = MEMORY');
      db.pragma('locking_mode = EXCLUSIVE');
      db.exec('BEGIN EXCLUSIVE');
    } catch (err) {
      db.close();
      if (isCode(err, 'SQLITE_BUSY') || isCode(err, 'SQLITE_LOCKED')) return null;
      throw err;
    }
    try {
      fs.writeFileSync(`${file}.pid`, `${process.pid}\n`);
    } catch {
      // only messages read it
    }
    return new ProcessLock(file, db);
  }

  /** The pid the holder of `file` wrote, if it can be read. */
  static holderOf(file: string): number | null {
    try {
      const pid = Number(fs.readFileSync(`${file}.pid`, 'utf8').trim());
      return Number.isInteger(pid) && pid > 0 ? pid : null;
    } catch {
      return null;
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      this.db.close();
    } catch {
      // closing an unlinked file (a spool removed while held) is still a close
    }
  }
}

function isCode(err: unknown, code: string): boolean {
  return (err as { code?: string } | null)?.code === code;
}
