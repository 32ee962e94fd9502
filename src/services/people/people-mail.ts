// The mails footfall sends people: an invitation to a workspace and a password reset link. Each is a
// short text and the same in HTML; names people chose (a workspace's, an inviter's) are escaped in
// the HTML and kept off the subject's line breaks.
import type { Role } from '../../domain/roles.js';
import type { MailMessage } from '../../ports/mailer.js';
import { escapeHtml, oneLine } from '../../domain/html-text.js';

const ROLE_WORDS: Record<Role, string> = {
  owner: 'an owner (every right, billing and deletion included)',
  admin: 'an admin (sites, tokens and people)',
  viewer: 'a viewer (reads the dashboards)',
};

function html(paragraphs: string[], link: string, linkText: string): string {
  const body = paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
  const a = `<p><a href="${escapeHtml(link)}">${escapeHtml(linkText)}</a></p>`;
  return `<!doctype html>\n<html><body style="font-family: sans-serif; line-height: 1.5">\n${body}\n${a}\n<p style="color: #666">${escapeHtml(link)}</p>\n</body></html>\n`;
}

export interface InvitationMail {
  to: string;
  workspaceName: string;
  /** the inviter's name or email; null: the server's operator (the command line) */
  inviter: string | null;
  role: Role;
  url: string;
  expiresAt: string;
}

export function invitationMessage(m: InvitationMail): MailMessage {
  const ws = oneLine(m.workspaceName);
  const who = m.inviter === null ? 'The operator of footfall' : oneLine(m.inviter);
  const lines = [
    `${who} invited you to the workspace "${ws}" on footfall, as ${ROLE_WORDS[m.role]}.`,
    `The link below works once, until ${m.expiresAt} (UTC). If you did not expect this invitation, ignore this mail: nothing happens without the link.`,
  ];
  return {
    to: m.to,
    subject: `Invitation to "${ws}" on footfall`,
    text: `${lines.join('\n\n')}\n\nJoin "${ws}": ${m.url}\n`,
    html: html(lines, m.url, `Join "${ws}"`),
  };
}

export function resetMessage(m: { to: string; url: string; expiresAt: string }): MailMessage {
  const lines = [
    'Someone asked to choose a new password for your footfall account.',
    `The link below works once, until ${m.expiresAt} (UTC); choosing a new password signs you out everywhere else. If you did not ask, ignore this mail: your password stays as it is.`,
  ];
  return {
    to: m.to,
    subject: 'Choose a new password for footfall',
    text: `${lines.join('\n\n')}\n\nChoose a new password: ${m.url}\n`,
    html: html(lines, m.url, 'Choose a new password'),
  };
}
