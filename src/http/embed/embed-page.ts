// The page an embed opens: the dashboard's shell, with what the server knows before the page runs. Its
// token stays in the URL fragment, which no request carries, so the page names its embed key in the
// query (`/embed?key=<key_id>#token=<jwt>`): the key's origins become the shell's frame-ancestors (none:
// not framable), and the page learns them to accept a fresh token only from them.
import type { FastifyInstance } from 'fastify';
import { frameAncestors } from '../../domain/embeds.js';
import type { AppDeps } from '../../services/deps.js';
import { sendShell } from '../pages/app-pages.js';
import type { WebBundle } from '../pages/web-assets.js';

/** The <meta> the embed page reads: the key's state and, when it is active, its origins. */
export const EMBED_META = 'footfall-embed';

export function registerEmbedPage(app: FastifyInstance, deps: AppDeps, bundle: () => WebBundle | null): void {
  // the plugin's own path (register-embed.ts registers it under /embed)
  app.get('', { schema: { hide: true } }, async (request, reply) => {
    const keyId = (request.query as Record<string, unknown>).key;
    const key = typeof keyId === 'string' && keyId.length <= 100 && deps.embeds ? await deps.embeds.getEmbedKey(keyId) : null;
    const active = key !== null && key.revokedAt === null;
    const state =
      typeof keyId !== 'string'
        ? { key: 'missing' }
        : active
          ? { key: 'active', key_id: key.id, origins: key.origins }
          : { key: 'unknown' };
    return sendShell(reply, bundle(), {
      frameAncestors: frameAncestors(active ? key.origins : []),
      meta: { [EMBED_META]: JSON.stringify(state) },
    });
  });
}
