// The session cookie: HttpOnly (no script reads it), SameSite=Lax (no cross-site POST carries it),
// Path=/app (the dashboard and its API only), Secure as secure-cookie.ts decides. Cleared with the same
// attributes, or a browser would keep the cookie it was told to forget.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';
import { secureCookie } from '../server/secure-cookie.js';

export const SESSION_COOKIE = 'footfall_session';

function options(publicUrl: string, request: FastifyRequest) {
  return { path: '/app', httpOnly: true, sameSite: 'lax' as const, secure: secureCookie(publicUrl, request) };
}

export function sendSessionCookie(
  publicUrl: string,
  request: FastifyRequest,
  reply: FastifyReply,
  session: { secret: string; expiresAt: Date },
): void {
  reply.setCookie(SESSION_COOKIE, session.secret, { ...options(publicUrl, request), expires: session.expiresAt });
}

export function clearSessionCookie(publicUrl: string, request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, options(publicUrl, request));
}
