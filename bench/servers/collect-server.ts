// Child process of bench/collect.ts: footfall (DuckDB in a temp data dir, the bundled geolocation
// database, X-Forwarded-For trusted so the load can come from many visitors, no per-address limit)
// and a bare node:http server answering 202 to the same requests, so the load generator shares an
// event loop with neither. Prints one JSON line: addresses, a token, the probe site.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { loadConfig } from '../../src/config/config.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { startServer } from '../../src/main.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-collect-'));
const server = await startServer(
  loadConfig({ dataDir, host: '127.0.0.1', port: 0, logLevel: 'warn', trustProxy: 'true', collectRateLimit: 0 }, {}),
);
const c = server.container.catalog;
const ws = await c.createWorkspace({ name: 'bench', plan: 'enterprise', apiPolicy: { rate_limit_rps: null, hard_cap_units: null } });
await c.createSite({ workspaceId: ws.id, name: 'bench', hostnames: ['bench.example'], collectionProfile: 'extended' });
const probe = await c.createSite({ workspaceId: ws.id, name: 'probe', hostnames: ['probe.example'], collectionProfile: 'extended' });
const secret = generateSecret(randomBytes);
await c.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], secretHash: hashSecret(secret) });

const bare = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(202, { 'content-type': 'text/plain; charset=utf-8', 'access-control-allow-origin': '*' }).end('ok'));
});
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
const bareAddress = `http://127.0.0.1:${(bare.address() as { port: number }).port}`;

process.stdout.write(JSON.stringify({ footfall: server.address, bare: bareAddress, token: secret, probeSite: probe.id }) + '\n');

const stop = async () => {
  bare.close();
  await server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop); // the parent went away
/** CPU time of the main thread (the one that answers requests) so far, µs; null where /proc has no per-thread times. */
function mainThreadCpuMicros(): number | null {
  try {
    // utime and stime, in clock ticks (100 a second on Linux), after the command's closing parenthesis
    const fields = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return null;
  }
}

// `cpu`: this process's CPU time so far (its DuckDB threads included) and the main thread's, µs
createInterface({ input: process.stdin }).on('line', (l) => {
  if (l.trim() === 'cpu') {
    const u = process.cpuUsage();
    process.stdout.write(JSON.stringify({ cpuMicros: u.user + u.system, mainMicros: mainThreadCpuMicros() }) + '\n');
  }
});
