// Invitations to a workspace: a single-use link valid 48 hours whose secret is stored hashed. Admins
// invite admins and viewers, owners anyone. Seats are members plus open invitations; the store counts
// them under a workspace lock and writes nothing past the plan's.
import { ManageError, invalidField } from '../../domain/manage-errors.js';
import { planLimitsFor } from '../../domain/plans.js';
import { INVITATION_LIFETIME_MS, passwordProblem } from '../../domain/people.js';
import { roleToInvite, type Role } from '../../domain/roles.js';
import { hashSecret } from '../../domain/tokens.js';
import type { Invitation, User } from '../../ports/people-store.js';
import { notFound, requireRole, type WorkspaceAccess } from '../manage/access.js';
import { linkUrl, looksLikeLinkSecret, newSecret, type PeopleDeps } from './people-deps.js';
import { guess, linkKeys } from './guess-throttle.js';

export interface IssuedLink {
  url: string;
  expiresAt: string;
}

export async function invite(
  deps: Pick<PeopleDeps, 'people' | 'clock' | 'publicUrl' | 'random'>,
  access: WorkspaceAccess,
  input: { email: string; role: Role },
): Promise<IssuedLink & { invitation: Invitation }> {
  requireRole(access, roleToInvite(input.role));
  const now = deps.clock.now();
  const secret = newSecret(deps);
  const invitation = await deps.people.createInvitation({
    workspaceId: access.workspace.id,
    email: input.email,
    role: input.role,
    secretHash: hashSecret(secret),
    invitedBy: access.actor.kind === 'person' ? access.actor.user.id : null,
    expiresAt: new Date(now.getTime() + INVITATION_LIFETIME_MS).toISOString(),
    now: now.toISOString(),
    seatLimit: planLimitsFor(access.workspace.plan, access.workspace.apiPolicy).max_users,
  });
  return { url: linkUrl(deps.publicUrl, 'invite', secret), expiresAt: invitation.expiresAt, invitation };
}

export async function listInvitations(deps: Pick<PeopleDeps, 'people' | 'clock'>, access: WorkspaceAccess): Promise<Invitation[]> {
  requireRole(access, 'admin');
  return deps.people.listInvitations(access.workspace.id, deps.clock.now().toISOString());
}

/** Revoking needs the role that may make such an invitation. */
export async function revokeInvitation(
  deps: Pick<PeopleDeps, 'people' | 'clock'>,
  access: WorkspaceAccess,
  invitationId: string,
): Promise<void> {
  requireRole(access, 'admin');
  const inv = await deps.people.getInvitation(invitationId);
  const now = deps.clock.now().toISOString();
  const open = inv && inv.workspaceId === access.workspace.id && inv.acceptedAt === null && inv.revokedAt === null && inv.expiresAt > now;
  if (!open) throw notFound('invitation', invitationId);
  requireRole(access, roleToInvite(inv.role));
  if (!(await deps.people.revokeInvitation(invitationId, now))) throw notFound('invitation', invitationId);
}

const UNUSABLE = () => new ManageError('NOT_FOUND', 'This invitation link is unknown, used, revoked or expired: ask for a new one.');

/** What the page of an invitation link shows before the person acts. */
export interface InvitationPreview {
  invitation: Invitation;
  workspaceName: string;
  inviter: User | null;
  /** whether the invited email has an account (then joining needs a session of it) */
  accountExists: boolean;
}

type LinkDeps = Pick<PeopleDeps, 'people' | 'clock'>;

/**
 * The open invitation of a link's secret, behind the throttle of link guesses (per client address);
 * an unknown, used, revoked or expired one is a counted failure and 404.
 */
async function openInvitation(deps: LinkDeps, secret: string, clientAddress: string): Promise<Invitation> {
  const now = deps.clock.now();
  return guess(
    deps,
    linkKeys(clientAddress),
    now.getTime(),
    async () => (looksLikeLinkSecret(secret) ? deps.people.findOpenInvitation(hashSecret(secret), now.toISOString()) : null),
    UNUSABLE,
  );
}

export async function previewInvitation(
  deps: LinkDeps & Pick<PeopleDeps, 'catalog'>,
  input: { secret: string; clientAddress: string },
): Promise<InvitationPreview> {
  const invitation = await openInvitation(deps, input.secret, input.clientAddress);
  const [workspace, inviter, account] = await Promise.all([
    deps.catalog.getWorkspace(invitation.workspaceId),
    invitation.invitedBy === null ? null : deps.people.getUser(invitation.invitedBy),
    deps.people.findUserByEmail(invitation.email),
  ]);
  if (!workspace) throw UNUSABLE();
  return { invitation, workspaceName: workspace.name, inviter, accountExists: account !== null };
}

/**
 * A new person accepts: they choose a password (at least 10 characters) and their account is made, in
 * one transaction with the membership, or nothing is. An email that has an account already is refused
 * before any password is looked at: that account joins from a session of its own (joinInvitation),
 * so an invitation never sets, checks or signs in with the password of an account that exists.
 */
export async function acceptInvitation(
  deps: Pick<PeopleDeps, 'people' | 'hasher' | 'clock' | 'catalog'>,
  input: { secret: string; password: string; name?: string | null; clientAddress: string },
): Promise<User> {
  const inv = await openInvitation(deps, input.secret, input.clientAddress);
  if (await deps.people.findUserByEmail(inv.email)) throw await accountExists(deps, inv);
  const problem = passwordProblem(input.password);
  if (problem) throw invalidField('password', problem);
  const passwordHash = await deps.hasher.hash(input.password);
  const joined = await deps.people.acceptInvitation(hashSecret(input.secret), deps.clock.now().toISOString(), {
    kind: 'new',
    email: inv.email,
    name: input.name ?? null,
    passwordHash,
  });
  if (!joined) throw UNUSABLE();
  return joined.user;
}

async function accountExists(deps: Pick<PeopleDeps, 'catalog'>, inv: Invitation): Promise<ManageError> {
  const ws = await deps.catalog.getWorkspace(inv.workspaceId);
  return new ManageError(
    'CONFLICT',
    `${inv.email} has an account: sign in as ${inv.email}, then open this invitation link again to join ${ws?.name ?? 'the workspace'}.`,
    {
      reason: 'account_exists',
      email: inv.email,
    },
  );
}

/** The signed-in person joins with their own account; the invitation must be for their email. */
export async function joinInvitation(
  deps: LinkDeps & Pick<PeopleDeps, 'catalog'>,
  user: User,
  input: { secret: string; clientAddress: string },
): Promise<{ workspaceId: string }> {
  const inv = await openInvitation(deps, input.secret, input.clientAddress);
  if (inv.email !== user.email)
    throw new ManageError(
      'FORBIDDEN',
      `This invitation is for ${inv.email}, and you are signed in as ${user.email}: sign out, then sign in as ${inv.email} to join.`,
      {
        reason: 'other_account',
      },
    );
  const joined = await deps.people.acceptInvitation(hashSecret(input.secret), deps.clock.now().toISOString(), {
    kind: 'existing',
    userId: user.id,
  });
  if (!joined) throw UNUSABLE();
  return { workspaceId: joined.workspaceId };
}
