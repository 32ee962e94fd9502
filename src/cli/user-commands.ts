// `footfall user invite|list|remove|reset-password|disable-2fa`: the people of a workspace, through the same
// use-cases as the management API, with the operator's rights. Links are printed once, or an
// invitation's mailed to the invitee when FOOTFALL_SMTP_URL is set; only their secrets' hashes are stored.
import type { Command } from 'commander';
import { systemClock } from '../domain/clock.js';
import { ROLES } from '../domain/roles.js';
import type { CatalogStore } from '../ports/catalog-store.js';
import { OPERATOR, workspaceAccess } from '../services/manage/access.js';
import { invitationJson, memberJson } from '../services/manage/records-json.js';
import { listInvitations } from '../services/people/invitations.js';
import { sendInvitation, sentInvitationJson } from '../services/people/send-invitation.js';
import { issueLinkFor } from '../services/people/links.js';
import { listMembers, removeByEmail } from '../services/people/members.js';
import type { PeopleDeps } from '../services/people/people-deps.js';
import { operatorDisableTwoFactor } from '../services/people/two-factor.js';
import { openMailer } from '../container.js';
import { withStoreOptions } from './options.js';
import { Args, group, run, type CommandContext, type Opts, type Result } from './catalog-command-kit.js';
import { lines } from './catalog-json.js';

const PUBLIC_URL = ['--public-url <origin>', 'origin of the link (FOOTFALL_PUBLIC_URL, default http://<host>:<port> of serve)'] as const;

export function registerUserCommands(program: Command): void {
  const user = group(program, 'user', 'manage the people of a workspace');
  withStoreOptions(
    user
      .command('invite')
      .description('invite a person: a single-use link valid 48 hours, mailed to them (FOOTFALL_SMTP_URL) or shown once'),
  )
    .option('--workspace <id>', 'workspace id')
    .option('--email <email>', "the person's email")
    .option('--role <role>', ROLES.join('|'))
    .option(...PUBLIC_URL)
    .action(run(inviteUser));
  withStoreOptions(user.command('list').description('list the members and open invitations of a workspace'))
    .option('--workspace <id>', 'workspace id')
    .action(run(listUsers));
  withStoreOptions(user.command('remove').description("remove a member (or revoke that email's open invitation)"))
    .option('--workspace <id>', 'workspace id')
    .option('--email <email>', "the person's email")
    .action(run(removeUser));
  withStoreOptions(user.command('reset-password').description('print a new single-use password reset link, valid an hour'))
    .option('--email <email>', "the person's email")
    .option(...PUBLIC_URL)
    .action(run(resetPassword));
  // A mailed reset leaves two-factor on (docs/decisions/people.md): a person who lost both their app and
  // their recovery codes asks the operator, who turns it off after checking who asks.
  withStoreOptions(
    user
      .command('disable-2fa')
      .argument('[email]', "the person's email")
      .description("turn off a person's two-factor sign-in (their secret and recovery codes are deleted)"),
  )
    .option('--email <email>', "the person's email (or give it as the argument)")
    .action(run(disableTwoFactor));
}

/** The command line hashes no password: no hasher. */
const peopleDeps = (ctx: CommandContext): Omit<PeopleDeps, 'hasher'> => ({
  catalog: ctx.control.catalog,
  people: ctx.control.people,
  clock: systemClock,
  publicUrl: ctx.config.publicUrl,
});

async function inviteUser(_catalog: CatalogStore, opts: Opts, _args: string[], ctx: CommandContext): Promise<Result> {
  const a = new Args(opts);
  const workspaceId = a.need('workspace', '--workspace <id>');
  const email = a.need('email', '--email <email>');
  const role = a.oneOf('--role', a.need('role', `--role ${ROLES.join('|')}`), ROLES);
  a.done();
  const mailer = await openMailer(ctx.config);
  try {
    const deps = { ...peopleDeps(ctx), mailer };
    const sent = await sendInvitation(deps, await workspaceAccess(deps, OPERATOR, workspaceId, 'owner'), { email, role: role! });
    const invited = `Invited ${sent.invitation.email} as ${sent.invitation.role} of workspace ${workspaceId}.`;
    const text = sent.mailed
      ? `${invited}\nThe single-use link, valid until ${sent.expiresAt}, was mailed to ${sent.invitation.email}.`
      : sent.url !== undefined
        ? `${invited}\nNo mail was sent (FOOTFALL_SMTP_URL is not set). Single-use link, shown only now, valid until ${sent.expiresAt}:\n${sent.url}`
        : `${invited}\n${sent.mailError?.message}`;
    return { json: sentInvitationJson(sent), text };
  } finally {
    await mailer?.close();
  }
}

async function listUsers(_catalog: CatalogStore, opts: Opts, _args: string[], ctx: CommandContext): Promise<Result> {
  const a = new Args(opts);
  const workspaceId = a.need('workspace', '--workspace <id>');
  a.done();
  const deps = peopleDeps(ctx);
  const access = await workspaceAccess(deps, OPERATOR, workspaceId, 'owner');
  const [{ members, seats }, invitations] = await Promise.all([listMembers(deps, access), listInvitations(deps, access)]);
  const seatText = `Seats: ${seats.used} of ${seats.limit ?? 'unlimited'} (members and open invitations).`;
  return {
    json: { users: members.map(memberJson), invitations: invitations.map(invitationJson), seats },
    text: [
      lines(
        members,
        'No members.',
        (m) => `${m.user.id}  ${m.role}  ${m.user.email}${m.user.name ? `  "${m.user.name}"` : ''}  joined ${m.joinedAt}`,
      ),
      ...invitations.map((i) => `invited  ${i.role}  ${i.email}  until ${i.expiresAt}`),
      seatText,
    ].join('\n'),
  };
}

async function removeUser(_catalog: CatalogStore, opts: Opts, _args: string[], ctx: CommandContext): Promise<Result> {
  const a = new Args(opts);
  const workspaceId = a.need('workspace', '--workspace <id>');
  const email = a.need('email', '--email <email>');
  a.done();
  const deps = peopleDeps(ctx);
  const out = await removeByEmail(deps, await workspaceAccess(deps, OPERATOR, workspaceId, 'owner'), email);
  return {
    json: { workspace_id: workspaceId, email: email.trim().toLowerCase(), removed: out.removed },
    text:
      out.removed === 'member'
        ? `Removed ${out.member.user.email} (${out.member.role}) from workspace ${workspaceId}.`
        : `Revoked the open invitation of ${out.invitation.email} to workspace ${workspaceId}; its link stops working.`,
  };
}

async function resetPassword(_catalog: CatalogStore, opts: Opts, _args: string[], ctx: CommandContext): Promise<Result> {
  const a = new Args(opts);
  const email = a.need('email', '--email <email>');
  a.done();
  const link = await issueLinkFor(peopleDeps(ctx), email, 'reset');
  return {
    json: { reset_url: link.url, expires_at: link.expiresAt },
    text: `Password reset link for ${link.user.email}, single use, shown only now, valid until ${link.expiresAt}:\n${link.url}`,
  };
}

async function disableTwoFactor(_catalog: CatalogStore, opts: Opts, args: string[], ctx: CommandContext): Promise<Result> {
  const a = new Args(args[0] ? { ...opts, email: args[0] } : opts);
  const email = a.need('email', 'EMAIL (or --email <email>)');
  a.done();
  const { user, wasOn } = await operatorDisableTwoFactor(peopleDeps(ctx), email);
  return {
    json: { email: user.email, two_factor_was_on: wasOn },
    text: wasOn
      ? `Two-factor sign-in of ${user.email} is off: their password alone signs in now; they may turn it on again on their account page.`
      : `Two-factor sign-in of ${user.email} was off already; nothing changed.`,
  };
}
