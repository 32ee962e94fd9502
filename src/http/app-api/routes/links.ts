// The links a person receives (an invitation, a password reset, a one-time sign-in): the page at the
// link's path posts its secret here, in the body, so it never reaches a URL other than the link.
import { Type } from '@sinclair/typebox';
import { acceptInvitation } from '../../../services/people/invitations.js';
import { acceptReset, acceptSignInLink, requestReset } from '../../../services/people/links.js';
import { defineAppRoute } from '../define-app-route.js';
import { Email, LinkSecret, Name, Password, SessionSchema } from '../schemas.js';
import { establishSession } from './establish-session.js';

const TAG = 'Session';

export const linkRoutes = [
  defineAppRoute({
    method: 'POST',
    url: '/invitations/accept',
    operationId: 'acceptInvitation',
    summary: 'Join a workspace with an invitation link, and sign in',
    description:
      'A new person chooses a password (at least 10 characters); a person with an account gives its password. The invitation is used once; an unknown, used, revoked or expired one is 404.',
    tag: TAG,
    auth: 'public',
    body: Type.Object(
      { invitation: LinkSecret, password: Password, name: Type.Optional(Name) },
      { additionalProperties: false },
    ),
    status: 200,
    response: SessionSchema,
    errors: [401, 404, 409],
    handler: async (ctx) => establishSession(ctx, await acceptInvitation(ctx.deps, { secret: ctx.body.invitation, password: ctx.body.password, name: ctx.body.name })),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/password-reset',
    operationId: 'requestPasswordReset',
    summary: 'Ask for a password reset link',
    description:
      'The same answer whether or not an account has the email. The link goes out through the server\'s link delivery when it has one; otherwise the operator gives reset links (`footfall user reset-password --email E`).',
    tag: TAG,
    auth: 'public',
    body: Type.Object({ email: Email }, { additionalProperties: false }),
    status: 204,
    handler: async ({ deps, body }) => requestReset(deps, body.email, deps.linkDelivery),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/password-reset/accept',
    operationId: 'acceptPasswordReset',
    summary: 'Choose a new password with a reset link, and sign in',
    description: 'The link is used once. Every earlier session of the person ends.',
    tag: TAG,
    auth: 'public',
    body: Type.Object({ reset: LinkSecret, password: Password }, { additionalProperties: false }),
    status: 200,
    response: SessionSchema,
    errors: [404],
    handler: async (ctx) => establishSession(ctx, await acceptReset(ctx.deps, { secret: ctx.body.reset, password: ctx.body.password })),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/sign-in-links/accept',
    operationId: 'acceptSignInLink',
    summary: 'Sign in with a one-time sign-in link',
    tag: TAG,
    auth: 'public',
    body: Type.Object({ sign_in: LinkSecret }, { additionalProperties: false }),
    status: 200,
    response: SessionSchema,
    errors: [404],
    handler: async (ctx) => establishSession(ctx, await acceptSignInLink(ctx.deps, ctx.body.sign_in)),
  }),
];
