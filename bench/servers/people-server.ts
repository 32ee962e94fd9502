// Child process of bench/people.ts: footfall with a workspace of members, sites and tokens, many
// signed-in sessions (the per-session limit is 20 requests/s, so the load spreads over them), and a
// probe server whose two trivial management routes differ only by the session lookup.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { Type } from '@sinclair/typebox';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/main.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { defineAppRoute } from '../../src/http/app-api/define-app-route.js';
import { registerAppApi } from '../../src/http/app-api/register-app-api.js';
import { startSession } from '../../src/services/people/sessions.js';
import { followParent } from './parent-link.js';

// enough that even the trivial route's rate stays under 20 requests a second per session
const SESSIONS = 4000;
const PASSWORD = 'a bench password';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-people-'));
const server = await startServer(loadConfig({ dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent' }, {}), { collect: false });
const { catalog, people, hasher } = server.container;
if (!people || !hasher) throw new Error('bench setup: the container has no people store');
const ws = await catalog.createWorkspace({ name: 'bench', plan: 'enterprise', apiPolicy: { rate_limit_rps: 1_000_000 } });
for (let i = 0; i < 5; i++)
  await catalog.createSite({ workspaceId: ws.id, name: `site ${i}`, hostnames: [`s${i}.bench.example`], collectionProfile: 'extended' });
const owner = await people.createUser({ email: 'owner@bench.example', name: 'Owner', passwordHash: await hasher.hash(PASSWORD) });
await people.addMember({ workspaceId: ws.id, userId: owner.id, role: 'owner' });
for (let i = 0; i < 5; i++) {
  const u = await people.createUser({ email: `m${i}@bench.example` });
  await people.addMember({ workspaceId: ws.id, userId: u.id, role: i % 2 ? 'admin' : 'viewer' });
}
const secret = generateSecret(randomBytes);
await catalog.createToken({ workspaceId: ws.id, scopes: ['metrics:read'], secretHash: hashSecret(secret) });
for (let i = 0; i < 2; i++)
  await catalog.createToken({ workspaceId: ws.id, scopes: ['usage:read'], secretHash: hashSecret(generateSecret(randomBytes)) });
const deps = { people, clock: server.container.clock };
const cookies: string[] = [];
for (let i = 0; i < SESSIONS; i++) cookies.push((await startSession(deps, owner.id)).secret);

// The same pipeline and answer, with and without the session lookup (and its slide, CSRF and rate checks).
const ping = (auth: 'public' | 'session', url: string) =>
  defineAppRoute({
    method: 'GET',
    url,
    operationId: url.slice(1).replace(/-./g, (m) => m[1].toUpperCase()),
    summary: 'bench',
    tag: 'Bench',
    auth,
    status: 200,
    response: Type.Object({}),
    handler: async () => ({}),
  });
const probe = Fastify({ logger: false });
await registerAppApi(probe, server.container, [ping('public', '/ping-public'), ping('session', '/ping-session')]);
const probeAddress = await probe.listen({ host: '127.0.0.1', port: 0 });

process.stdout.write(
  JSON.stringify({
    address: server.address,
    probe: probeAddress,
    workspace: ws.id,
    token: secret,
    email: owner.email,
    password: PASSWORD,
    cookies,
  }) + '\n',
);

followParent(async () => {
  await probe.close();
  await server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});
