// Signing in and out, and the signed-in person's own session and password.
import { Type } from '@sinclair/typebox';
import type { User } from '../../../ports/people-store.js';
import { userJson, workspaceSummaryJson } from '../../../services/manage/records-json.js';
import { workspacesOf } from '../../../services/manage/workspaces.js';
import { changePassword } from '../../../services/people/links.js';
import { csrfTokenFor, endSession } from '../../../services/people/sessions.js';
import { checkPassword } from '../../../services/people/sign-in.js';
import { defineAppRoute } from '../define-app-route.js';
import { Email, Password, SessionSchema, SessionStateSchema, SignInSchema } from '../schemas.js';
import { clearSessionCookie } from '../session-cookie.js';
import type { AppApiDeps } from '../app-api-deps.js';
import { establishSession, sessionOrSecondStep } from './establish-session.js';

const TAG = 'Session';

/** The answer of GET /session (and of a change to the person's own record): who, the CSRF token, the workspaces. */
export async function sessionState(deps: AppApiDeps, user: User, idHash: string) {
  return {
    user: userJson(user),
    csrf_token: await csrfTokenFor(deps, idHash),
    workspaces: (await workspacesOf(deps, user)).map(({ workspace, role }) => workspaceSummaryJson(workspace, role)),
  };
}

export const sessionRoutes = [
  defineAppRoute({
    method: 'POST',
    url: '/session',
    operationId: 'signIn',
    summary: 'Sign in with an email and a password',
    description:
      'Sets the session cookie and answers the CSRF token. An unknown email and a wrong password get the same 401. Past 10 failures for one email, or 50 from one client address, in 15 minutes: 429 until the window frees a slot. When the account has two-factor sign-in on, a right password makes no session: the answer is the second step (`two_factor_required`), a challenge to send back with a code to POST /session/second-step within five minutes.',
    tag: TAG,
    auth: 'public',
    body: Type.Object({ email: Email, password: Password }, { additionalProperties: false }),
    status: 200,
    response: SignInSchema,
    errors: [401, 429],
    handler: async (ctx) => sessionOrSecondStep(ctx, await checkPassword(ctx.deps, { ...ctx.body, clientAddress: ctx.request.ip })),
  }),
  defineAppRoute({
    method: 'GET',
    url: '/session',
    operationId: 'getSession',
    summary: 'The signed-in person, their CSRF token and their workspaces',
    tag: TAG,
    auth: 'session',
    status: 200,
    response: SessionStateSchema,
    handler: ({ deps, session }) => sessionState(deps, session.user, session.idHash),
  }),
  defineAppRoute({
    method: 'DELETE',
    url: '/session',
    operationId: 'signOut',
    summary: 'Sign out: the session ends at once',
    tag: TAG,
    auth: 'session',
    status: 204,
    handler: async ({ deps, session, request, reply }) => {
      await endSession(deps, session.idHash);
      clearSessionCookie(deps.publicUrl, request, reply);
    },
  }),
  defineAppRoute({
    method: 'POST',
    url: '/session/password',
    operationId: 'changePassword',
    summary: 'Choose a new password',
    description: 'Every session of the person ends (on every device); this answer starts a new one here.',
    tag: TAG,
    auth: 'session',
    body: Type.Object(
      {
        current_password: Type.Optional(Type.String({ maxLength: 1024, description: 'Needed when the account has a password' })),
        new_password: Password,
      },
      { additionalProperties: false },
    ),
    status: 200,
    response: SessionSchema,
    errors: [401, 429],
    handler: async (ctx) => {
      const { deps, session, body, request } = ctx;
      await changePassword(deps, session.user, {
        currentPassword: body.current_password ?? '',
        newPassword: body.new_password,
        clientAddress: request.ip,
      });
      return establishSession(ctx, { ...session.user, hasPassword: true });
    },
  }),
];
