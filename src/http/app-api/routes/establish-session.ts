// What every way of signing in ends with: a new session, its cookie, and the answer {user, csrf_token}.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../../../ports/people-store.js';
import { userJson } from '../../../services/manage/records-json.js';
import { csrfTokenFor, startSession } from '../../../services/people/sessions.js';
import type { AppApiDeps } from '../app-api-deps.js';
import { sendSessionCookie } from '../session-cookie.js';

export async function establishSession(ctx: { deps: AppApiDeps; request: FastifyRequest; reply: FastifyReply }, user: User) {
  const session = await startSession(ctx.deps, user.id);
  sendSessionCookie(ctx.deps.publicUrl, ctx.request, ctx.reply, session);
  return { user: userJson(user), csrf_token: await csrfTokenFor(ctx.deps, session.idHash) };
}
