// The links a person receives (an invitation, a password reset, a one-time sign-in): the page at the
// link's path posts its secret here, in the body, so it never reaches a URL other than the link.
import { Type } from '@sinclair/typebox';
import { acceptInvitation, joinInvitation, previewInvitation } from '../../../services/people/invitations.js';
import { acceptReset, acceptSignInLink, requestReset } from '../../../services/people/links.js';
import { defineAppRoute } from '../define-app-route.js';
import {
  Email,
  InvitationPreviewSchema,
  JoinedSchema,
  LinkSecret,
  Name,
  Password,
  ResetRequestedSchema,
  SessionSchema,
  SignInSchema,
} from '../schemas.js';
import { establishSession, sessionOrSecondStep } from './establish-session.js';

const TAG = 'Session';

export const linkRoutes = [
  defineAppRoute({
    method: 'POST',
    url: '/invitations/preview',
    operationId: 'previewInvitation',
    summary: 'What an invitation link offers: the workspace, the role, the email, and whether it has an account',
    description:
      'Nothing changes. The invitation page shows it before the person acts. An unknown, used, revoked or expired link is 404, and counts against the client address (429 past 50 wrong links or passwords in 15 minutes).',
    tag: TAG,
    auth: 'public',
    body: Type.Object({ invitation: LinkSecret }, { additionalProperties: false }),
    status: 200,
    response: InvitationPreviewSchema,
    errors: [404, 429],
    handler: async ({ deps, body, request }) => {
      const p = await previewInvitation(deps, { secret: body.invitation, clientAddress: request.ip });
      return {
        email: p.invitation.email,
        role: p.invitation.role,
        workspace_name: p.workspaceName,
        invited_by: p.inviter ? { name: p.inviter.name, email: p.inviter.email } : null,
        expires_at: p.invitation.expiresAt,
        account_exists: p.accountExists,
      };
    },
  }),
  defineAppRoute({
    method: 'POST',
    url: '/invitations/accept',
    operationId: 'acceptInvitation',
    summary: 'Join a workspace with an invitation link as a new person, choosing a password, and sign in',
    description:
      'For an email without an account: the person chooses a password (at least 10 characters) and the account is made. An email that has an account is 409 before any password is looked at: sign in as that account, then join with POST /invitations/join. The invitation is used once; an unknown, used, revoked or expired one is 404 and counts against the client address (429 past 50 in 15 minutes).',
    tag: TAG,
    auth: 'public',
    body: Type.Object({ invitation: LinkSecret, password: Password, name: Type.Optional(Name) }, { additionalProperties: false }),
    status: 200,
    response: SessionSchema,
    errors: [404, 409, 429],
    handler: async (ctx) =>
      establishSession(
        ctx,
        await acceptInvitation(ctx.deps, {
          secret: ctx.body.invitation,
          password: ctx.body.password,
          name: ctx.body.name,
          clientAddress: ctx.request.ip,
        }),
      ),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/invitations/join',
    operationId: 'joinInvitation',
    summary: 'Join a workspace with an invitation link as the signed-in person',
    description:
      "The invitation must be for the signed-in person's email (403 otherwise: sign in as that email). Nothing about the account changes but the new membership; the session goes on.",
    tag: TAG,
    auth: 'session',
    body: Type.Object({ invitation: LinkSecret }, { additionalProperties: false }),
    status: 200,
    response: JoinedSchema,
    errors: [404, 429],
    handler: async ({ deps, session, body, request }) => {
      const { workspaceId } = await joinInvitation(deps, session.user, { secret: body.invitation, clientAddress: request.ip });
      return { workspace_id: workspaceId };
    },
  }),
  defineAppRoute({
    method: 'POST',
    url: '/password-reset',
    operationId: 'requestPasswordReset',
    summary: 'Ask for a password reset link',
    description:
      'The same answer, as fast, whether or not an account has the email. When the server sends mail (FOOTFALL_SMTP_URL), a link valid an hour is mailed to the account after the answer; a mail that fails is logged (without the link or the address), not answered. Without mail, nothing is sent and mail_configured is false: the operator gives reset links (`footfall user reset-password --email E`). With mail, a client address may ask 10 times in 15 minutes (429 with Retry-After past it) and an email gets at most 3 reset mails in 15 minutes (past that the answer is the same and no mail goes out).',
    tag: TAG,
    auth: 'public',
    body: Type.Object({ email: Email }, { additionalProperties: false }),
    status: 200,
    response: ResetRequestedSchema,
    handler: async ({ deps, body, request }) => {
      const { mailConfigured } = await requestReset(deps, { email: body.email, clientAddress: request.ip }, (reason) =>
        request.log.warn({ mail: 'password_reset' }, `a password reset mail was not sent: ${reason}`),
      );
      return mailConfigured
        ? { mail_configured: true, message: 'If an account has this email, a link to choose a new password is on its way to it.' }
        : {
            mail_configured: false,
            message: 'This server sends no mail, so no link was sent: ask its operator for a reset link (footfall user reset-password).',
          };
    },
  }),
  defineAppRoute({
    method: 'POST',
    url: '/password-reset/accept',
    operationId: 'acceptPasswordReset',
    summary: 'Choose a new password with a reset link, and sign in',
    description:
      'The link is used once. Every earlier session of the person ends. An unknown, used or expired link is 404 and counts against the client address (429 past 50 wrong links or passwords in 15 minutes); it is looked up before any password is hashed. A reset leaves two-factor sign-in on: with it on, the password is changed and the answer is the second step, as POST /session answers it.',
    tag: TAG,
    auth: 'public',
    body: Type.Object({ reset: LinkSecret, password: Password }, { additionalProperties: false }),
    status: 200,
    response: SignInSchema,
    errors: [404, 429],
    handler: async (ctx) =>
      sessionOrSecondStep(
        ctx,
        await acceptReset(ctx.deps, { secret: ctx.body.reset, password: ctx.body.password, clientAddress: ctx.request.ip }),
      ),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/sign-in-links/accept',
    operationId: 'acceptSignInLink',
    summary: 'Sign in with a one-time sign-in link',
    description: 'With two-factor sign-in on, the link is used and the answer is the second step, as POST /session answers it.',
    tag: TAG,
    auth: 'public',
    body: Type.Object({ sign_in: LinkSecret }, { additionalProperties: false }),
    status: 200,
    response: SignInSchema,
    errors: [404, 429],
    handler: async (ctx) =>
      sessionOrSecondStep(ctx, await acceptSignInLink(ctx.deps, { secret: ctx.body.sign_in, clientAddress: ctx.request.ip })),
  }),
];
