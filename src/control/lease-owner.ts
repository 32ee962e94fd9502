// Who holds a reservation lease, and whether that holder is still alive. Several processes may share
// one SQLite file, so "not me" is not "dead": a lease owner on this host is dead when its pid is gone
// or now belongs to a process that started at another time (pid reuse, e.g. a container's pid 1
// restarted). Owners on other hosts cannot be checked here; their leases end by expiry.
import fs from 'node:fs';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { randomBase62 } from '../domain/tokens.js';

export interface LeaseOwner {
  /** random per ledger instance */
  id: string;
  host: string;
  pid: number;
  /** the process's start time as the OS reports it; '' where it cannot be read */
  started: string;
}

export function currentLeaseOwner(): LeaseOwner {
  return { id: randomBase62(randomBytes, 16), host: os.hostname(), pid: process.pid, started: processStartTime(process.pid) };
}

/**
 * Field 22 of /proc/PID/stat: the start time in clock ticks since boot (Linux). Read after the
 * command name, which is in parentheses and may itself hold spaces or parentheses.
 */
export function processStartTime(pid: number): string {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? '';
  } catch {
    return '';
  }
}

/** Whether the process that took a lease on this host is still running. */
export function isLocalOwnerAlive(owner: { pid: number; started: string }): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    // EPERM: the pid exists but belongs to another user, so it is some live process.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (owner.started === '') return true;
  const now = processStartTime(owner.pid);
  return now === '' || now === owner.started;
}
