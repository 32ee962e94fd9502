// Child process of bench/collect.ts: footfall (DuckDB in a temp data dir, the bundled geolocation
// database, X-Forwarded-For trusted so the load can come from many visitors, no per-address limit)
// and a bare node:http server answering 202 to the same requests, so the load generator shares an
// event loop with neither. Prints one JSON line: addresses, a token, the probe site.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { startServer } from '../../src/main.js';
import { openDuckDbEventStore } from '../../src/engines/duckdb/duckdb-event-store.js';
import { appendOnlyStore } from './append-only-store.js';
import { followParent } from './parent-link.js';

const dataDirs: string[] = [];
/** A footfall server of its own data dir, with the bench's sites; `collect` as startServer takes it. */
type StartOptions = NonNullable<Parameters<typeof startServer>[1]>;
async function footfall(
  collect: StartOptions['collect'] = true,
  events?: (dataDir: string) => Promise<NonNullable<StartOptions['overrides']>['events']>,
) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-collect-'));
  dataDirs.push(dataDir);
  const server = await startServer(
    loadConfig({ dataDir, host: '127.0.0.1', port: 0, logLevel: 'warn', trustProxy: 'true', collectRateLimit: 0 }, {}),
    { collect, ...(events ? { overrides: { events: await events(dataDir) } } : {}) },
  );
  const c = server.container.catalog;
  const ws = await c.createWorkspace({ name: 'bench', plan: 'enterprise', apiPolicy: { rate_limit_rps: null, hard_cap_units: null } });
  await c.createSite({ workspaceId: ws.id, name: 'bench', hostnames: ['bench.example'], collectionProfile: 'extended' });
  const probe = await c.createSite({ workspaceId: ws.id, name: 'probe', hostnames: ['probe.example'], collectionProfile: 'extended' });
  return { server, probe, catalog: c, workspaceId: ws.id };
}

const { server, probe, catalog: c, workspaceId } = await footfall();
const secret = generateSecret(randomBytes);
await c.createToken({ workspaceId, scopes: ['metrics:read'], secretHash: hashSecret(secret) });
// The request path alone: the same server whose loader waits an hour or 100 million records, so no
// load runs during the bench (the events wait, durable, in its spool: about 500 bytes each). What the
// loader costs is the difference between the two.
const held = await footfall({ intervalMs: 3_600_000, triggerRecords: 100_000_000 });
// The floor of any loader: the same server whose loads only append the events to a plain table
// (append-only-store.ts). Whatever an exact loader does on top costs collection what it costs here.
const closers: (() => Promise<void> | void)[] = [];
const appendOnly = await footfall(true, async (dataDir) => {
  const real = await openDuckDbEventStore({ file: path.join(dataDir, 'events.duckdb'), tempDir: dataDir });
  const floor = await appendOnlyStore(real, dataDir);
  closers.push(
    () => floor.close(),
    () => real.close(),
  );
  return floor.store;
});

const bare = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(202, { 'content-type': 'text/plain; charset=utf-8', 'access-control-allow-origin': '*' }).end('ok'));
});
await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
const bareAddress = `http://127.0.0.1:${(bare.address() as { port: number }).port}`;

process.stdout.write(
  JSON.stringify({
    footfall: server.address,
    held: held.server.address,
    appendOnly: appendOnly.server.address,
    bare: bareAddress,
    token: secret,
    probeSite: probe.id,
  }) + '\n',
);

followParent(async () => {
  bare.close();
  await Promise.all([server.close(), held.server.close(), appendOnly.server.close()]);
  for (const close of closers) await close();
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});
