// What every way of signing in ends with: a new session, its cookie, and the answer {user, csrf_token};
// or, for a person with two-factor sign-in on, the second step instead (no session, no cookie).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../../../ports/people-store.js';
import { userJson } from '../../../services/manage/records-json.js';
import { secondStepFor } from '../../../services/people/second-step.js';
import { csrfTokenFor, startSession } from '../../../services/people/sessions.js';
import type { AppApiDeps } from '../app-api-deps.js';
import { sendSessionCookie } from '../session-cookie.js';

type Ctx = { deps: AppApiDeps; request: FastifyRequest; reply: FastifyReply };

export async function establishSession(ctx: Ctx, user: User) {
  const session = await startSession(ctx.deps, user.id);
  sendSessionCookie(ctx.deps.publicUrl, ctx.request, ctx.reply, session);
  return { user: userJson(user), csrf_token: await csrfTokenFor(ctx.deps, session.idHash) };
}

/** A session, unless the person turned two-factor sign-in on: then the challenge of the second step. */
export async function sessionOrSecondStep(ctx: Ctx, user: User) {
  const step = await secondStepFor(ctx.deps, user);
  if (step) return { two_factor_required: true as const, challenge: step.challenge, expires_at: step.expiresAt };
  return establishSession(ctx, user);
}
