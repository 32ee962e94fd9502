// What a bench server child shares with the bench that spawned it: it stops on SIGTERM, SIGINT or the
// end of its stdin (the parent went away), and a "cpu" line on stdin answers its CPU time so far
// (µs, user + system), so the parent can tell server CPU per request apart from the load generator's
// share of the cores. Not a bench itself (no `run`).
import { createInterface } from 'node:readline';

export function followParent(close: () => Promise<void>): void {
  const stop = async () => {
    await close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() !== 'cpu') return;
    const u = process.cpuUsage();
    process.stdout.write(JSON.stringify({ cpuMicros: u.user + u.system }) + '\n');
  });
}
