// Child process of bench/usage-current.ts: serves footfall and a bare Fastify route returning the
// same bytes, so the load generator does not share an event loop with either server.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/main.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-'));
// BENCH_METRICS=1: keep Prometheus metrics too (a metrics listener on a free port), to price them.
const metricsPort = process.env.BENCH_METRICS === '1' ? 0 : undefined;
const server = await startServer(loadConfig({ dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent', metricsPort }, {}));
// A rate high enough that the limiter runs on every request but never refuses during the bench.
const ws = await server.container.catalog.createWorkspace({ name: 'bench', plan: 'enterprise', apiPolicy: { rate_limit_rps: 1_000_000 } });
const secret = generateSecret(randomBytes);
await server.container.catalog.createToken({ workspaceId: ws.id, scopes: ['usage:read'], secretHash: hashSecret(secret) });

const sample = await fetch(`${server.address}/v1/usage/current`, { headers: { authorization: `Bearer ${secret}` } });
const bytes = await sample.text();
if (sample.status !== 200) throw new Error(`bench setup: /v1/usage/current answered ${sample.status}: ${bytes}`);

const bare = Fastify({ logger: false });
bare.get('/v1/usage/current', (_req, reply) => reply.type('application/json; charset=utf-8').send(bytes));
const bareAddress = await bare.listen({ host: '127.0.0.1', port: 0 });

process.stdout.write(JSON.stringify({ footfall: server.address, bare: bareAddress, token: secret, bytes: bytes.length }) + '\n');

const stop = async () => {
  await bare.close();
  await server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop); // the parent went away
process.stdin.resume();
