// Child process of bench/analytics.ts and bench/hot.ts: serves footfall over a data dir (and over the
// servers BENCH_SERVER_STORES names, JSON of controlUrl, eventsUrl, redisUrl) that already hold the
// bench events, and one bare node:http server per cache-hit URL answering the
// same bytes, so the load generator shares an event loop with neither. argv: dataDir workspaceId url...
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/main.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { followParent } from './parent-link.js';
import { StageClock, STAGES } from '../stage-timing.js';

const [dataDir, workspaceId, ...paths] = process.argv.slice(2);
// the parent names the stores; nothing of the shell's FOOTFALL_* variables applies
const stores = JSON.parse(process.env.BENCH_SERVER_STORES ?? '{}') as { controlUrl?: string; eventsUrl?: string; redisUrl?: string };
const server = await startServer(loadConfig({ dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent', ...stores }, {}));
const secret = generateSecret(randomBytes);
await server.container.catalog.createToken({ workspaceId, scopes: ['metrics:read'], secretHash: hashSecret(secret) });

const bare: Record<string, { address: string; bytes: number }> = {};
const servers: http.Server[] = [];
for (const p of paths) {
  // the first request fills the cache; the second is a hit, whose bytes the bare server repeats
  await fetch(`${server.address}${p}`, { headers: { authorization: `Bearer ${secret}` } });
  const sample = await fetch(`${server.address}${p}`, { headers: { authorization: `Bearer ${secret}` } });
  const body = Buffer.from(await sample.arrayBuffer());
  if (sample.status !== 200) throw new Error(`bench setup: ${p} answered ${sample.status}: ${body.toString().slice(0, 300)}`);
  const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) };
  const s = http.createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  servers.push(s);
  bare[p] = { address: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, bytes: body.length };
}

process.stdout.write(JSON.stringify({ footfall: server.address, token: secret, bare }) + '\n');

// `stages start`, then requests one after another from the bench (so that no client shares this event
// loop), then `stages stop`: each request timed stage by stage (../stage-timing.ts) from its 'request'
// event to its answer handed to the socket; answers the median ms of each stage, of the request in the
// server and of "rest", its time less its stages (routing, validation, the pipeline's own work, the
// cache, serialization, the write). The timers go in on the first start, so the load runs before it pay
// nothing for them.
let timer: StageClock | undefined;
let recording: Record<string, number[]> | null = null;
const stages = async (arg: string) => {
  if (arg === 'start') {
    if (!timer) {
      const clock = (timer = new StageClock());
      clock.instrumentInPlace(server.container);
      server.app.server.prependListener('request', (_req, res) => {
        const t = performance.now();
        clock.take();
        res.once('finish', () => {
          const served = performance.now() - t;
          const spent = clock.take();
          if (!recording) return;
          const rest = served - STAGES.reduce((a, s) => a + spent[s], 0);
          for (const [k, v] of Object.entries({ ...spent, rest, server: served })) (recording[k] ??= []).push(v);
        });
      });
    }
    recording = {};
    return { recording: true };
  }
  const per = recording ?? {};
  recording = null;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
  return Object.fromEntries(Object.entries(per).map(([k, xs]) => [k, +median(xs).toFixed(3)]));
};

followParent(
  async () => {
    for (const s of servers) s.close();
    await server.close();
  },
  { stages },
);
