// The page a share link opens: the dashboard's shell, saying whether the link is open (with its site and
// tenant), asks for its password, or is gone (404). Nothing of the site is told before the password.
import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../services/deps.js';
import { findShare, SHARE_COOKIE, shareUnlocked } from '../../services/embeds/share-admission.js';
import { sendShell } from '../pages/app-pages.js';
import type { WebBundle } from '../pages/web-assets.js';

/** The <meta> the share page reads: open (with the site and tenant), password, or gone. */
export const SHARE_META = 'footfall-share';

export async function registerSharePage(app: FastifyInstance, deps: AppDeps, bundle: () => WebBundle | null): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(cookie);
    scope.get('/share/:slug', { schema: { hide: true } }, async (request, reply) => {
      const { slug } = request.params as { slug: string };
      const open = deps.embeds ? await findShare({ ...deps, embeds: deps.embeds }, slug) : null;
      if (!open) return sendShell(reply, bundle(), { status: 404, meta: { [SHARE_META]: JSON.stringify({ state: 'gone' }) } });
      const unlocked = await shareUnlocked(deps.catalog, open.share, request.cookies[SHARE_COOKIE], deps.clock.now().getTime());
      const state = unlocked
        ? { state: 'open', site_id: open.site.id, site_name: open.site.name, tenant_id: open.share.tenantId, timezone: open.site.timezone }
        : { state: 'password' };
      return sendShell(reply, bundle(), { meta: { [SHARE_META]: JSON.stringify(state) } });
    });
  });
}
