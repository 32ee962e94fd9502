// The pages an embed and a share link open: the same shell as the dashboard's, with what the server
// knows before the page runs. The embed page's token stays in its URL fragment, which no request carries,
// so the page names its embed key in the query (`/embed?key=<key_id>#token=<jwt>`): the key's origins
// become the shell's frame-ancestors (none: not framable), and the page learns them to accept a fresh
// token only from them. A share link's page says whether the link is open, asks for its password, or
// is gone (404).
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { frameAncestors } from '../domain/embeds.js';
import type { AppDeps } from '../services/deps.js';
import { findShare, SHARE_COOKIE, shareUnlocked } from '../services/embeds/share-admission.js';
import { sendShell } from './app-pages.js';
import type { WebBundle } from './web-assets.js';

/** The <meta> the embed page reads: the key's state and, when it is active, its origins. */
export const EMBED_META = 'footfall-embed';
/** The <meta> the share page reads: open (with the site and tenant), password, or gone. */
export const SHARE_META = 'footfall-share';

export function registerEmbedPages(app: FastifyInstance, deps: AppDeps, bundle: () => WebBundle | null): void {
  app.get('/embed', { schema: { hide: true } }, async (request, reply) => {
    const keyId = (request.query as Record<string, unknown>).key;
    const key = typeof keyId === 'string' && keyId.length <= 100 && deps.embeds ? await deps.embeds.getEmbedKey(keyId) : null;
    const active = key !== null && key.revokedAt === null;
    const state = typeof keyId !== 'string' ? { key: 'missing' } : active ? { key: 'active', key_id: key.id, origins: key.origins } : { key: 'unknown' };
    return sendShell(reply, bundle(), { frameAncestors: frameAncestors(active ? key.origins : []), meta: { [EMBED_META]: JSON.stringify(state) } });
  });

  void app.register(async (scope) => {
    await scope.register(cookie);
    scope.get('/share/:slug', { schema: { hide: true } }, async (request, reply) => {
      const { slug } = request.params as { slug: string };
      const open = deps.embeds ? await findShare({ ...deps, embeds: deps.embeds }, slug) : null;
      if (!open) return sendShell(reply, bundle(), { status: 404, meta: { [SHARE_META]: JSON.stringify({ state: 'gone' }) } });
      const unlocked = await shareUnlocked(deps.catalog, open.share, request.cookies[SHARE_COOKIE], deps.clock.now().getTime());
      // Nothing of the site is told before the password is given.
      const state = unlocked
        ? { state: 'open', site_id: open.site.id, site_name: open.site.name, tenant_id: open.share.tenantId }
        : { state: 'password' };
      return sendShell(reply, bundle(), { meta: { [SHARE_META]: JSON.stringify(state) } });
    });
  });
}
