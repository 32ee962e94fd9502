// `footfall import` as a user runs it: a real process on a real data dir, and input files in it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { FOOTFALL_BIN as CLI } from '../helpers/footfall-bin.js';

const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FOOTFALL_')));
export const UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function importCli(dataDir: () => string) {
  return {
    /** the command with `--data-dir`; `stdin` is piped in */
    cli(args: string[], extraEnv: Record<string, string> = {}, stdin?: Buffer): Promise<Run> {
      return new Promise((resolve) => {
        const child = execFile(
          process.execPath,
          [CLI, ...args, '--data-dir', dataDir()],
          { env: { ...env, ...extraEnv }, timeout: 120_000, encoding: 'utf8' },
          (err, stdout, stderr) => {
            resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
          },
        );
        if (stdin) child.stdin!.end(stdin);
        else child.stdin!.end();
      });
    },
    /** a file of these lines in the data dir */
    file(name: string, lines: string[]): string {
      const p = path.join(dataDir(), name);
      fs.writeFileSync(p, lines.map((l) => l + '\n').join(''));
      return p;
    },
  };
}

/** The [dd/Mon/yyyy:HH:MM:SS +0000] stamp of yesterday at 10:MM (inside any retention). */
export function logStamp(minute = 0): string {
  const d = new Date(Date.now() - 86_400_000);
  const day = String(d.getUTCDate()).padStart(2, '0');
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
  return `${day}/${month}/${d.getUTCFullYear()}:10:${String(minute).padStart(2, '0')}:00 +0000`;
}

/** A combined log line of yesterday. */
export function logLine(request: string, status = 200, ip = '203.0.113.9', minute = 0): string {
  return `${ip} - - [${logStamp(minute)}] "${request}" ${status} 512 "-" "${UA}"`;
}
