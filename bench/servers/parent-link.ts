// What a bench server child shares with the bench that spawned it: it stops on SIGTERM, SIGINT or the
// end of its stdin (the parent went away), and a "cpu" line on stdin answers its CPU time so far
// (µs, user + system), so the parent can tell server CPU per request apart from the load generator's
// share of the cores; a server may answer other commands (`name arg`) with a JSON line of its own.
// Not a bench itself (no `run`).
import { createInterface } from 'node:readline';

export function followParent(close: () => Promise<void>, commands: Record<string, (arg: string) => Promise<unknown>> = {}): void {
  const stop = async () => {
    await close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  createInterface({ input: process.stdin }).on('line', (line) => {
    const [name, arg = ''] = line.trim().split(/\s+/, 2);
    if (commands[name]) {
      void commands[name](arg).then((answer) => process.stdout.write(JSON.stringify(answer) + '\n'));
      return;
    }
    if (name !== 'cpu') return;
    const u = process.cpuUsage();
    process.stdout.write(JSON.stringify({ cpuMicros: u.user + u.system }) + '\n');
  });
}
