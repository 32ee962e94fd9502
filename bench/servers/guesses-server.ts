// Child process of bench/guesses.ts: footfall on the embedded stack with collection, the real password
// hash parameters, and the client address taken from X-Forwarded-For (so the bench's guessers come from
// as many addresses as it likes, as a spread attack would, and no per-address throttle hides the cost).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/main.js';
import { followParent } from './parent-link.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'footfall-bench-guesses-'));
const server = await startServer(loadConfig({ dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent', trustProxy: 'true' }, {}));
const ws = await server.container.catalog.createWorkspace({ name: 'bench', plan: 'pro' });
await server.container.catalog.createSite({
  workspaceId: ws.id,
  name: 'bench',
  hostnames: ['guesses.bench.example'],
  collectionProfile: 'extended',
});
process.stdout.write(JSON.stringify({ address: server.address }) + '\n');

followParent(async () => {
  await server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});
