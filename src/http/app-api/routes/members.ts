// Members and invitations of a workspace: admins and owners see them; admins invite admins and
// viewers, owners anyone; owners change roles and remove members.
import { Type } from '@sinclair/typebox';
import { invitationJson, memberJson } from '../../../services/manage/records-json.js';
import { listInvitations, revokeInvitation } from '../../../services/people/invitations.js';
import { sendInvitation, sentInvitationJson } from '../../../services/people/send-invitation.js';
import { changeRole, listMembers, removeMember } from '../../../services/people/members.js';
import { defineAppRoute } from '../define-app-route.js';
import { Email, InvitationSchema, IssuedInvitationSchema, MemberSchema, RoleSchema, SeatsSchema } from '../schemas.js';
import { WorkspaceInvitationParams, WorkspaceParams, WorkspaceUserParams } from './params.js';

const TAG = 'Members';

export const memberRoutes = [
  defineAppRoute({
    method: 'GET',
    url: '/workspaces/:workspace_id/members',
    operationId: 'listMembers',
    summary: 'Members, and the seats in use of the plan (admins and owners)',
    tag: TAG,
    auth: 'session',
    guard: { on: 'workspace', need: 'admin' },
    params: WorkspaceParams,
    status: 200,
    response: Type.Object({ members: Type.Array(MemberSchema), seats: SeatsSchema }),
    handler: async ({ deps, access }) => {
      const { members, seats } = await listMembers(deps, access);
      return { members: members.map(memberJson), seats };
    },
  }),
  defineAppRoute({
    method: 'PATCH',
    url: '/workspaces/:workspace_id/members/:user_id',
    operationId: 'changeMemberRole',
    summary: "Change a member's role (owners; a workspace keeps one owner at least)",
    tag: TAG,
    auth: 'session',
    guard: { on: 'workspace', need: 'owner' },
    params: WorkspaceUserParams,
    body: Type.Object({ role: RoleSchema }, { additionalProperties: false }),
    status: 200,
    response: MemberSchema,
    errors: [404, 409],
    handler: async ({ deps, access, params, body }) => memberJson(await changeRole(deps, access, params.user_id, body.role)),
  }),
  defineAppRoute({
    method: 'DELETE',
    url: '/workspaces/:workspace_id/members/:user_id',
    operationId: 'removeMember',
    summary: 'Remove a member (owners; a workspace keeps one owner at least)',
    tag: TAG,
    auth: 'session',
    guard: { on: 'workspace', need: 'owner' },
    params: WorkspaceUserParams,
    status: 204,
    errors: [404, 409],
    handler: async ({ deps, access, params }) => removeMember(deps, access, params.user_id),
  }),
  defineAppRoute({
    method: 'GET',
    url: '/workspaces/:workspace_id/invitations',
    operationId: 'listInvitations',
    summary: 'Open invitations (admins and owners)',
    tag: TAG,
    auth: 'session',
    guard: { on: 'workspace', need: 'admin' },
    params: WorkspaceParams,
    status: 200,
    response: Type.Object({ invitations: Type.Array(InvitationSchema) }),
    handler: async ({ deps, access }) => ({ invitations: (await listInvitations(deps, access)).map(invitationJson) }),
  }),
  defineAppRoute({
    method: 'POST',
    url: '/workspaces/:workspace_id/invitations',
    operationId: 'invite',
    summary: 'Invite a person: a single-use link valid 48 hours, mailed to them (or, without mail, shown once)',
    description:
      "Admins invite admins and viewers, owners anyone. Seats are members plus open invitations: past the plan's, 409 SEAT_LIMIT_REACHED (details limit and used). A new invitation of the same email replaces its open one. When the server sends mail (FOOTFALL_SMTP_URL), the link is mailed to the invitee and is not in the answer (mailed: true); if the mail server does not take it, the invitation is made all the same and the answer says mailed: false with mail_error MAIL_NOT_SENT and why: invite again to resend. Without mail, the answer holds the link (invitation_url) and mail_error MAIL_NOT_CONFIGURED.",
    tag: TAG,
    auth: 'session',
    guard: { on: 'workspace', need: 'admin' },
    params: WorkspaceParams,
    body: Type.Object({ email: Email, role: RoleSchema }, { additionalProperties: false }),
    status: 201,
    response: IssuedInvitationSchema,
    errors: [409],
    handler: async ({ deps, access, body }) => {
      return sentInvitationJson(await sendInvitation(deps, access, body));
    },
  }),
  defineAppRoute({
    method: 'DELETE',
    url: '/workspaces/:workspace_id/invitations/:invitation_id',
    operationId: 'revokeInvitation',
    summary: 'Revoke an open invitation: its link stops working',
    tag: TAG,
    auth: 'session',
    guard: { on: 'workspace', need: 'admin' },
    params: WorkspaceInvitationParams,
    status: 204,
    errors: [404],
    handler: async ({ deps, access, params }) => revokeInvitation(deps, access, params.invitation_id),
  }),
];
