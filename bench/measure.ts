// Timing a whole command as a process: wall time and its peak resident memory (VmHWM, polled from
// /proc), plus, optionally, another process's memory over the same span (a server the command talks to).
// Not a bench itself (no `run`).
import { spawn } from 'node:child_process';
import fs from 'node:fs';

export interface Measured {
  seconds: number;
  /** the command's peak resident set, MB */
  peakRssMb: number;
  /** the watched process's highest resident set seen during the command, MB */
  watchedPeakMb?: number;
  stdout: string;
  stderr: string;
  code: number | null;
}

/** Resident set of a process now and at its peak so far, MB (null when it is gone). */
export function rssOf(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

export function measure(
  cmd: string,
  args: string[],
  opts: { watchPid?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(cmd, args, { env: opts.env ?? process.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => (stdout += b));
    child.stderr.on('data', (b) => (stderr += b));
    let peak = 0;
    let watched = 0;
    const poll = setInterval(() => {
      const own = child.pid ? rssOf(child.pid) : null;
      if (own) peak = Math.max(peak, own.hwm);
      const w = opts.watchPid ? rssOf(opts.watchPid) : null;
      if (w) watched = Math.max(watched, w.rss);
    }, 50);
    child.on('error', (err) => {
      clearInterval(poll);
      reject(err);
    });
    child.on('close', (code) => {
      clearInterval(poll);
      resolve({
        seconds: (performance.now() - start) / 1000,
        peakRssMb: peak,
        ...(opts.watchPid ? { watchedPeakMb: watched } : {}),
        stdout,
        stderr,
        code,
      });
    });
  });
}

/** Bytes under a folder (files only), 0 when it does not exist. */
export function folderBytes(dir: string): number {
  let total = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = `${dir}/${e.name}`;
    try {
      total += e.isDirectory() ? folderBytes(p) : fs.statSync(p).size;
    } catch {
      // a file removed while we looked
    }
  }
  return total;
}
