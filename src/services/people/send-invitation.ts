// An invitation made and handed over: mailed to the invitee when the server sends mail (the link then
// goes to the invitee only, so whoever accepts it has that mailbox), else returned to the inviter to
// pass on. A mail that fails leaves the invitation made, and says why: the inviter invites again to
// resend (a new invitation of an email replaces its open one) or revokes it.
import type { Role } from '../../domain/roles.js';
import type { Invitation } from '../../ports/people-store.js';
import type { WorkspaceAccess } from '../manage/access.js';
import { invite } from './invitations.js';
import type { PeopleDeps } from './people-deps.js';
import { invitationMessage } from './people-mail.js';

/** Why no mail went: none is configured, or the mail server did not take it. */
export interface MailError {
  code: 'MAIL_NOT_CONFIGURED' | 'MAIL_NOT_SENT';
  message: string;
}

export interface SentInvitation {
  invitation: Invitation;
  expiresAt: string;
  mailed: boolean;
  /** the link, to the inviter only when no mail is configured */
  url?: string;
  mailError?: MailError;
}

export const MAIL_NOT_CONFIGURED: MailError = Object.freeze({
  code: 'MAIL_NOT_CONFIGURED',
  message: 'This server sends no mail (FOOTFALL_SMTP_URL is not set): no mail was sent, give the person the link yourself.',
});

export async function sendInvitation(
  deps: Pick<PeopleDeps, 'people' | 'clock' | 'publicUrl' | 'random' | 'catalog' | 'mailer'>,
  access: WorkspaceAccess,
  input: { email: string; role: Role },
): Promise<SentInvitation> {
  const issued = await invite(deps, access, input);
  const { invitation, expiresAt } = issued;
  if (!deps.mailer) return { invitation, expiresAt, mailed: false, url: issued.url, mailError: MAIL_NOT_CONFIGURED };
  const outcome = await deps.mailer.send(
    invitationMessage({
      to: invitation.email,
      workspaceName: access.workspace.name,
      inviter: access.actor.kind === 'person' ? inviterWords(access.actor.user) : null,
      role: invitation.role,
      url: issued.url,
      expiresAt,
    }),
  );
  if (outcome.sent) return { invitation, expiresAt, mailed: true };
  return {
    invitation,
    expiresAt,
    mailed: false,
    mailError: {
      code: 'MAIL_NOT_SENT',
      message: `The invitation was made, but its mail was not sent: ${outcome.reason}. Invite ${invitation.email} again to send a new link (it replaces this one), or revoke the invitation.`,
    },
  };
}

function inviterWords(user: { name: string | null; email: string }): string {
  return user.name ? `${user.name} (${user.email})` : user.email;
}

/** The answer of the management API and of `footfall user invite --json`. */
export function sentInvitationJson(s: SentInvitation) {
  return {
    invitation_id: s.invitation.id,
    expires_at: s.expiresAt,
    mailed: s.mailed,
    ...(s.url !== undefined ? { invitation_url: s.url } : {}),
    ...(s.mailError ? { mail_error: { code: s.mailError.code, message: s.mailError.message } } : {}),
  };
}
