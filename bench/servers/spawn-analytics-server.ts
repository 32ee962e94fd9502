// Starts bench/servers/analytics-server.ts as a child process and talks to it: its addresses and token,
// its CPU time so far (to tell server CPU per request apart from the load generator's), and stop().
// Not a bench itself (no `run`).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface AnalyticsServerInfo {
  footfall: string;
  token: string;
  /** per cache-hit path: the bare node:http server repeating its bytes */
  bare: Record<string, { address: string; bytes: number }>;
}

export interface AnalyticsServerChild {
  info: AnalyticsServerInfo;
  /** the server process's user + system CPU so far, µs */
  cpuMicros(): Promise<number>;
  /** `n` requests of the first hit path one at a time: the median ms of each stage, "rest" and "server" */
  stages(n: number): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

// BENCH_SERVER_NODE_ARGS: extra node flags for the server process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
const serverNodeArgs = () => (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);

export async function spawnAnalyticsServer(
  dataDir: string,
  workspaceId: string,
  hitPaths: string[],
  stores: { controlUrl?: string; eventsUrl?: string; redisUrl?: string } = {},
): Promise<AnalyticsServerChild> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const child = spawn(
    process.execPath,
    [...serverNodeArgs(), '--import', 'tsx', path.join(here, 'analytics-server.ts'), dataDir, workspaceId, ...hitPaths],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, BENCH_SERVER_STORES: JSON.stringify(stores) },
    },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const nextLine = async () => {
    const r = await lines.next();
    if (r.done) throw new Error('bench server exited early');
    return r.value as string;
  };
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  };
  try {
    const info = JSON.parse(await nextLine()) as AnalyticsServerInfo;
    return {
      info,
      cpuMicros: async () => {
        child.stdin!.write('cpu\n');
        return (JSON.parse(await nextLine()) as { cpuMicros: number }).cpuMicros;
      },
      stages: async (n) => {
        child.stdin!.write('stages start\n');
        await nextLine();
        const path = hitPaths[0];
        for (let i = 0; i < n; i++) {
          // as the load runs ask (autocannon sends no Accept-Encoding): the body goes out as it is kept
          const res = await fetch(info.footfall + path, {
            headers: { authorization: `Bearer ${info.token}`, 'accept-encoding': 'identity' },
          });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`stages: ${path} answered ${res.status}`);
        }
        child.stdin!.write('stages stop\n');
        return JSON.parse(await nextLine()) as Record<string, number>;
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
