// The session cookie: HttpOnly (no script reads it), SameSite=Lax (no cross-site POST carries it),
// Path=/app (the dashboard and its API only), Secure whenever the request came over HTTPS.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';

export const SESSION_COOKIE = 'footfall_session';

function options(request: FastifyRequest) {
  return { path: '/app', httpOnly: true, sameSite: 'lax' as const, secure: request.protocol === 'https' };
}

export function sendSessionCookie(request: FastifyRequest, reply: FastifyReply, session: { secret: string; expiresAt: Date }): void {
  reply.setCookie(SESSION_COOKIE, session.secret, { ...options(request), expires: session.expiresAt });
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, options(request));
}
