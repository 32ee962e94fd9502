// What a bench server child shares with the bench that spawned it: it stops on SIGTERM, SIGINT or the
// end of its stdin (the parent went away), and a "cpu" line on stdin answers its CPU time so far
// (µs, user + system: `cpuMicros`, its engines' threads included; `mainMicros`, the main thread's, the
// one that answers requests), so the parent can tell server CPU per request apart from the load
// generator's share of the cores; a server may answer other commands (`name arg`) with a JSON line of its own.
// Not a bench itself (no `run`).
import fs from 'node:fs';
import { createInterface } from 'node:readline';

/** CPU time of the main thread so far, µs (10 ms resolution); null where /proc has no per-thread times. */
function mainThreadCpuMicros(): number | null {
  try {
    // utime and stime, in clock ticks (100 a second on Linux), after the command's closing parenthesis
    const fields = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return null;
  }
}

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
    process.stdout.write(JSON.stringify({ cpuMicros: u.user + u.system, mainMicros: mainThreadCpuMicros() }) + '\n');
  });
}
