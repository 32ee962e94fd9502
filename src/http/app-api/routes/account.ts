// The signed-in person's own account, beside session.ts: their name, and signing out on every device.
import { Type } from '@sinclair/typebox';
import { MAX_PERSON_NAME, renameSelf, signOutEverywhere } from '../../../services/people/account.js';
import { defineAppRoute } from '../define-app-route.js';
import { SessionStateSchema } from '../schemas.js';
import { clearSessionCookie } from '../session-cookie.js';
import { sessionState } from './session.js';

const TAG = 'Session';

const NameBody = Type.Object(
  {
    name: Type.Union([Type.String({ maxLength: MAX_PERSON_NAME }), Type.Null()], {
      description: `Trimmed; at most ${MAX_PERSON_NAME} characters on one line (no control characters); an empty string or null clears it`,
    }),
  },
  { additionalProperties: false },
);

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
