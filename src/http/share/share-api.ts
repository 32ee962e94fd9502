// What a share link's page calls, under the link's own path (so that its password cookie, scoped to that
// path, goes nowhere else): the read routes an embed may make, registered again behind the share
// strategy (`/share/<slug>/api/v1/...`, same parameters and answers as /v1), their batch (`GET
// /share/<slug>/api/reads`, read-batch-route.ts), and `POST /share/<slug>/api/session` {password}, which
// sets that cookie. Kept out of /openapi.json.
import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import type { AppDeps } from '../../services/deps.js';
import { admitShare, SHARE_COOKIE, unlockShare } from '../../services/embeds/share-admission.js';
import type { AuthStrategy } from '../pipeline/auth-strategy.js';
import type { AnyRoute } from '../pipeline/define-route.js';
import { registerReadBatch } from '../pipeline/read-batch-route.js';
import { secureCookie } from '../server/secure-cookie.js';

export const SHARE_PREFIX = '/share/:slug/api';

/** A share link's reads: the link in the path, its password cookie when it has one; unmetered, per viewer. */
export const shareStrategy: AuthStrategy = {
  name: 'share',
  security: [{ shareLink: [] }],
  async admit(request, _reply, { deps }) {
    if (!deps.embeds) throw new ApiError('UNAUTHORIZED', 'This server has no share links.');
    const { slug } = request.params as { slug: string };
    return admitShare({ ...deps, embeds: deps.embeds }, { slug, cookie: request.cookies?.[SHARE_COOKIE], clientAddress: request.ip });
  },
};

function cookieOptions(publicUrl: string, request: FastifyRequest, slug: string) {
  // Scoped to this link's page and reads: another link's page never sends it.
  return { path: `/share/${slug}`, httpOnly: true, sameSite: 'strict' as const, secure: secureCookie(publicUrl, request) };
}

/** The share link's reads (`reads`: the read routes an embed may make), their batch and its password, when the process has share links and a hasher. */
export async function registerShareApi(app: FastifyInstance, deps: AppDeps, reads: readonly AnyRoute[]): Promise<void> {
  const { embeds, people, hasher } = deps;
  if (!embeds || !people || !hasher) return;
  const origin = new URL(deps.config.publicUrl).origin;
  await app.register(
    async (scope) => {
      await scope.register(cookie);
      for (const route of reads) route.register(scope, deps, { strategy: shareStrategy, hidden: true });
      registerReadBatch(scope, deps, {
        url: '/reads',
        strategy: shareStrategy,
        routes: reads,
        target: ({ slug }) => ({ prefix: `/share/${encodeURIComponent(slug)}/api`, credential: 'cookie' }),
      });
      scope.post('/session', { schema: { hide: true } }, async (request, reply: FastifyReply) => {
        const sent = request.headers.origin;
        if (sent !== undefined && sent !== origin)
          throw new ApiError('FORBIDDEN', `A share link's password is accepted from ${origin} only.`);
        const password = (request.body as { password?: unknown } | null)?.password;
        if (typeof password !== 'string' || password.length === 0)
          throw new ApiError('INVALID_PARAMS', 'Send the password as JSON: {"password": "..."}.', { parameter: 'password' });
        const { slug } = request.params as { slug: string };
        const unlocked = await unlockShare({ ...deps, embeds, people, hasher }, { slug, password, clientAddress: request.ip });
        if (unlocked)
          reply.setCookie(SHARE_COOKIE, unlocked.value, {
            ...cookieOptions(deps.config.publicUrl, request, slug),
            expires: unlocked.expiresAt,
          });
        return reply.code(204).send();
      });
    },
    { prefix: SHARE_PREFIX },
  );
}
