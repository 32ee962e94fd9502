// Child process of bench/embed.ts: serves footfall over a data dir that already holds the bench events,
// with a parent API token and an embed key, so the load generator shares no event loop with it.
// argv: dataDir workspaceId. Prints {footfall, token, tokenId, keyId, keySecret}.
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config/config.js';
import { startServer } from '../../src/main.js';
import { generateSecret, hashSecret } from '../../src/domain/tokens.js';
import { embedKeySecret } from '../../src/services/embeds/embed-keys.js';
import { followParent } from './parent-link.js';

const [dataDir, workspaceId] = process.argv.slice(2);
const server = await startServer(loadConfig({ dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent' }, {}));
const { catalog, embeds } = server.container;
const secret = generateSecret(randomBytes);
const parent = await catalog.createToken({ workspaceId, scopes: ['metrics:read'], secretHash: hashSecret(secret) });
const key = await embeds!.createEmbedKey({ workspaceId, origins: ['https://app.example.com'] });
const keySecret = await embedKeySecret(catalog, key.id);

process.stdout.write(JSON.stringify({ footfall: server.address, token: secret, tokenId: parent.id, keyId: key.id, keySecret }) + '\n');

followParent(() => server.close());
