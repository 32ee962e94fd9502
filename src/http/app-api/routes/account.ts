// The signed-in person's own account, beside session.ts: their name, and signing out on every device.
import { Type } from '@sinclair/typebox';
import type { User } from '../../../ports/people-store.js';
import { userJson, workspaceSummaryJson } from '../../../services/manage/records-json.js';
import { workspacesOf } from '../../../services/manage/workspaces.js';
import { MAX_PERSON_NAME, renameSelf, signOutEverywhere } from '../../../services/people/account.js';
import { csrfTokenFor } from '../../../services/people/sessions.js';
import type { AppApiDeps } from '../app-api-deps.js';
import { defineAppRoute } from '../define-app-route.js';
import { SessionStateSchema } from '../schemas.js';
import { clearSessionCookie } from '../session-cookie.js';

const TAG = 'Session';

const NameBody = Type.Object(
  {
    name: Type.Union([Type.String({ maxLength: MAX_PERSON_NAME }), Type.Null()], {
      description: `Trimmed; at most ${MAX_PERSON_NAME} characters on one line (no control characters); an empty string or null clears it`,
    }),
  },
  { additionalProperties: false },
);

/** The answer of GET /session for a person and this session: who, the CSRF token, the workspaces. */
async function sessionState(deps: AppApiDeps, user: User, idHash: string) {
  return {
    user: userJson(user),
    csrf_token: await csrfTokenFor(deps, idHash),
    workspaces: (await workspacesOf(deps, user)).map(({ workspace, role }) => workspaceSummaryJson(workspace, role)),
  };
}

export const accountRoutes = [
  defineAppRoute({
    method: 'PATCH',
    url: '/session/name',
    operationId: 'setOwnName',
    summary: 'Set or clear your name',
    description: 'The name shown beside your email to the members of your workspaces. Answers the session as GET /session does.',
    tag: TAG,
    auth: 'session',
    body: NameBody,
    status: 200,
    response: SessionStateSchema,
    handler: async ({ deps, session, body }) => sessionState(deps, await renameSelf(deps, session.user, body.name), session.idHash),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/session/sign-out-everywhere',
    operationId: 'signOutEverywhere',
    summary: 'Sign out on every device',
    description: 'Every session of the person ends, this one included; the cookie is cleared. Sign in again to go on.',
    tag: TAG,
    auth: 'session',
    status: 204,
    handler: async ({ deps, session, request, reply }) => {
      await signOutEverywhere(deps, session.user);
      clearSessionCookie(deps.publicUrl, request, reply);
    },
  }),
];
